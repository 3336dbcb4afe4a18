//! The check `new` makes after creating a value for a parameterized type (`convert_to:
//! "Array[String]"`, `"Integer[0, 5]"`): Puppet creates the value with the base type's `new`
//! and then asserts the full type (`Converted value from Array[String].new() has wrong type,
//! index 0 expects a String value, got Float`). Recorded: difftest finding
//! convert-to-type-parameters and fixtures/conformance/lopts/convert-to-type-parameters.
//!
//! Only the types below are judged; for any other type expression the result is `None` (not
//! judged), and the caller keeps the value, as before this check existed.

use super::convert::TypeExpr;
use super::types::{self, Mismatch};
use crate::value::Value;

/// The TypeAsserter message for `v` against `t` (`subject has wrong type, ...`, every
/// mismatch, as [`types::render`] writes them): `Some(None)` when `v` matches, `None` when `t`
/// is not a type judged here.
pub fn check(subject: &str, t: &TypeExpr, v: &Value) -> Option<Option<String>> {
    let mut out = Vec::new();
    mismatches(t, v, "", &mut out)?;
    Some(types::render(subject, out))
}

/// Adds the mismatches of `v` against `t` at `path` to `out`; `None` when `t` is not judged.
fn mismatches(t: &TypeExpr, v: &Value, path: &str, out: &mut Vec<Mismatch>) -> Option<()> {
    let TypeExpr::Type { name, args } = t else {
        return None;
    };
    let mut ok = |b: bool, same_base: bool| {
        if !b {
            // An actual value of the expected base type shows its own range (`Integer[9,
            // 9]`); another type only its name (recorded: lopts/convert-to-type-parameters).
            let got = if same_base {
                types::infer_string(v)
            } else {
                types::short_name(v).to_string()
            };
            let expected = article(&t.to_puppet_s());
            out.push((
                path.to_string(),
                format!("expects {expected} value, got {got}"),
            ));
        }
        Some(())
    };
    match (name.as_str(), args.as_slice()) {
        ("Any", []) => Some(()),
        // `Optional[T]`: undef, or what T accepts; a mismatch of the value itself names
        // `Undef or T` (TypeMismatch#message), one inside it (an element, a size) T's own
        // (recorded: lopts/convert-to-optional `o_ir`, `o_as`).
        ("Optional", []) => Some(()),
        ("Optional", [inner]) => {
            if matches!(v, Value::Undef) {
                return Some(());
            }
            let mut own = Vec::new();
            mismatches(inner, v, path, &mut own)?;
            let shown = format!("expects {} value", article(&inner.to_puppet_s()));
            for (p, why) in own {
                let why = match why.strip_prefix(&shown) {
                    Some(got) if p == path => format!(
                        "expects a value of type Undef or {}{got}",
                        inner.to_puppet_s()
                    ),
                    _ => why,
                };
                out.push((p, why));
            }
            Some(())
        }
        // `NotUndef[T]` normalizes to T when T refuses undef (recorded: `nu_ir`); alone it
        // refuses undef only (`nu_bare_nil`).
        ("NotUndef", []) => ok(!matches!(v, Value::Undef), false),
        ("NotUndef", [inner]) => {
            if matches!(v, Value::Undef) {
                return ok(false, false);
            }
            mismatches(inner, v, path, out)
        }
        ("String", []) => ok(matches!(v, Value::String(_)), false),
        ("Integer", []) => ok(matches!(v, Value::Integer(_)), false),
        ("Float", []) => ok(matches!(v, Value::Float(_)), false),
        ("Numeric", []) => ok(matches!(v, Value::Integer(_) | Value::Float(_)), false),
        ("Boolean", []) => ok(matches!(v, Value::Bool(_)), false),
        ("Undef", []) => ok(matches!(v, Value::Undef), false),
        ("Integer", [lo, rest @ ..]) if rest.len() <= 1 => {
            let (lo, hi) = (bound(lo)?, rest.first().map_or(Some(None), bound)?);
            let is = matches!(v, Value::Integer(_));
            ok(
                matches!(v, Value::Integer(i)
                    if lo.is_none_or(|l| (*i as f64) >= l) && hi.is_none_or(|h| (*i as f64) <= h)),
                is,
            )
        }
        ("Float", [lo, rest @ ..]) if rest.len() <= 1 => {
            let (lo, hi) = (bound(lo)?, rest.first().map_or(Some(None), bound)?);
            let is = matches!(v, Value::Float(_));
            ok(
                matches!(v, Value::Float(f)
                    if lo.is_none_or(|l| *f >= l) && hi.is_none_or(|h| *f <= h)),
                is,
            )
        }
        ("Array", [elem, sizes @ ..])
            if sizes.len() <= 2 && matches!(elem, TypeExpr::Type { .. }) =>
        {
            let Value::Array(items) = v else {
                return ok(false, false);
            };
            let (min, max) = sizes_of(sizes)?;
            for (i, item) in items.iter().enumerate() {
                mismatches(
                    elem,
                    item,
                    &types::with_path(path, &format!("index {i}")),
                    out,
                )?;
            }
            if let Some(why) = size_mismatch(items.len(), min, max) {
                out.push((path.to_string(), why));
            }
            Some(())
        }
        ("Hash", [k, val, sizes @ ..]) if sizes.len() <= 2 => {
            let Value::Hash(h) = v else {
                return ok(false, false);
            };
            let (min, max) = sizes_of(sizes)?;
            for (key, value) in h.iter() {
                let shown = key.to_ruby_s();
                mismatches(
                    k,
                    key,
                    &types::with_path(path, &format!("key of entry '{shown}'")),
                    out,
                )?;
                mismatches(
                    val,
                    value,
                    &types::with_path(path, &format!("entry '{shown}'")),
                    out,
                )?;
            }
            if let Some(why) = size_mismatch(h.len(), min, max) {
                out.push((path.to_string(), why));
            }
            Some(())
        }
        _ => None,
    }
}

