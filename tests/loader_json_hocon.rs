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
        Value::BigInt(i) => json!({ "int": i.to_string() }),
        Value::Sensitive(_) => J::String("<sensitive>".into()),
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
                // Bignums included: they load exactly, with no issue.
                let unsupported = doc
                    .issues
                    .iter()
                    .filter(|i| i.kind == LoadIssueKind::Unmodelled)
                    .count();
                let invalid = expected.to_string().contains("invalid_str");
                let encoding = doc.issues.iter().any(|i| i.kind == LoadIssueKind::Encoding);
                tagged(v) == *expected && unsupported == 0 && invalid == encoding
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
fn json_big_integers_are_exact() {
    // Ruby's JSON gives a Bignum (fixtures/json/cases.json); so do we, with no issue.
    let (f, doc) = load_json("{\"big\": -123456789012345678901234567890}");
    assert!(doc.issues.is_empty(), "{:?}", doc.issues);
    let PuppetData::Value(v) = doc.puppet_data() else {
        panic!("a value")
    };
    let big = v.as_hash().unwrap().get(&Value::string("big")).unwrap();
    assert!(matches!(big, Value::BigInt(_)));
    assert_eq!(big.ruby_inspect(), "-123456789012345678901234567890");
    assert_eq!(big.to_json().to_string(), "-123456789012345678901234567890");
    let node = &doc.root.as_ref().unwrap().as_map().unwrap().entries[0].value;
    assert_eq!(f.slice(node.span), "-123456789012345678901234567890");
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

fn load_hocon(text: &str) -> (SourceFile, Document) {
    let f = SourceFile::from_bytes("t.conf", text.as_bytes());
    let d = loader::hocon::load(&f);
    (f, d)
}

/// Cases whose Ruby value came from the recording process's environment (`HIERALINT_TEST_ENV`
/// was set): hieralint answers as if the variable were unset (the required reference fails, the
/// optional one is left out) and says so with an Unmodelled issue.
const FROM_ENVIRONMENT: &[(&str, Option<&str>)] = &[
    (
        "environment variable substitution",
        Some("String: 1: Could not resolve substitution to a value: ${HIERALINT_TEST_ENV}"),
    ),
    ("optional environment variable", None),
];

fn count_issues(doc: &Document, kind: LoadIssueKind, text: &str) -> usize {
    doc.issues
        .iter()
        .filter(|i| i.kind == kind && i.message.contains(text))
        .count()
}

#[test]
fn hocon_matches_ruby_hocon() {
    let cases: Vec<J> = serde_json::from_str(include_str!("../fixtures/hocon/cases.json")).unwrap();
    assert!(cases.len() >= 150, "{}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        let (_, doc) = load_hocon(input);
        let got = doc.puppet_data();
        let env = count_issues(&doc, LoadIssueKind::Unmodelled, "environment variable");
        let ok = if let Some((_, error)) = FROM_ENVIRONMENT.iter().find(|(n, _)| *n == name) {
            let answer_ok = match error {
                Some(e) => got == PuppetData::Error(e.to_string()),
                None => matches!(&got, PuppetData::Value(v) if v.ruby_inspect() == "{}"),
            };
            answer_ok && env == 1
        } else if let Some(expected) = case.get("value") {
            matches!(&got, PuppetData::Value(v) if tagged(v) == *expected)
                && count_issues(&doc, LoadIssueKind::Unmodelled, "does not fit") == 0
                && count_issues(&doc, LoadIssueKind::Unmodelled, "include of")
                    == input.matches("include ").count()
        } else if let Some(expected) = case.get("error") {
            matches!(&got, PuppetData::Error(m) if m == expected.as_str().unwrap())
        } else {
            // A Ruby exception other than a ConfigError: Puppet shows its message (first line;
            // object addresses differ from run to run).
            let crash = case["crash"].as_str().unwrap();
            let message = crash.split_once(": ").unwrap().1.lines().next().unwrap();
            let message = match message.find(":0x") {
                Some(i) => format!("{}>", &message[..i]),
                None => message.to_string(),
            };
            matches!(&got, PuppetData::Error(m) if *m == message)
        };
        if !ok {
            failures.push(format!(
                "{name}: {input:?}\n  got {got:?} {:?}\n  ruby {case}",
                doc.issues
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} mismatches:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn hocon_spans_are_exact() {
    let text = "# head\na {\n  b.c = \"x\"   // tail\n  list = [1, two]\n}\n\"q.k\" = 3\n";
    let (f, doc) = load_hocon(text);
    assert!(doc.issues.is_empty(), "{:?}", doc.issues);
    let root = doc.root.as_ref().unwrap();
    let m = root.as_map().unwrap();
    let a = m.get("a").unwrap();
    assert_eq!(span_lc(&f, a.key.span), ((2, 1), (2, 2)));
    assert_eq!(span_lc(&f, a.value.span), ((2, 3), (5, 2)));
    let am = a.value.as_map().unwrap();
    let b = am.get("b").unwrap();
    assert_eq!(span_lc(&f, b.key.span), ((3, 3), (3, 4)));
    let c = b.value.as_map().unwrap().get("c").unwrap();
    assert_eq!(span_lc(&f, c.key.span), ((3, 5), (3, 6)));
    assert_eq!(f.slice(c.value.span), "\"x\"");
    assert_eq!(lc(&f, c.value.span.start), (3, 9));
    let list = am.get_value("list").unwrap().as_seq().unwrap();
    assert_eq!(f.slice(list[1].span), "two");
    assert_eq!(lc(&f, list[1].span.start), (4, 14));
    let q = m.get("q.k").unwrap();
    assert_eq!(f.slice(q.key.span), "\"q.k\"");
    assert_eq!(lc(&f, q.key.span.start), (6, 1));
    let comments: Vec<_> = doc
        .comments
        .iter()
        .map(|c| (f.slice(c.span), lc(&f, c.span.start), c.own_line))
        .collect();
    assert_eq!(
        comments,
        vec![("# head", (1, 1), true), ("// tail", (3, 15), false)]
    );
}

#[test]
fn hocon_substituted_values_keep_their_origin_span() {
    let (f, doc) = load_hocon("x = 1\ny = ${x}\nz = ${x} ${x}\n");
    let m = doc.root.as_ref().unwrap().as_map().unwrap();
    let y = m.get_value("y").unwrap();
    assert_eq!(lc(&f, y.span.start), (1, 5));
    let z = m.get_value("z").unwrap();
    assert_eq!(z.as_str(), Some("1 1"));
    assert_eq!(f.slice(z.span), "${x} ${x}");
}

#[test]
fn hocon_errors_are_positioned() {
    let cases: &[(&str, (usize, usize), &str)] = &[
        ("a = 1\nb = 2 }", (2, 7), "String: 2: unbalanced close brace '}' with no open brace (if you intended '}' to be part of a key or string value, try enclosing the key or value in double quotes"),
        // Recorded with ruby-hocon: the line of the end of file, after the last newline.
        ("a {\n  b = 1\n", (3, 1), "String: 3: expecting a close brace or a field name here, got end of file"),
        ("x = 1\ny = [\n  ${nope}\n]", (3, 3), "unexpected exception"),
        ("a = ${b}\nb = ${a}", (2, 5), "String: 2: Could not resolve substitution to a value: ${a} was part of a cycle of substitutions involving ${b}, ${a}, ${b}"),
        ("a = \"\\q\"", (1, 5), "undefined method `line_number' for \"q\":String"),
    ];
    for &(text, at, message) in cases {
        let (f, doc) = load_hocon(text);
        let issue = doc
            .fatal_issue()
            .unwrap_or_else(|| panic!("{text:?}: no error"));
        // ruby-hocon crashes on a bad escape: a Ruby error, reported bare by Puppet.
        let kind = if message.starts_with("undefined method") {
            LoadIssueKind::RubyError
        } else {
            LoadIssueKind::Syntax
        };
        assert_eq!(issue.kind, kind, "{text:?}");
        assert_eq!(lc(&f, issue.span.start), at, "{text:?}");
        assert_eq!(issue.message, message, "{text:?}");
        assert!(doc.root.is_none());
    }
}

#[test]
fn hocon_duplicate_keys_are_reported_where_a_value_is_lost() {
    let (f, doc) =
        load_hocon("a = 1\nb.c = x\na = 2\nb.c = y\nm {p = 1}\nm {q = 2}\nl = [1]\nl += 2\n");
    let dups: Vec<_> = doc
        .issues
        .iter()
        .map(|i| match i.kind {
            LoadIssueKind::DuplicateKey { first } => (lc(&f, i.span.start), lc(&f, first.start)),
            _ => panic!("{i:?}"),
        })
        .collect();
    // `a` and `b.c` lose a value; merged objects and `+=` do not.
    assert_eq!(dups, vec![((3, 1), (1, 1)), ((4, 3), (2, 3))]);
    let PuppetData::Value(v) = doc.puppet_data() else {
        panic!()
    };
    assert_eq!(
        v.ruby_inspect(),
        r#"{"a"=>2, "b"=>{"c"=>"y"}, "m"=>{"q"=>2, "p"=>1}, "l"=>[1, 2]}"#
    );
}

#[test]
fn hocon_empty_and_bom() {
    let (_, doc) = load_hocon("# only a comment\n");
    assert!(doc.root.is_none() && doc.issues.is_empty());
    assert_eq!(
        doc.puppet_data(),
        PuppetData::Value(Value::hash(Default::default()))
    );
    // Puppet keeps the BOM, so ruby-hocon reads it as part of the first key (recorded).
    let f = SourceFile::from_bytes("t.conf", b"\xEF\xBB\xBFa = 1\n");
    let doc = loader::hocon::load(&f);
    let m = doc.root.as_ref().unwrap().as_map().unwrap();
    assert_eq!(m.entries[0].key.as_str(), Some("\u{feff}a"));
    assert_eq!(m.entries[0].key.span, Span::new(0, 1));
    assert_eq!(f.slice(m.entries[0].value.span), "1");
}

#[test]
fn hocon_limits_hold_on_hostile_input() {
    for text in [
        "a = ".to_string() + &"[".repeat(100_000),
        "a = ".to_string() + &"{b = ".repeat(100_000),
        "a".to_string() + &".a".repeat(100_000) + " = 1",
        (0..5_000)
            .map(|i| format!("k{i} = ${{k{}}}\n", i + 1))
            .collect::<String>()
            + "k5000 = end",
        (0..50)
            .map(|i| {
                format!(
                    "k{i} = {} ${{k{}}} {}\n",
                    "{a = ".repeat(200),
                    i + 1,
                    "}".repeat(200)
                )
            })
            .collect::<String>()
            + "k50 = end",
    ] {
        let (_, doc) = load_hocon(&text);
        let issue = doc.fatal_issue().expect("a limit");
        assert_eq!(issue.kind, LoadIssueKind::Limit, "{}", &text[..40]);
    }
    // Many references to the same values stay fast (each path is resolved once).
    let text = "base { x = 1, y = [1, 2, 3] }\n".to_string()
        + &(0..20_000)
            .map(|i| format!("k{i} = ${{base}}\n"))
            .collect::<String>();
    let (_, doc) = load_hocon(&text);
    assert!(doc.issues.is_empty());
}

/// A small deterministic fuzz: no input may panic either loader.
#[test]
fn loaders_never_panic() {
    let alphabet: Vec<char> = "{}[]:=,\"\\/*#$?+-.0123456789eE \n\tab\u{e9}u"
        .chars()
        .collect();
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..30_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 24) as usize;
        let mut s = String::new();
        let mut x = seed;
        for _ in 0..len {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push(alphabet[(x >> 33) as usize % alphabet.len()]);
        }
        let _ = load_json(&s).1.puppet_data();
        let _ = load_hocon(&s).1.puppet_data();
    }
}
