//! H904 `misplaced-suppression`: a `# hieralint:` directive that cannot take effect where or as
//! written (`ignore-file` after content, `enable` without `disable`, an own-line `ignore` with
//! nothing after it, an unknown action). Raised by [`crate::suppress`].

crate::declare_rule!(pub static META = {
    code: "H904",
    name: "misplaced-suppression",
    category: Suspicious,
    summary: "a suppression comment that is misplaced or malformed, so it cannot take effect",
    suppressible: false,
});
