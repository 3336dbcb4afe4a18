//! H903 `invalid-config`: an error in hieralint's own configuration file (`.hieralint.yaml`):
//! YAML that does not parse, an unknown key, a bad value, an unknown rule. Raised by
//! [`crate::settings`].

crate::declare_rule!(pub static META = {
    code: "H903",
    name: "invalid-config",
    category: Correctness,
    summary: "an error in hieralint's configuration file (.hieralint.yaml)",
    suppressible: false,
});
