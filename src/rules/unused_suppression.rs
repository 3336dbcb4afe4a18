//! H901 `unused-suppression`: a `# hieralint:` directive (or one rule in its brackets) that
//! silenced nothing in this run. Raised by [`crate::suppress`], not by a rule phase.

crate::declare_rule!(pub static META = {
    code: "H901",
    name: "unused-suppression",
    category: Style,
    summary: "a suppression comment that suppresses nothing",
    suppressible: false,
});
