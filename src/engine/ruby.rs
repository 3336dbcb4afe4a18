//! Ruby semantics the engine needs to be exact: `<=>` and `sort` (with Ruby's errors), `==`,
//! and regexes compiled with Ruby's syntax (cached).
//!
//! Puppet runs on Ruby, and several lookup results depend on Ruby's core library: deep merges
//! sort with `Array#sort!` (which raises `comparison of String with 2 failed` on mixed arrays,
//! reference §4.5), knockout prefixes and lookup_options patterns are Ruby regexes (§3.3), and
//! `Array#delete` compares with `==` (where `1 == 1.0`).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use onig::{Regex, RegexOptions, Syntax};

use super::error::{ErrorKind, LookupError};
use crate::value::{ruby_float_to_s, Value};

/// Ruby's class name of a value (`comparison of String with ...`).
pub fn class_name(v: &Value) -> &'static str {
    match v {
        Value::Undef => "NilClass",
        Value::Bool(true) => "TrueClass",
        Value::Bool(false) => "FalseClass",
        Value::Integer(_) => "Integer",
        Value::Float(_) => "Float",
        Value::String(_) => "String",
        Value::Symbol(_) => "Symbol",
        Value::Array(_) => "Array",
        Value::Hash(_) => "Hash",
    }
}

/// Ruby `==`: like `eql?` except that Integer and Float compare numerically (`1 == 1.0`), also
/// inside arrays and hash values.
pub fn ruby_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Integer(x), Value::Float(y)) | (Value::Float(y), Value::Integer(x)) => {
            (*x as f64) == *y
        }
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| ruby_eq(p, q)))
        }
        (Value::Hash(x), Value::Hash(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| ruby_eq(v, w))))
        }
        _ => a == b,
    }
}

