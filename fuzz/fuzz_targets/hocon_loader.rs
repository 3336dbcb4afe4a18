//! Any bytes as a HOCON data file: the loader must not panic, and what it returns must satisfy
//! [`hieralint_fuzz::invariants::check_document`] (spans in bounds and on character boundaries,
//! `line_col` exact, the tree converts to Puppet data).
#![no_main]

use hieralint::loader::{self, Format};
use hieralint::span::SourceFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = SourceFile::from_bytes("fuzz.hocon", data);
    let doc = loader::load(Format::Hocon, &file);
    if let Err(e) = hieralint_fuzz::invariants::check_document(&file, &doc) {
        panic!("{e}");
    }
});