/// A range bound: a number, or `default` (none). Anything else is not judged here.
fn bound(t: &TypeExpr) -> Option<Option<f64>> {
    match t {
        TypeExpr::Literal(Value::Integer(i)) => Some(Some(*i as f64)),
        TypeExpr::Literal(Value::Float(f)) => Some(Some(*f)),
        // The parser reads the bare word `default` as a literal.
        TypeExpr::Literal(Value::String(s)) if &**s == "default" => Some(None),
        _ => None,
    }
}

fn sizes_of(sizes: &[TypeExpr]) -> Option<(Option<usize>, Option<usize>)> {
    let n = |t: &TypeExpr| match bound(t)? {
        None => Some(None),
        Some(f) if f >= 0.0 && f.fract() == 0.0 => Some(Some(f as usize)),
        Some(_) => None,
    };
    Some(match sizes {
        [] => (None, None),
        [min] => (n(min)?, None),
        [min, max] => (n(min)?, n(max)?),
        _ => return None,
    })
}

/// `TypeMismatchDescriber`'s size message.
fn size_mismatch(n: usize, min: Option<usize>, max: Option<usize>) -> Option<String> {
    let low = min.is_some_and(|m| n < m);
    let high = max.is_some_and(|m| n > m);
    if !low && !high {
        return None;
    }
    Some(match (min, max) {
        (Some(a), Some(b)) => format!("expects size to be between {a} and {b}, got {n}"),
        (Some(a), None) => format!("expects size to be at least {a}, got {n}"),
        (_, Some(b)) => format!("expects size to be at most {b}, got {n}"),
        (None, None) => unreachable!("checked above"),
    })
}

fn article(s: &str) -> String {
    let vowel = s.starts_with(['A', 'E', 'I', 'O', 'U']);
    format!("{} {s}", if vowel { "an" } else { "a" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::convert::parse_type;

    fn why(t: &str, v: Value) -> Option<Option<String>> {
        check("X", &parse_type(t).unwrap(), &v)
    }

    /// Puppet's texts from the difftest finding convert-to-type-parameters.
    #[test]
    fn describes_mismatches_as_puppet_does() {
        assert_eq!(
            why("Array[String]", Value::array(vec![Value::Float(1.5)])),
            Some(Some(
                "X has wrong type, index 0 expects a String value, got Float".into()
            ))
        );
        assert_eq!(
            why("Array[Integer, 2]", Value::array(vec![Value::Integer(1)])),
            Some(Some(
                "X has wrong type, expects size to be at least 2, got 1".into()
            ))
        );
        assert_eq!(
            why("Integer[0, 5]", Value::Integer(9)),
            Some(Some(
                "X has wrong type, expects an Integer[0, 5] value, got Integer[9, 9]".into()
            ))
        );
        assert_eq!(why("Integer[0, 5]", Value::Integer(5)), Some(None));
        assert_eq!(why("Integer[0, default]", Value::Integer(99)), Some(None));
        assert_eq!(why("Enum[a, b]", Value::string("a")), None);
        assert_eq!(
            why("Array[Enum[a]]", Value::array(vec![Value::string("a")])),
            None
        );
    }

    /// Puppet's texts from lopts/convert-to-optional: the value itself against `Undef or T`,
    /// what lies inside it against T's parts, NotUndef[T] as T.
    #[test]
    fn describes_optional_and_not_undef_as_puppet_does() {
        assert_eq!(
            why("Optional[Integer[0, 5]]", Value::Integer(9)),
            Some(Some(
                "X has wrong type, expects a value of type Undef or Integer[0, 5], got \
                 Integer[9, 9]"
                    .into()
            ))
        );
        assert_eq!(
            why(
                "Optional[Array[String]]",
                Value::array(vec![Value::Integer(1)])
            ),
            Some(Some(
                "X has wrong type, index 0 expects a String value, got Integer".into()
            ))
        );
        assert_eq!(
            why("Optional[Array[String, 2]]", Value::array(vec![])),
            Some(Some(
                "X has wrong type, expects size to be at least 2, got 0".into()
            ))
        );
        assert_eq!(why("Optional[Integer[0, 5]]", Value::Undef), Some(None));
        assert_eq!(
            why("NotUndef[Integer[0, 5]]", Value::Integer(9)),
            Some(Some(
                "X has wrong type, expects an Integer[0, 5] value, got Integer[9, 9]".into()
            ))
        );
        assert_eq!(
            why("NotUndef", Value::Undef),
            Some(Some(
                "X has wrong type, expects a NotUndef value, got Undef".into()
            ))
        );
        assert_eq!(why("NotUndef", Value::Integer(1)), Some(None));
        assert_eq!(why("Optional[Sensitive]", Value::string("s")), None);
    }
}
