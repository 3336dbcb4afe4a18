//! The JSON and HOCON loaders against answers recorded from Ruby (fixtures/json/cases.json from
//! Puppet's json_data parser, fixtures/hocon/cases.json from ruby-hocon), plus exact spans.

use hieralint::loader::{self, Document, Format, LoadIssueKind, PuppetData};
use hieralint::span::{LineCol, SourceFile, Span};
use hieralint::value::{ruby_float_to_s, Node, NodeKind, Value};
use serde_json::{json, Value as J};

fn load_json(text: &str) -> (SourceFile, Document) {
    let f = SourceFile::from_bytes("t.json", text.as_bytes());
    let d = loader::json::load(&f);
    (f, d)
}

/// A value in the recording scripts' tagged form (see fixtures/json/record.rb).
fn tagged(v: &Value) -> J {
    match v {
        Value::Undef => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Integer(i) => json!({ "int": i.to_string() }),
        Value::Float(f) => json!({ "float": ruby_float_to_s(*f) }),
        Value::String(s) if s.contains('\u{FFFD}') => json!({ "invalid_str": s.to_string() }),
        Value::String(s) => J::String(s.to_string()),
        Value::Symbol(s) => json!({ "symbol": s.to_string() }),
        Value::Array(a) => J::Array(a.iter().map(tagged).collect()),
        Value::Hash(h) => {
            json!({ "hash": h.iter().map(|(k, v)| json!([tagged(k), tagged(v)])).collect::<Vec<_>>() })
        }
    }
}

/// Replaces recorded Bignums (`{"int": "<more than 64 bits>"}`) by the Float hieralint uses for
/// them, returning how many there were.
fn approximate_bignums(v: &mut J) -> usize {
    match v {
        J::Object(o) if o.len() == 1 && o.contains_key("int") => {
            let digits = o["int"].as_str().unwrap().to_string();
            if digits.parse::<i64>().is_ok() {
                return 0;
            }
            let f: f64 = digits.parse().unwrap();
            *v = json!({ "float": ruby_float_to_s(f) });
            1
        }
        J::Object(o) => o.values_mut().map(approximate_bignums).sum(),
        J::Array(a) => a.iter_mut().map(approximate_bignums).sum(),
        _ => 0,
    }
}

