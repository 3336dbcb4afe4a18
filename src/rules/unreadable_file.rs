//! H008 `unreadable-file`: a file or directory hieralint could not read.

crate::declare_rule!(pub static META = {
    code: "H008",
    name: "unreadable-file",
    category: Correctness,
    summary: "a file or directory that cannot be read (permissions, symlink loop, too large, vanished) or lies outside the checked tree",
    suppressible: false,
});
