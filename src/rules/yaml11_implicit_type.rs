//! H005 `yaml11-implicit-type`: a plain scalar whose YAML 1.1 type a reader would not expect.

use crate::diag::{Diagnostic, Fix};
use crate::loader::psych;
use crate::project::{LoadedFile, Project};
use crate::rules::{tree, Rule, RuleMeta, Sink};
use crate::value::{ruby_float_to_s, Resolution, Value};

crate::declare_rule!(pub static META = {
    code: "H005",
    name: "yaml11-implicit-type",
    category: Suspicious,
    summary: "an unquoted `on`, `no`, `0755`, `1:20`, `1_000`... that YAML 1.1 turns into a Boolean or a number (or `1e3`, which stays a string)",
});

pub struct Yaml11ImplicitType;

impl Rule for Yaml11ImplicitType {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_scalar_flags(&self) -> bool {
        true
    }

    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        check(file, sink);
    }

    fn check_hiera_config<'a>(
        &self,
        _project: &Project,
        file: &'a LoadedFile,
        sink: &mut Sink<'a>,
    ) {
        check(file, sink);
    }
}

/// What Psych makes of a plain scalar that a reader would read differently.
#[derive(Debug, PartialEq)]
enum Surprise {
    /// It gets a type: `what` says which (`the Boolean `true``), `canonical` is how to write
    /// that value plainly (`true`), if it can be written.
    Typed {
        what: String,
        canonical: Option<String>,
    },
    /// It looks like a number but stays a String.
    StaysString { why: &'static str },
}

/// Classifies a plain, untagged scalar from its text and what the loader resolved it to
/// (the rules are Psych's `ScalarScanner#tokenize`, recorded in fixtures/psych/scalars.json).
fn classify(
    text: &str,
    resolved: Option<Resolution>,
    value: &Value,
    is_key: bool,
) -> Option<Surprise> {
    let typed = |what: String, canonical: Option<String>| Some(Surprise::Typed { what, canonical });
    match (resolved, value) {
        // `yes`/`no`/`on`/`off` in any case (`y` and `n` stay strings in Psych). `true`/`false`
        // say what they are, except as keys.
        (Some(Resolution::Bool), Value::Bool(b)) => {
            let plain = text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false");
            (!plain || is_key).then(|| Surprise::Typed {
                what: format!("the Boolean `{b}`"),
                canonical: Some(b.to_string()),
            })
        }
        (Some(Resolution::Null), Value::Undef) => {
            let plain = text.is_empty() || text == "~" || text.eq_ignore_ascii_case("null");
            (!plain || is_key).then(|| Surprise::Typed {
                what: "null (no value)".to_string(),
                canonical: Some("null".to_string()),
            })
        }
        (Some(Resolution::IntRadixOrSeparators), Value::Integer(i)) => {
            typed(format!("the {} `{i}`", int_form(text)), Some(i.to_string()))
        }
        // An integer beyond 64 bits: the loader approximates it; no canonical form to offer.
        (Some(Resolution::IntRadixOrSeparators), _) => {
            typed(format!("the {}", int_form(text)), None)
        }
        (Some(Resolution::Sexagesimal), Value::Integer(i)) => {
            typed(format!("the base-60 Integer `{i}`"), Some(i.to_string()))
        }
        (Some(Resolution::Sexagesimal), Value::Float(f)) => typed(
            format!("the base-60 Float `{}`", ruby_float_to_s(*f)),
            Some(ruby_float_to_s(*f)),
        ),
        // Only floats with digit separators: `1_000.5` is 1000.5. Plain decimals are expected.
        (Some(Resolution::Float), Value::Float(f)) if text.contains(['_', ',']) => typed(
            format!("the Float `{}`", ruby_float_to_s(*f)),
            Some(ruby_float_to_s(*f)),
        ),
        // Both forms start with a digit, a dot or a sign: most strings are words.
        (None, Value::String(_))
            if !matches!(
                text.as_bytes().first(),
                Some(b'0'..=b'9' | b'.' | b'+' | b'-')
            ) =>
        {
            None
        }
        (None, Value::String(_)) => {
            if is_exponent_number(text) {
                Some(Surprise::StaysString {
                    why: "a YAML 1.1 float needs a dot and a signed exponent, as in `1.0e+3`",
                })
            } else if is_yaml12_octal(text) {
                Some(Surprise::StaysString {
                    why: "YAML 1.1 has no `0o` prefix: octal is written with a leading `0`",
                })
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether this rule reports the plain, untagged scalar `s` ([`tree::flags`]).
pub(crate) fn surprises(s: &crate::value::Scalar, is_key: bool) -> bool {
    classify(&s.text, s.resolved, &s.value, is_key).is_some()
}

/// `octal Integer`, `hexadecimal Integer`, ... for a scalar resolved by Psych's integer branch
/// with a radix prefix or digit separators.
fn int_form(text: &str) -> &'static str {
    let t = text.trim_start_matches(['-', '+']);
    if t.starts_with("0x") {
        "hexadecimal Integer"
    } else if t.starts_with("0b") {
        "binary Integer"
    } else if t.len() > 1 && t.starts_with('0') {
        "octal Integer"
    } else {
        "Integer"
    }
}

/// `1e3`, `-1E5`, `1.0e3`, `.5e-3`: what YAML 1.2 and JSON read as a float but Psych's float
/// pattern (`[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?`) does not match, so it stays a
/// String (recorded: `1e3`, `1E3`, `1e+3`, `1.0e3`, `0e0`, `1E5` in fixtures/psych/scalars.json).
fn is_exponent_number(t: &str) -> bool {
    let b = t.strip_prefix(['-', '+']).unwrap_or(t).as_bytes();
    let Some(e) = b.iter().position(|&c| c == b'e' || c == b'E') else {
        return false;
    };
    let (mant, exp) = (&b[..e], &b[e + 1..]);
    let exp = exp
        .strip_prefix(b"-")
        .or_else(|| exp.strip_prefix(b"+"))
        .unwrap_or(exp);
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let mant_ok = match mant.iter().position(|&c| c == b'.') {
        None => digits(mant),
        Some(d) => {
            let (int, frac) = (&mant[..d], &mant[d + 1..]);
            (digits(int) || int.is_empty())
                && (digits(frac) || frac.is_empty())
                && !(int.is_empty() && frac.is_empty())
        }
    };
    mant_ok && digits(exp)
}

/// `0o17`: YAML 1.2's octal, a String in YAML 1.1 (recorded: `0o17`, `0o755`).
fn is_yaml12_octal(t: &str) -> bool {
    let b = t.strip_prefix(['-', '+']).unwrap_or(t).as_bytes();
    b.strip_prefix(b"0o")
        .is_some_and(|d| !d.is_empty() && d.iter().all(|c| (b'0'..=b'7').contains(c)))
}

fn check<'a>(file: &'a LoadedFile, sink: &mut Sink<'a>) {
    let Some(root) = &file.doc.root else {
        return;
    };
    if !tree::flags(&file.doc).yaml11_surprise {
        return;
    }
    let src = &file.source;
    let module_data =
        file.module_name().is_some() && file.role != crate::project::FileRole::HieraConfig;
    for &at in sink.scalars(root).iter() {
        let s = at.scalar;
        if s.style != crate::value::ScalarStyle::Plain || at.node.tag().is_some() {
            continue;
        }
        let Some(surprise) = classify(&s.text, s.resolved, &s.value, at.is_key) else {
            continue;
        };
        let span = at.node.span;
        let written = src.slice(span);
        let shown = written.lines().next().unwrap_or("");
        let d = match surprise {
            Surprise::Typed { what, .. } if at.is_key => {
                let (message, note) = if at.top_level_key {
                    (
                        format!("key `{shown}` is read as {what}: Puppet cannot look it up by the name `{shown}`"),
                        "lookups use String keys: quote the key to make it one".to_string(),
                    )
                } else if matches!(s.value, Value::Integer(_) | Value::Float(_)) {
                    (
                        format!("key `{shown}` is read as {what}"),
                        "the hash holds a numeric key, not the text as written: quote the key to \
                         keep the text"
                            .to_string(),
                    )
                } else {
                    (
                        format!(
                            "key `{shown}` is read as {what}: Puppet rejects the hash that holds \
                             it"
                        ),
                        "a Boolean or null key is not valid Puppet data: looking up the \
                         enclosing key fails with `has wrong type, expects Puppet::LookupValue`; \
                         quote the key"
                            .to_string(),
                    )
                };
                let mut d = Diagnostic::new(&META, src, span, message).note(note);
                if at.top_level_key && module_data {
                    d = d.note(
                        "in module data, a top-level key that is not a String breaks every \
                         lookup of the module (`undefined method 'start_with?'`)",
                    );
                }
                d
            }
            Surprise::Typed { what, canonical } => {
                let mut d =
                    Diagnostic::new(&META, src, span, format!("`{shown}` is read as {what}"));
                let keep = tree::single_line_plain(src, &at).map(tree::quote);
                match (&keep, &canonical) {
                    (Some(q), Some(c)) => {
                        d = d.note(format!(
                        "quote it to keep the text ({q}), or write `{c}` to say what Puppet sees"
                    ))
                    }
                    (Some(q), None) => d = d.note(format!("quote it to keep the text: {q}")),
                    _ => {}
                }
                // The fix writes the value Puppet already gets, so nothing changes at lookup
                // time; it is offered only when the canonical form resolves to that same value.
                if let Some(c) = canonical.filter(|c| same_value(c, &s.value)) {
                    d = d.with_fix(Fix {
                        span,
                        replacement: c.clone(),
                        title: format!("write `{c}`, the value Puppet reads"),
                    });
                }
                d
            }
            Surprise::StaysString { why } => {
                let what = if at.is_key { "key " } else { "" };
                let mut d = Diagnostic::new(
                    &META,
                    src,
                    span,
                    format!("{what}`{shown}` stays the String `{shown}`, not a number"),
                )
                .note(why);
                if let Some(q) = tree::single_line_plain(src, &at).map(tree::quote) {
                    if !at.is_key {
                        d = d
                            .note(format!("quote it if the text is meant ({q}); write the number in YAML 1.1 form otherwise"))
                            .with_fix(Fix {
                                span,
                                replacement: q,
                                title: "quote the string".into(),
                            });
                    }
                }
                d
            }
        };
        sink.report(d);
    }
}

/// Whether the plain scalar `text` resolves to exactly `value` (Ruby `eql?`; NaN never equal).
fn same_value(text: &str, value: &Value) -> bool {
    let r = psych::tokenize(&std::sync::Arc::from(text));
    r.error.is_none() && &r.value == value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surprise(text: &str) -> Option<Surprise> {
        let r = psych::tokenize(&std::sync::Arc::from(text));
        classify(text, r.resolution, &r.value, false)
    }

    fn typed(text: &str) -> Option<(String, Option<String>)> {
        match surprise(text) {
            Some(Surprise::Typed { what, canonical }) => Some((what, canonical)),
            _ => None,
        }
    }

    #[test]
    fn flags_what_yaml_11_types_unexpectedly() {
        let t = |s: &str| typed(s).unwrap();
        assert_eq!(t("on"), ("the Boolean `true`".into(), Some("true".into())));
        assert_eq!(
            t("OFF"),
            ("the Boolean `false`".into(), Some("false".into()))
        );
        assert_eq!(t("Yes").0, "the Boolean `true`");
        assert_eq!(
            t("0755"),
            ("the octal Integer `493`".into(), Some("493".into()))
        );
        assert_eq!(t("-017").0, "the octal Integer `-15`");
        assert_eq!(
            t("0x1F"),
            ("the hexadecimal Integer `31`".into(), Some("31".into()))
        );
        assert_eq!(t("0b101").0, "the binary Integer `5`");
        assert_eq!(t("1_000").0, "the Integer `1000`");
        assert_eq!(t("1,000").0, "the Integer `1000`");
        assert_eq!(
            t("1:20"),
            ("the base-60 Integer `4800`".into(), Some("4800".into()))
        );
        assert_eq!(t("1:20.5").0, "the base-60 Float `4830.0`");
        assert_eq!(t("1_000.5").0, "the Float `1000.5`");
        // beyond 64 bits: reported, but the loader approximates it, so no canonical form
        assert_eq!(
            typed("0xfffffffffffffffff"),
            Some(("the hexadecimal Integer".to_string(), None))
        );
        // a plain decimal, even a big one, is what it says
        assert_eq!(typed("99999999999999999999"), None);
    }

    #[test]
    fn leaves_plain_forms_alone() {
        for s in [
            "true",
            "False",
            "null",
            "~",
            "",
            "12",
            "-3",
            "0",
            "1.5",
            ".5",
            "1.0e+3",
            "y",
            "n",
            "yes!",
            "1.2.3",
            "10.0.0.1",
            "0.10",
            "web01",
            "2001-12-14x",
            ":sym",
        ] {
            assert_eq!(surprise(s), None, "{s}");
        }
    }

    #[test]
    fn flags_numbers_that_stay_strings() {
        for s in [
            "1e3", "1E3", "1e+3", "-1e-3", "1.0e3", "1.e5", ".5e3", "0e0", "0o17", "-0o755",
        ] {
            assert!(
                matches!(surprise(s), Some(Surprise::StaysString { .. })),
                "{s}"
            );
        }
        for s in ["1e", "e3", "1.0e+", "0o", "0o8", "abc1e3", "1e3x"] {
            assert_eq!(surprise(s), None, "{s}");
        }
    }

    #[test]
    fn keys_are_flagged_even_when_spelled_true_or_null() {
        let r = psych::tokenize(&std::sync::Arc::from("true"));
        assert!(classify("true", r.resolution, &r.value, true).is_some());
        let r = psych::tokenize(&std::sync::Arc::from("~"));
        assert!(classify("~", r.resolution, &r.value, true).is_some());
    }

    #[test]
    fn canonical_forms_read_back_as_the_same_value() {
        for s in [
            "on", "no", "0755", "0x1F", "1:20", "1:20.5", "1_000.5", "1,000",
        ] {
            let r = psych::tokenize(&std::sync::Arc::from(s));
            let Some((_, Some(c))) = typed(s) else {
                panic!("{s}")
            };
            assert!(same_value(&c, &r.value), "{s} -> {c}");
        }
    }
}
