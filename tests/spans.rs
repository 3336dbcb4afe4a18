//! Exact ranges (line, column, end line, end column; 1-based, columns in characters, end
//! exclusive: docs/integrations.md "Positions") for the places session 26's span audit found
//! too wide or wrong: block scalars with an explicit indentation indicator, libyaml's problem
//! mark for syntax errors inside a scalar, tag, anchor or block header, each `ENC[...]` token
//! of malformed-eyaml, files whose lines end with a lone `\r`, and a null merge strategy.

use std::path::{Path, PathBuf};

use hieralint::check::{self, CheckOptions};
use hieralint::diag::Diagnostic;

/// A fresh environment: `hiera.yaml` (a node level and common) and the given files.
fn env(tag: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hieralint-spans-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("data/nodes")).unwrap();
    std::fs::write(
        dir.join("hiera.yaml"),
        "version: 5\nhierarchy:\n  - name: n\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: c\n    path: common.yaml\n",
    )
    .unwrap();
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn check(dir: &Path, rule: &'static str) -> Vec<Diagnostic> {
    check::check(&CheckOptions {
        paths: vec![dir.to_path_buf()],
        only: vec![rule],
        ..CheckOptions::default()
    })
    .diagnostics
}

/// (file name, line, column, end line, end column) of each diagnostic's primary label.
fn ranges(diags: &[Diagnostic]) -> Vec<(String, usize, usize, usize, usize)> {
    diags
        .iter()
        .map(|d| {
            let f = &d.primary.file;
            let s = f.line_col(d.primary.span.start as usize);
            let e = f.line_col(d.primary.span.end as usize);
            let name = f.path.file_name().unwrap().to_string_lossy().into_owned();
            (name, s.line, s.column, e.line, e.column)
        })
        .collect()
}

/// Line, column, end line, end column.
type Range = (usize, usize, usize, usize);

fn one(tag: &str, file: &str, text: &str, rule: &'static str) -> Range {
    let dir = env(tag, &[(file, text.as_bytes())]);
    let r = ranges(&check(&dir, rule));
    assert_eq!(r.len(), 1, "{tag}: {r:?}");
    let (_, a, b, c, d) = r[0].clone();
    (a, b, c, d)
}

#[test]
fn tokens_in_block_scalars_with_an_indentation_indicator() {
    assert_eq!(
        one(
            "lit2",
            "data/common.yaml",
            "k: |2\n   é %{a..b}\n",
            "interpolation-syntax-error"
        ),
        (2, 6, 2, 13)
    );
    assert_eq!(
        one(
            "fold1",
            "data/common.yaml",
            "k: >1\n  é %{::osfamily}\n",
            "legacy-fact"
        ),
        (2, 5, 2, 18)
    );
    assert_eq!(
        one(
            "nested",
            "data/common.yaml",
            "a:\n  k: |-2\n      x\n      é %{a..b}\n",
            "interpolation-syntax-error"
        ),
        (4, 9, 4, 16)
    );
}

/// Each start below is libyaml's problem mark, as PyYAML 6.0.3's CLoader (libyaml) reports it
/// for the same text, except the empty anchor name (libyaml: the blank after the sigil; shown
/// at the sigil). Bad escapes span the whole escape from its backslash.
#[test]
fn syntax_errors_point_at_the_problem() {
    let hex = format!("k: \"{}\\xZZ\"\n", "é".repeat(200));
    let cases: &[(&str, &str, Range)] = &[
        // The unknown escape, not the opening quote (Psych's message keeps the context mark).
        ("esc", "k: \"😀é \\q\"\n", (1, 8, 1, 10)),
        ("esc2", "k: \"😀\n  é \\q\"\n", (2, 5, 2, 7)),
        // A valid `\\` before the bad escape is passed over.
        ("esc3", "k: \"a \\\\q \\q\"\n", (1, 11, 1, 13)),
        // The whole bad hexadecimal escape, after 200 two-byte characters.
        ("hex", &hex, (1, 205, 1, 209)),
        ("surrogate", "k: \"a \\uD800 b\"\n", (1, 7, 1, 13)),
        // The tab that breaks the indentation.
        ("tab", "a:\n  k: 😀\n\tb\n", (3, 1, 3, 2)),
        // The character of a block header that is neither an indicator nor a comment.
        ("header", "k: |x\n  a\n", (1, 5, 1, 6)),
        ("zero", "k: |0\n  a\n", (1, 5, 1, 6)),
        // The character that ends an anchor's name; the sigil when there is no name.
        ("anchor", "k: &a😀 x\n", (1, 6, 1, 7)),
        ("noname", "k: & x\n", (1, 4, 1, 5)),
        // The first character of a tag that is not a URI character.
        ("tag", "k: !é!x y\n", (1, 5, 1, 6)),
        ("verbatim", "k: !<é y\n", (1, 6, 1, 7)),
        // The problem in a directive.
        ("directive", "%YAML 1.x\n---\na: 1\n", (1, 9, 1, 10)),
    ];
    for (tag, text, range) in cases {
        assert_eq!(
            one(tag, "data/common.yaml", text, "yaml-syntax-error"),
            *range,
            "{tag}"
        );
    }
}

