//! H008 `unreadable-file`: a file or directory hieralint could not read.

crate::declare_rule!(pub static META = {
    code: "H008",
    name: "unreadable-file",
    category: Correctness,
    summary: "a file or directory that cannot be read (permissions, symlink loop, too large, vanished) or lies outside the checked tree",
    suppressible: false,
});

/// A limit of hieralint's own hit in `check` (docs/limits.md): `message` names what was stopped
/// and the limit ([`crate::engine::LookupError::limit`]), `consequence` what the rules could not
/// check because of it. Reported rather than leaving those lookups failing silently.
pub fn limit_hit(
    file: &std::sync::Arc<crate::span::SourceFile>,
    span: crate::span::Span,
    message: String,
    consequence: &str,
) -> crate::diag::Diagnostic {
    crate::diag::Diagnostic::new(&META, file, span, message)
        .note(format!("{consequence}; Puppet has no such bound"))
        .note("help: raise the limit under `limits:` in .hieralint.yaml (docs/limits.md)")
}