#[test]
fn json_matches_ruby_json_parse() {
    let cases: Vec<J> = serde_json::from_str(include_str!("../fixtures/json/cases.json")).unwrap();
    assert!(cases.len() > 200);
    let mut failures = Vec::new();
    for case in &cases {
        let input = case["input"].as_str().unwrap();
        let (_, doc) = load_json(input);
        let got = doc.puppet_data();
        let ok = match (&got, case.get("value"), case.get("error")) {
            (PuppetData::Value(v), Some(expected), None) => {
                let mut expected = expected.clone();
                let bignums = approximate_bignums(&mut expected);
                let unsupported = doc
                    .issues
                    .iter()
                    .filter(|i| i.kind == LoadIssueKind::Unsupported)
                    .count();
                let invalid = expected.to_string().contains("invalid_str");
                let encoding = doc.issues.iter().any(|i| i.kind == LoadIssueKind::Encoding);
                tagged(v) == expected && unsupported == bignums && invalid == encoding
            }
            (PuppetData::Error(m), None, Some(expected)) => m == expected.as_str().unwrap(),
            _ => false,
        };
        if !ok {
            failures.push(format!("{input:?}: got {got:?}, Ruby: {case}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn lc(f: &SourceFile, at: u32) -> (usize, usize) {
    let LineCol { line, column } = f.line_col(at as usize);
    (line, column)
}

/// Start and end (exclusive) of a span as (line, column) pairs.
fn span_lc(f: &SourceFile, s: Span) -> ((usize, usize), (usize, usize)) {
    (lc(f, s.start), lc(f, s.end))
}

#[test]
fn json_spans_are_exact() {
    let text = "{\n  \"naïve\": \"é\\n\",\n  \"list\": [1, -2.5e3, true, null],\n  \"h\": {}\n}\n";
    let (f, doc) = load_json(text);
    assert!(doc.issues.is_empty(), "{:?}", doc.issues);
    let root = doc.root.as_ref().unwrap();
    assert_eq!(span_lc(&f, root.span), ((1, 1), (5, 2)));
    let m = root.as_map().unwrap();
    let e = &m.entries[0];
    // Keys and strings are spanned with their quotes; columns count characters.
    assert_eq!(span_lc(&f, e.key.span), ((2, 3), (2, 10)));
    assert_eq!(f.slice(e.key.span), "\"naïve\"");
    assert_eq!(e.key.as_str(), Some("naïve"));
    assert_eq!(span_lc(&f, e.value.span), ((2, 12), (2, 17)));
    assert_eq!(e.value.as_str(), Some("é\n"));
    let list = m.get_value("list").unwrap();
    assert_eq!(span_lc(&f, list.span), ((3, 11), (3, 34)));
    let items = list.as_seq().unwrap();
    assert_eq!(f.slice(items[1].span), "-2.5e3");
    assert_eq!(span_lc(&f, items[1].span), ((3, 15), (3, 21)));
    assert_eq!(items[1].as_scalar().unwrap().value, Value::Float(-2500.0));
    assert_eq!(f.slice(items[3].span), "null");
    assert_eq!(items[3].as_scalar().unwrap().value, Value::Undef);
    let h = m.get_value("h").unwrap();
    assert_eq!(span_lc(&f, h.span), ((4, 8), (4, 10)));
    assert!(matches!(&h.kind, NodeKind::Map(m) if m.entries.is_empty()));
}

#[test]
fn json_comments_are_kept_with_spans() {
    let text = "// head\r\n{ /* a */ \"k\": 1, // tail\n  /* own\n line */ \"j\": 2 }\n";
    let (f, doc) = load_json(text);
    assert!(doc.issues.is_empty(), "{:?}", doc.issues);
    let got: Vec<_> = doc
        .comments
        .iter()
        .map(|c| (f.slice(c.span), lc(&f, c.span.start), c.own_line))
        .collect();
    assert_eq!(
        got,
        vec![
            ("// head", (1, 1), true),
            ("/* a */", (2, 3), false),
            ("// tail", (2, 19), false),
            ("/* own\n line */", (3, 3), true),
        ]
    );
}

#[test]
fn json_duplicate_keys_last_wins_and_are_reported_at_the_second() {
    let text = "{\"a\": 1,\n \"b\": 2,\n \"a\": 3}";
    let (f, doc) = load_json(text);
    assert_eq!(doc.issues.len(), 1);
    let issue = &doc.issues[0];
    assert_eq!(lc(&f, issue.span.start), (3, 2));
    assert_eq!(f.slice(issue.span), "\"a\"");
    let LoadIssueKind::DuplicateKey { first } = issue.kind else {
        panic!("{issue:?}")
    };
    assert_eq!(lc(&f, first.start), (1, 2));
    // Ruby's Hash#[]=: the value of the last, at the first key's position.
    let PuppetData::Value(v) = doc.puppet_data() else {
        panic!()
    };
    assert_eq!(v.ruby_inspect(), r#"{"a"=>3, "b"=>2}"#);
}

#[test]
fn json_duplicate_keys_in_large_objects() {
    let mut text = String::from("{");
    for i in 0..40 {
        text.push_str(&format!("\"k{i}\": {i}, "));
    }
    text.push_str("\"k7\": 0, \"k39\": 1, \"k7\": 2}");
    let (f, doc) = load_json(&text);
    let dups: Vec<_> = doc
        .issues
        .iter()
        .map(|i| match i.kind {
            LoadIssueKind::DuplicateKey { first } => (f.slice(i.span), f.slice(first), first.start),
            _ => panic!("{i:?}"),
        })
        .collect();
    let k7 = text.find("\"k7\"").unwrap() as u32;
    let k39 = text.find("\"k39\"").unwrap() as u32;
    assert_eq!(
        dups,
        vec![
            ("\"k7\"", "\"k7\"", k7),
            ("\"k39\"", "\"k39\"", k39),
            ("\"k7\"", "\"k7\"", k7)
        ]
    );
}

/// The issue's span is the real problem, while the message is Ruby's (which quotes from
/// elsewhere, see fixtures/json/cases.json).
#[test]
fn json_syntax_errors_point_at_the_problem() {
    let cases: &[(&str, (usize, usize), &str, &str)] = &[
        (
            "{\"a\": 1,\n}",
            (1, 8),
            ",",
            "859: unexpected token at '{\"a\": 1,\n}'",
        ),
        ("[1,\n 2,\n ]", (2, 3), ",", "451: unexpected token at ']'"),
        (
            "{\"a\": tru}",
            (1, 7),
            "tru",
            "859: unexpected token at '{\"a\": tru}'",
        ),
        (
            "{\n \"é\": 01}",
            (2, 7),
            "01",
            "859: unexpected token at '{\n \"é\": 01}'",
        ),
        ("[\"abc", (1, 2), "\"", "451: unexpected token at '\"abc'"),
        (
            "[\"a\tb\"]",
            (1, 4),
            "\t",
            "451: unexpected token at '\"a\tb\"]'",
        ),
        (
            "[\"\\u12\"]",
            (1, 3),
            "\\u12\"]",
            "451: unexpected token at '\"\\u12\"]'",
        ),
        (
            "{\"a\": NaN}",
            (1, 7),
            "NaN",
            "225: unexpected token at 'NaN}'",
        ),
        (
            "{\"a\": Infinity}",
            (1, 7),
            "Infinity",
            "232: unexpected token at ' Infinity}'",
        ),
        (
            "[1] // no newline",
            (1, 5),
            "// no newline",
            "859: unexpected token at ''",
        ),
        ("[1 /* open", (1, 4), "/*", "451: unexpected token at ''"),
        ("[1 / 2]", (1, 4), "/", "451: unexpected token at ' 2]'"),
        (
            "[\"\\ud83d\"]",
            (1, 3),
            "\\ud83d",
            "521: incomplete surrogate pair at '\\ud83d\"]'",
        ),
        ("{} x", (1, 4), "x", "859: unexpected token at 'x'"),
        ("", (1, 1), "", "859: unexpected token at ''"),
        ("  \n ", (2, 2), "", "859: unexpected token at ''"),
    ];
    for &(text, at, slice, message) in cases {
        let (f, doc) = load_json(text);
        let issue = doc
            .fatal_issue()
            .unwrap_or_else(|| panic!("{text:?}: no error"));
        assert_eq!(issue.kind, LoadIssueKind::Syntax, "{text:?}");
        assert_eq!(lc(&f, issue.span.start), at, "{text:?}");
        assert_eq!(f.slice(issue.span), slice, "{text:?}");
        assert_eq!(issue.message, message, "{text:?}");
        assert!(doc.root.is_none());
    }
}

#[test]
fn json_deep_nesting_is_limited_like_ruby() {
    // 100,000 nested arrays: Ruby's max_nesting (100) stops it at the 101st, and so do we,
    // without deep recursion.
    let text = "[".repeat(100_000);
    let (f, doc) = load_json(&text);
    let issue = doc.fatal_issue().unwrap();
    assert_eq!(issue.kind, LoadIssueKind::Limit);
    assert_eq!(issue.message, "nesting of 101 is too deep");
    assert_eq!(lc(&f, issue.span.start), (1, 101));
    let text = "{\"a\":".repeat(50_000) + &"[".repeat(50_000);
    let (_, doc) = load_json(&text);
    assert_eq!(
        doc.fatal_issue().unwrap().message,
        "nesting of 101 is too deep"
    );
    // 100 levels load.
    let text = "[".repeat(100) + &"]".repeat(100);
    let (_, doc) = load_json(&text);
    assert!(doc.issues.is_empty());
}

#[test]
fn json_bom_fails_like_puppet() {
    let f = SourceFile::from_bytes("t.json", b"\xEF\xBB\xBF{\"a\": 1}");
    let doc = loader::json::load(&f);
    // Recorded with the oracle: `Unable to parse (...): 859: unexpected token at '\u{feff}{...'`.
    assert_eq!(
        doc.puppet_data(),
        PuppetData::Error("859: unexpected token at '\u{FEFF}{\"a\": 1}'".into())
    );
    // The tree is still there for the other rules.
    assert!(doc.root.is_some());
}

#[test]
fn json_big_integers_are_flagged() {
    let (f, doc) = load_json("{\"big\": 123456789012345678901234567890}");
    assert_eq!(doc.issues.len(), 1);
    assert_eq!(doc.issues[0].kind, LoadIssueKind::Unsupported);
    assert_eq!(
        f.slice(doc.issues[0].span),
        "123456789012345678901234567890"
    );
    assert!(doc.fatal_issue().is_none());
}

#[test]
fn json_format_dispatch() {
    let f = SourceFile::new("x.json", "{\"a\": [1]}");
    let doc = loader::load(Format::Json, &f);
    assert_eq!(doc.format, Format::Json);
    let PuppetData::Value(v) = doc.puppet_data() else {
        panic!()
    };
    assert_eq!(v.ruby_inspect(), r#"{"a"=>[1]}"#);
    let _: Option<&Node> = doc.root.as_ref();
}
