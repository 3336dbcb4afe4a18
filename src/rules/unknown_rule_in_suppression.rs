//! H902 `unknown-rule-in-suppression`: a `# hieralint:` directive names a rule that does not
//! exist, or one that cannot be suppressed. Raised by [`crate::suppress`].

crate::declare_rule!(pub static META = {
    code: "H902",
    name: "unknown-rule-in-suppression",
    category: Suspicious,
    summary: "a suppression comment names an unknown rule, or one that cannot be suppressed",
    suppressible: false,
});