#[test]
fn each_malformed_eyaml_token_is_reported_at_itself() {
    let dir = env(
        "eyaml",
        &[(
            "data/common.yaml",
            "k: \"😀 ENC[] x ENC[FOO,QUJD] é\"\nj: ENC[GPG,QUJD]\n".as_bytes(),
        )],
    );
    let r = ranges(&check(&dir, "malformed-eyaml"));
    assert_eq!(
        r,
        vec![
            ("common.yaml".to_string(), 1, 7, 1, 12),
            ("common.yaml".to_string(), 1, 15, 1, 28),
        ]
    );
}

#[test]
fn a_lone_carriage_return_ends_a_line() {
    assert_eq!(
        one(
            "cr",
            "data/common.yaml",
            "a: 1\rk: on\r",
            "yaml11-implicit-type"
        ),
        (2, 4, 2, 6)
    );
    assert_eq!(
        one(
            "cr2",
            "data/common.yaml",
            "j: 1\nk: \"x\r  %{a..b}\"\n",
            "interpolation-syntax-error"
        ),
        (3, 3, 3, 10)
    );
}

#[test]
fn a_null_merge_strategy_is_shown_at_the_null() {
    assert_eq!(
        one(
            "strategy",
            "data/common.yaml",
            "lookup_options:\n  a:\n    merge: {strategy: ~}\na: 1\n",
            "invalid-merge-behavior"
        ),
        (3, 23, 3, 24)
    );
}

/// A node file that defines the asked-for value is not labelled as lacking it for the nodes
/// that do not read it.
#[test]
fn a_definition_in_a_file_the_nodes_do_not_read_says_so() {
    let dir = env(
        "label",
        &[
            (
                "data/common.yaml",
                "k: \"😀 %{lookup('prof::é.sub')}\"\n".as_bytes(),
            ),
            ("data/nodes/web01.yaml", b"a: 1\n"),
            (
                "data/nodes/web02.yaml",
                "x: 1\nprof::é:\n  sub: 1\n".as_bytes(),
            ),
        ],
    );
    let diags = check(&dir, "interpolated-key-not-found");
    assert_eq!(diags.len(), 1);
    let labels: Vec<&str> = diags[0]
        .secondary
        .iter()
        .map(|l| l.message.as_str())
        .collect();
    assert_eq!(
        labels,
        vec!["`prof::é` is defined here, in a file these nodes do not read"]
    );
}

/// A byte order mark counts as a column for Psych (recorded:
/// fixtures/conformance/yaml/bom-shifts-line-one): the mapping begun on line 1 ends at line 2,
/// which is reported there; positions do not count the mark (docs/integrations.md "Positions").
#[test]
fn a_byte_order_mark_ends_the_data_at_the_first_line_at_column_one() {
    assert_eq!(
        one(
            "bom",
            "data/common.yaml",
            "\u{FEFF}é: on\nj: 1\n",
            "multiple-yaml-documents"
        ),
        (2, 1, 2, 2)
    );
    assert_eq!(
        one(
            "bom2",
            "data/common.yaml",
            "\u{FEFF}é: on\nj: 1\n",
            "yaml11-implicit-type"
        ),
        (1, 4, 1, 6)
    );
}
