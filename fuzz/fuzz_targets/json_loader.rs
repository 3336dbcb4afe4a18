//! Any bytes as a JSON data file: the loader must not panic, and what it returns must satisfy
//! [`hieralint_fuzz::invariants::check_document`] (spans in bounds and on character boundaries,
//! `line_col` exact, the tree converts to Puppet data), and the text pass that lets rules skip
//! the file ([`hieralint_fuzz::invariants::check_may_contain`]) misses no string it loads to.
#![no_main]

use hieralint::loader::{self, Format};
use hieralint::span::SourceFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = std::sync::Arc::new(SourceFile::from_bytes("fuzz.json", data));
    let doc = loader::load(Format::Json, &file);
    if let Err(e) = hieralint_fuzz::invariants::check_document(&file, &doc) {
        panic!("{e}");
    }
    if let Err(e) = hieralint_fuzz::invariants::check_may_contain(&file, doc) {
        panic!("{e}");
    }
});