/// Ruby `a <=> b` for Puppet data; `None` where Ruby returns nil (incomparable).
pub fn ruby_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => Some(x.cmp(y)),
        (Value::Integer(x), Value::Float(y)) => (*x as f64).partial_cmp(y),
        (Value::Float(x), Value::Integer(y)) => x.partial_cmp(&(*y as f64)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::String(x), Value::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::Symbol(x), Value::Symbol(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                match ruby_cmp(p, q)? {
                    Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        // Object#<=>: 0 when ==, else nil.
        _ => ruby_eq(a, b).then_some(Ordering::Equal),
    }
}

/// The text Ruby's `rb_cmperr` uses for the right operand: `inspect` for special constants and
/// floats, the class name otherwise.
fn cmperr_operand(v: &Value) -> String {
    match v {
        Value::Undef => "nil".into(),
        Value::Bool(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => ruby_float_to_s(*f),
        Value::Symbol(s) => format!(":{s}"),
        other => class_name(other).into(),
    }
}

/// The `ArgumentError` Ruby raises when `<=>` returns nil while sorting.
pub fn comparison_error(a: &Value, b: &Value) -> LookupError {
    LookupError::new(
        ErrorKind::Argument,
        format!(
            "comparison of {} with {} failed",
            class_name(a),
            cmperr_operand(b)
        ),
    )
}

/// Ruby `Array#sort!` as Debian's Ruby 3.1 does it: glibc's `qsort_r`, a top-down merge sort
/// (`msort_with_tmp`), comparing with `<=>`. The order of comparisons decides which pair a
/// failure names, so it is reproduced exactly (recorded: merge/deep-sort-merged-arrays,
/// `[a, 2, b, 1]` fails with `comparison of String with 2 failed`).
pub fn ruby_sort(v: &mut [Value]) -> Result<(), LookupError> {
    ruby_sort_by(v, |x| x)
}

/// [`ruby_sort`] over items that carry a value.
pub fn ruby_sort_by<T: Clone>(v: &mut [T], key: impl Fn(&T) -> &Value) -> Result<(), LookupError> {
    if v.len() <= 1 {
        return Ok(());
    }
    let mut tmp: Vec<T> = Vec::with_capacity(v.len());
    msort(v, &mut tmp, &key)
}

fn msort<T: Clone>(
    b: &mut [T],
    tmp: &mut Vec<T>,
    key: &impl Fn(&T) -> &Value,
) -> Result<(), LookupError> {
    let n = b.len();
    if n <= 1 {
        return Ok(());
    }
    let n1 = n / 2;
    {
        let (left, right) = b.split_at_mut(n1);
        msort(left, tmp, key)?;
        msort(right, tmp, key)?;
    }
    tmp.clear();
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        let (x, y) = (key(&b[i]), key(&b[j]));
        let ord = ruby_cmp(x, y).ok_or_else(|| comparison_error(x, y))?;
        if ord != Ordering::Greater {
            tmp.push(b[i].clone());
            i += 1;
        } else {
            tmp.push(b[j].clone());
            j += 1;
        }
    }
    // Left leftovers go after the merged part; right leftovers are already in place.
    while i < n1 {
        tmp.push(b[i].clone());
        i += 1;
    }
    for (k, v) in tmp.drain(..).enumerate() {
        b[k] = v;
    }
    Ok(())
}

/// Ruby `String#gsub(regex, "")`: every match removed (an empty match removes nothing and the
/// scan moves on by one character).
pub fn gsub_empty(re: &Regex, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    let mut last = 0;
    let mut region = onig::Region::new();
    while pos <= text.len() {
        region.clear();
        if re
            .search_with_options(
                text,
                pos,
                text.len(),
                onig::SearchOptions::SEARCH_OPTION_NONE,
                Some(&mut region),
            )
            .is_none()
        {
            break;
        }
        let Some((s, e)) = region.pos(0) else {
            break;
        };
        out.push_str(&text[last..s]);
        last = e;
        if e == s {
            // Empty match: keep the next character and move past it.
            match text[e..].chars().next() {
                Some(c) => {
                    out.push(c);
                    last = e + c.len_utf8();
                    pos = last;
                }
                None => break,
            }
        } else {
            pos = e;
        }
    }
    out.push_str(&text[last.min(text.len())..]);
    out
}

/// Onigmo (Ruby) semantics on Oniguruma: Ruby syntax, and `\w`, `\d`, `\s` ASCII-only as in
/// Ruby (POSIX brackets and `\p{}` stay Unicode).
fn ruby_options() -> RegexOptions {
    // ONIG_OPTION_WORD_IS_ASCII | ONIG_OPTION_DIGIT_IS_ASCII | ONIG_OPTION_SPACE_IS_ASCII
    // (oniguruma.h; the onig crate does not name them).
    RegexOptions::from_bits_retain(0x1_0000 | 0x2_0000 | 0x4_0000)
}

type RegexCache = Mutex<HashMap<String, Result<Arc<Regex>, String>>>;

static REGEXES: LazyLock<RegexCache> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// Compiles `source` as Ruby's `Regexp.compile(source)` would, once per distinct source.
/// The error is Ruby's `RegexpError` message: `<reason>: /<source>/`.
pub fn ruby_regex(source: &str) -> Result<Arc<Regex>, LookupError> {
    let mut cache = REGEXES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = cache.get(source) {
        return r
            .clone()
            .map_err(|m| LookupError::new(ErrorKind::Regexp, m));
    }
    let compiled = Regex::with_options(source, ruby_options(), Syntax::ruby())
        .map(Arc::new)
        .map_err(|e| format!("{}: /{}/", e.description(), source));
    // Bound the cache: patterns come from data and a pathological repository could hold many.
    if cache.len() > 4096 {
        cache.clear();
    }
    cache.insert(source.to_string(), compiled.clone());
    compiled.map_err(|m| LookupError::new(ErrorKind::Regexp, m))
}

/// `regex =~ text` (a search anywhere; `^` is a line anchor).
pub fn regex_search(re: &Regex, text: &str) -> bool {
    re.find(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::string(x)
    }

    #[test]
    fn sort_like_ruby() {
        let mut v = vec![s("c"), s("a"), s("b")];
        ruby_sort(&mut v).unwrap();
        let re = ruby_regex("^--").unwrap();
        assert_eq!(gsub_empty(&re, "--a\n--b--"), "a\nb--");
        assert_eq!(gsub_empty(&ruby_regex("^x*").unwrap(), "ab"), "ab");
        assert_eq!(v, vec![s("a"), s("b"), s("c")]);
        let mut v = vec![Value::Integer(10), Value::Float(2.5), Value::Integer(1)];
        ruby_sort(&mut v).unwrap();
        assert_eq!(
            v,
            vec![Value::Integer(1), Value::Float(2.5), Value::Integer(10)]
        );
    }

    #[test]
    fn sort_errors_name_the_pair_ruby_compares_first() {
        // Ruby 3.1: ["a",2,"b",1].sort → comparison of String with 2 failed
        let mut v = vec![s("a"), Value::Integer(2), s("b"), Value::Integer(1)];
        assert_eq!(
            ruby_sort(&mut v).unwrap_err().message,
            "comparison of String with 2 failed"
        );
        // [{}, 1] → comparison of Hash with 1 failed; [1, {}] → Integer with Hash
        let h = Value::hash(Default::default());
        let mut v = vec![h.clone(), Value::Integer(1)];
        assert_eq!(
            ruby_sort(&mut v).unwrap_err().message,
            "comparison of Hash with 1 failed"
        );
        let mut v = vec![Value::Integer(1), h];
        assert_eq!(
            ruby_sort(&mut v).unwrap_err().message,
            "comparison of Integer with Hash failed"
        );
        let mut v = vec![Value::Integer(1), Value::Undef];
        assert_eq!(
            ruby_sort(&mut v).unwrap_err().message,
            "comparison of Integer with nil failed"
        );
        let mut v = vec![s("x"), Value::Float(1.5)];
        assert_eq!(
            ruby_sort(&mut v).unwrap_err().message,
            "comparison of String with 1.5 failed"
        );
        let mut v = vec![Value::Bool(true), Value::Bool(false)];
        assert_eq!(
            ruby_sort(&mut v).unwrap_err().message,
            "comparison of TrueClass with false failed"
        );
    }

    #[test]
    fn msort_comparison_order_matches_glibc() {
        // Ruby printed these pairs for [3,1,2,5,4,0,9,7].sort { |a,b| ... }.
        let input = [3, 1, 2, 5, 4, 0, 9, 7];
        let mut v: Vec<Value> = input.iter().map(|&i| Value::Integer(i)).collect();
        ruby_sort(&mut v).unwrap();
        let sorted: Vec<i64> = v
            .iter()
            .map(|x| match x {
                Value::Integer(i) => *i,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(sorted, vec![0, 1, 2, 3, 4, 5, 7, 9]);
    }

    #[test]
    fn arrays_compare_elementwise() {
        let a = Value::array(vec![Value::Integer(1), Value::Integer(2)]);
        let b = Value::array(vec![Value::Integer(1)]);
        assert_eq!(ruby_cmp(&a, &b), Some(Ordering::Greater));
        let c = Value::array(vec![s("x")]);
        assert_eq!(ruby_cmp(&b, &c), None);
    }

    #[test]
    fn regex_errors_read_like_ruby() {
        assert_eq!(
            ruby_regex("^(").unwrap_err().message,
            "end pattern with unmatched parenthesis: /^(/"
        );
        let re = ruby_regex("^a\\w").unwrap();
        assert!(regex_search(&re, "x\nab"));
        assert!(!regex_search(&re, "aé"));
    }
}
