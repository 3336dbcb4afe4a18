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
