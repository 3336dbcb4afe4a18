//! Any text as YAML: the fast block reader (`src/loader/fast.rs`) either leaves it to saphyr or
//! gives exactly saphyr's events and spans; and it never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = hieralint::loader::fast_yaml_differential(&text) {
        panic!("{e}");
    }
});
