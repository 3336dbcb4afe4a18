//! Invariants of the rule registry: codes, names, pages and fixtures.

use std::collections::BTreeSet;

use hieralint::rules;

#[test]
fn codes_and_names_are_unique_and_well_formed() {
    let mut codes = BTreeSet::new();
    let mut names = BTreeSet::new();
    for m in rules::all_meta() {
        assert!(
            m.code.len() == 4
                && m.code.starts_with('H')
                && m.code[1..].chars().all(|c| c.is_ascii_digit()),
            "{}",
            m.code
        );
        assert!(
            m.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{}",
            m.name
        );
        assert!(codes.insert(m.code), "duplicate code {}", m.code);
        assert!(names.insert(m.name), "duplicate name {}", m.name);
    }
}

#[test]
fn every_rule_page_has_front_matter_and_headings() {
    for m in rules::all_meta() {
        let doc = m.doc;
        assert!(
            doc.starts_with("---\n"),
            "{}: page must start with front matter",
            m.name
        );
        assert!(
            doc.contains(&format!("\ncode: {}\n", m.code)),
            "{}: front matter code",
            m.name
        );
        assert!(
            doc.contains(&format!("\nname: {}\n", m.name)),
            "{}: front matter name",
            m.name
        );
        assert!(
            doc.contains(&format!("\ncategory: {}\n", m.category.as_str())),
            "{}: front matter category",
            m.name
        );
        assert!(
            doc.contains(&format!("# {} ({})", m.name, m.code)),
            "{}: title",
            m.name
        );
        for h in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Options",
            "## References",
        ] {
            assert!(doc.contains(h), "{}: missing heading {h}", m.name);
        }
    }
}

#[test]
fn every_registered_rule_has_fixtures() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for r in rules::registry() {
        let dir = root.join("fixtures/rules").join(r.meta().name);
        assert!(dir.is_dir(), "{}: missing {}", r.meta().name, dir.display());
    }
}

#[test]
fn lookup_by_name_and_code() {
    for m in rules::all_meta() {
        assert_eq!(rules::find(m.name).unwrap().code, m.code);
        assert_eq!(rules::find(&m.code.to_lowercase()).unwrap().name, m.name);
    }
}
