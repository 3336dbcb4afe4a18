//! The rules never panic: every fixture under fixtures/rules/, cut at each of its first 200
//! bytes (mid-character cuts included) and with structural bytes substituted, goes through every
//! registered rule.

mod support;

use std::sync::Arc;

use hieralint::check::run_rules;
use hieralint::loader::{self, Format};
use hieralint::project::{FileRole, Layer, LoadedFile, Project};
use hieralint::rules;
use hieralint::span::SourceFile;
use support::*;

fn check_bytes(name: &str, bytes: &[u8], role: FileRole) -> usize {
    let source = Arc::new(SourceFile::from_bytes(name, bytes));
    let format = Format::from_extension(std::path::Path::new(name)).unwrap_or(Format::Yaml);
    let doc = loader::load(format, &source);
    let project = Project::new(vec![LoadedFile::new(
        source,
        doc,
        role,
        Layer::Environment,
        None,
    )]);
    run_rules(&project, rules::registry()).len()
}

#[test]
fn no_input_makes_a_rule_panic() {
    let mut inputs = Vec::new();
    for entry in walkdir::WalkDir::new(crate_root().join("fixtures/rules"))
        .sort_by_file_name()
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
    {
        let name = entry.file_name().to_string_lossy().to_string();
        inputs.push((name, std::fs::read(entry.path()).unwrap()));
    }
    assert!(inputs.len() > 50);
    let mut runs = 0;
    for (name, bytes) in &inputs {
        let role = if name == "hiera.yaml" {
            FileRole::HieraConfig
        } else {
            FileRole::Data
        };
        let limit = bytes.len().min(200);
        for cut in 0..=limit {
            check_bytes(name, &bytes[..cut], role.clone());
            runs += 1;
        }
        // substitute one byte at a time
        for (i, b) in bytes.iter().enumerate().take(160).step_by(4) {
            for to in [b'"', b'%', b'[', b'\t', 0xFF] {
                if *b != to {
                    let mut m = bytes.clone();
                    m[i] = to;
                    check_bytes(name, &m, role.clone());
                    runs += 1;
                }
            }
        }
    }
    eprintln!("{runs} inputs checked");
}
