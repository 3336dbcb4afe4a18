//! The `convert_to` lookup option (reference §3.4): Puppet's `new(Type, value, *args)` for the
//! data types hieralint can create — Array, Hash, String, Integer, Float, Numeric, Boolean,
//! Sensitive — with Puppet's messages. Other valid types (Timestamp, Deferred, user types...) give an
//! [`ErrorKind::Unsupported`] error naming the type; unknown names give Puppet's
//! `Creation of new instance of type 'TypeReference['X']' is not supported`.

use super::error::{ErrorKind, LookupError};
use crate::value::{ruby_float_to_s, Hash, Value};

/// A parsed type expression: a name and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeExpr {
    Type { name: String, args: Vec<TypeExpr> },
    Literal(Value),
}

impl TypeExpr {
    pub(crate) fn to_puppet_s(&self) -> String {
        match self {
            TypeExpr::Type { name, args } if args.is_empty() => name.clone(),
            TypeExpr::Type { name, args } => format!(
                "{name}[{}]",
                args.iter()
                    .map(|a| a.to_puppet_s())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            TypeExpr::Literal(v) => puppet_string(v),
        }
    }
}

/// Puppet's type names (`Puppet::Pops::Types`), for telling a type from a type reference.
const KNOWN_TYPES: &[&str] = &[
    "Any",
    "Array",
    "Binary",
    "Boolean",
    "Callable",
    "CatalogEntry",
    "Class",
    "Collection",
    "Data",
    "Default",
    "Deferred",
    "Enum",
    "Error",
    "Float",
    "Hash",
    "Init",
    "Integer",
    "Iterable",
    "Iterator",
    "NotUndef",
    "Numeric",
    "Object",
    "Optional",
    "Pattern",
    "Regexp",
    "Resource",
    "RichData",
    "Runtime",
    "Scalar",
    "ScalarData",
    "SemVer",
    "SemVerRange",
    "Sensitive",
    "String",
    "Struct",
    "Timespan",
    "Timestamp",
    "Tuple",
    "Type",
    "TypeSet",
    "Undef",
    "URI",
    "Variant",
];

struct P<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
}

fn syntax_end() -> String {
    "Syntax error at end of input".into()
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn expr(&mut self) -> Result<TypeExpr, String> {
        self.ws();
        let Some(&c) = self.s.get(self.i) else {
            return Err(syntax_end());
        };
        if c.is_ascii_uppercase() {
            let start = self.i;
            while self.i < self.s.len()
                && (self.s[self.i].is_ascii_alphanumeric()
                    || self.s[self.i] == b'_'
                    || (self.s[self.i] == b':' && self.s.get(self.i + 1) == Some(&b':')))
            {
                self.i += if self.s[self.i] == b':' { 2 } else { 1 };
            }
            let name = self.src[start..self.i].to_string();
            self.ws();
            let mut args = Vec::new();
            if self.s.get(self.i) == Some(&b'[') {
                self.i += 1;
                loop {
                    self.ws();
                    if self.s.get(self.i) == Some(&b']') {
                        self.i += 1;
                        break;
                    }
                    args.push(self.expr()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            break;
                        }
                        None => return Err(syntax_end()),
                        Some(_) => return Err(format!("Syntax error at '{}'", self.rest_token())),
                    }
                }
            }
            return Ok(TypeExpr::Type { name, args });
        }
        if c == b'\'' || c == b'"' {
            let q = c;
            self.i += 1;
            let start = self.i;
            while self.i < self.s.len() && self.s[self.i] != q {
                self.i += 1;
            }
            if self.i >= self.s.len() {
                return Err("Unclosed quote after \"'\" followed by '...'".into());
            }
            let v = self.src[start..self.i].to_string();
            self.i += 1;
            return Ok(TypeExpr::Literal(Value::string(v)));
        }
        if c.is_ascii_digit() || c == b'-' {
            let start = self.i;
            self.i += 1;
            while self.i < self.s.len()
                && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'.')
            {
                self.i += 1;
            }
            let t = &self.src[start..self.i];
            if let Ok(i) = t.parse::<i64>() {
                return Ok(TypeExpr::Literal(Value::Integer(i)));
            }
            if let Ok(f) = t.parse::<f64>() {
                return Ok(TypeExpr::Literal(Value::Float(f)));
            }
            return Err(format!("Syntax error at '{t}'"));
        }
        if c.is_ascii_lowercase() {
            let start = self.i;
            while self.i < self.s.len()
                && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
            {
                self.i += 1;
            }
            let w = &self.src[start..self.i];
            return Ok(TypeExpr::Literal(match w {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "undef" => Value::Undef,
                other => Value::string(other),
            }));
        }
        Err(format!("Syntax error at '{}'", self.rest_token()))
    }

    fn rest_token(&self) -> String {
        self.src[self.i..].chars().take(1).collect()
    }
}

/// Parses a type string as `TypeParser#parse` would, for the forms lookup options use.
pub fn parse_type(src: &str) -> Result<TypeExpr, String> {
    let mut p = P {
        s: src.as_bytes(),
        src,
        i: 0,
    };
    let e = p.expr()?;
    p.ws();
    if p.i < p.s.len() {
        return Err(format!("Syntax error at '{}'", p.rest_token()));
    }
    Ok(e)
}

/// Puppet's `StringConverter` default rendering (`String.new(v)`, `DEFAULT_STRING_FORMATS`):
/// a Float with `%f` (`1.500000`, `Inf`), undef as the empty string, a String as it is, and
/// inside an Array or a Hash every value with `%p` ([`puppet_inspect`]). Recorded:
/// fixtures/conformance/lopts/convert-to-string-rendering.
pub fn puppet_string(v: &Value) -> String {
    match v {
        Value::Undef => String::new(),
        Value::String(s) => s.to_string(),
        Value::Float(f) => ruby_format_f(*f),
        Value::Array(_) | Value::Hash(_) => puppet_inspect(v),
        other => other.to_ruby_s(),
    }
}

/// `Kernel.format('%f', f)`: six decimals, `Inf`, `-Inf`, `NaN`.
fn ruby_format_f(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Inf" } else { "-Inf" }.into()
    } else {
        format!("{f:.6}")
    }
}

/// A value inside a collection (`%p`): a String quoted as Puppet writes it, undef as `undef`,
/// a Float as Ruby's `inspect` (`1.5`, `1.0e+20`, `Infinity`).
fn puppet_inspect(v: &Value) -> String {
    match v {
        Value::Undef => "undef".into(),
        Value::String(s) => puppet_quote(s),
        Value::Float(f) => ruby_float_to_s(*f),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(puppet_inspect).collect::<Vec<_>>().join(", ")
        ),
        Value::Hash(h) => format!(
            "{{{}}}",
            h.iter()
                .map(|(k, v)| format!("{} => {}", puppet_inspect(k), puppet_inspect(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_ruby_s(),
    }
}

/// `StringConverter#puppet_quote`: single quotes, a `'` escaped and a backslash kept as it is
/// (doubled only when it ends the string); double quotes with escapes when the string holds a
/// control character (`puppet_double_quote`: `\t`, `\n`, `\r`, `\"`, `\$`, `\\`, `\u{1}`).
pub fn puppet_quote(s: &str) -> String {
    if s.chars().any(|c| (c as u32) < 0x20) {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '"' => out.push_str("\\\""),
                '$' => out.push_str("\\$"),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        return out;
    }
    let mut out = String::from("'");
    let mut escaped = false;
    for c in s.chars() {
        if escaped {
            out.push('\\');
            out.push(c);
            escaped = false;
        } else if c == '\'' {
            out.push_str("\\'");
        } else if c == '\\' {
            escaped = true;
        } else {
            out.push(c);
        }
    }
    if escaped {
        out.push('\\');
    }
    out.push('\'');
    out
}

/// The text explain prints for the convert_to arguments (`[Array, true]`).
pub fn args_string(args: &[Value]) -> String {
    let parts: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, a)| match (i, a) {
            (0, Value::String(s)) => match parse_type(s) {
                Ok(t) => t.to_puppet_s(),
                Err(_) => s.to_string(),
            },
            (_, Value::String(s)) => format!("'{s}'"),
            (_, other) => puppet_string(other),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

fn raised(key: &str, msg: &str) -> LookupError {
    LookupError::lookup(format!(
        "The convert_to lookup_option for key '{key}' raised error: {msg}"
    ))
}

/// The checks `convert_to` makes before it looks at the value: the type string parses, names a
/// type Puppet knows, and is given at all (recorded: lopts/convert-to `to_bad_type`,
/// `to_unknown_type`). Returns the type's name. `key` is the looked-up key, as Puppet's
/// messages name it.
pub fn check_convert_to(key: &str, args: &[Value]) -> Result<String, LookupError> {
    let ty = match args.first() {
        Some(Value::String(s)) => parse_type(s).map_err(|msg| {
            LookupError::lookup(format!(
                "Invalid data type in lookup_options for key '{key}' could not parse '{s}', error: '{msg}"
            ))
        })?,
        Some(other) => {
            return Err(raised(
                key,
                &format!(
                    "'new' expects a Type value, got {}",
                    super::types::short_name(other)
                ),
            ))
        }
        None => return Err(raised(key, "'new' expects at least 1 argument, got none")),
    };
    let TypeExpr::Type { name, .. } = &ty else {
        return Err(raised(key, "'new' expects a Type value"));
    };
    if !KNOWN_TYPES.contains(&name.as_str()) {
        return Err(raised(
            key,
            &format!(
                "Creation of new instance of type 'TypeReference['{}']' is not supported",
                ty.to_puppet_s()
            ),
        ));
    }
    Ok(name.clone())
}

/// Applies `convert_to` (`[Type, *args]`) to a found value: the base type's `new`, then, for a
/// parameterized type (`Array[String]`, `Integer[0, 5]`), Puppet's check of the result against
/// the whole type ([`super::assert_type`]; a type it does not judge keeps the value).
pub fn convert_to(key: &str, args: &[Value], value: &Value) -> Result<Value, LookupError> {
    let converted = convert_base(key, args, value)?;
    let Some(Ok(t)) = args.first().map(|a| match a {
        Value::String(s) => parse_type(s),
        _ => Err(String::new()),
    }) else {
        return Ok(converted);
    };
    let TypeExpr::Type { name, args: params } = &t else {
        return Ok(converted);
    };
    let judged = matches!(
        name.as_str(),
        "Array" | "Hash" | "String" | "Integer" | "Float" | "Numeric" | "Boolean"
    );
    // `Optional[T]` and `NotUndef[T]` are asserted whole, bare ones too (`NotUndef.new(undef)`
    // fails the check: recorded lopts/convert-to-optional `nu_bare_nil`).
    let wrapper = matches!(name.as_str(), "Optional" | "NotUndef");
    if !wrapper && (params.is_empty() || !judged) {
        return Ok(converted);
    }
    let subject = format!("Converted value from {}.new()", t.to_puppet_s());
    match super::assert_type::check(&subject, &t, &converted) {
        Some(Some(message)) => Err(raised(key, &message)),
        _ => Ok(converted),
    }
}

/// `new_hash`'s errors: raised in the function body (`from_array`, types.rb), not by an
/// argument-mismatch handler, so Puppet's message does not name the dispatcher (recorded:
/// lopts/convert-to-hash). The odd count is Ruby's `Hash[]` ArgumentError for an Iterable and
/// Puppet's own TypeConversionError for an Array, in the same words.
const ODD_FOR_HASH: &str = "odd number of arguments for Hash";

fn convert_base(key: &str, args: &[Value], value: &Value) -> Result<Value, LookupError> {
    let name = check_convert_to(key, args)?;
    let rest = &args[1..];
    // The name of the type's `new` function, which Puppet's message names (types.rb:
    // `create_loaded_function(:new_float, ...)`; Integer's is plain `new`).
    let dispatcher = match name.as_str() {
        "Float" => "new_float",
        "Numeric" => "new_numeric",
        "Boolean" => "new_boolean",
        "Array" => "new_array",
        "Hash" => "new_hash",
        "String" => "new_string",
        _ => "new",
    };
    let new_err = |m: String| raised(key, &format!("'{dispatcher}' {m}"));
    let unmodelled = |what: &str| {
        LookupError::new(
            ErrorKind::Unsupported,
            format!(
                "The convert_to lookup_option for key '{key}': hieralint does not model {what}"
            ),
        )
    };
    match name.as_str() {
        // `Optional[T]` and `NotUndef[T]` create with T's `new` (types.rb
        // `POptionalType#new_function`, `PNotUndefType#new_function`), after `new_instance`'s
        // shortcut: a lone value that is already an instance of the whole type is returned as it
        // is (functions/new.rb; recorded: lopts/convert-to-optional).
        "Optional" | "NotUndef" => {
            let inner = match args.first() {
                Some(Value::String(s)) => match parse_type(s) {
                    Ok(TypeExpr::Type { args: params, .. }) => params.into_iter().next(),
                    _ => None,
                },
                _ => None,
            };
            let optional = name == "Optional";
            if rest.is_empty() {
                let instance = match (&inner, value) {
                    (_, Value::Undef) => Some(optional),
                    (None, _) => Some(!optional),
                    (Some(t), v) => super::assert_type::check("", t, v).map(|m| m.is_none()),
                };
                if instance == Some(true) {
                    return Ok(value.clone());
                }
            }
            match inner {
                Some(t @ TypeExpr::Type { .. }) => {
                    let mut inner_args = vec![Value::string(t.to_puppet_s())];
                    inner_args.extend(rest.iter().cloned());
                    // T's `new` only: the check is against the whole type (`convert_to`).
                    convert_base(key, &inner_args, value)
                }
                // `NotUndef` alone converts with Unit's `new`, which returns the value.
                None if !optional => Ok(value.clone()),
                // `Optional` alone has no type to create with: Puppet fails with Ruby's
                // NoMethodError, as this Ruby (3.1, with error_highlight) words it.
                None => Err(raised(
                    key,
                    "undefined method `new_function' for nil:NilClass\n\n    \
                     optional_type.new_function\n                 ^^^^^^^^^^^^^",
                )),
                Some(_) => Err(unmodelled(&format!("{name} of a literal"))),
            }
        }
        "Array" => {
            let wrap = matches!(rest.first(), Some(Value::Bool(true)));
            Ok(match value {
                Value::Array(_) => value.clone(),
                _ if wrap => Value::array(vec![value.clone()]),
                Value::Hash(h) => Value::array(
                    h.iter()
                        .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
                        .collect(),
                ),
                Value::String(s) => Value::array(s.chars().map(|c| Value::string(c.to_string())).collect()),
                // An Integer is Iterable as its `times`: `Array.new(3)` is `[0, 1, 2]` (recorded:
                // difftest finding convert-to-new-variants). Bounded: a larger one is not modelled.
                Value::Integer(n) if (0..=100_000).contains(n) => {
                    Value::array((0..*n).map(Value::Integer).collect())
                }
                // A negative Integer is not Iterable: the argument-mismatch handler's message
                // (recorded: lopts/convert-to-new-variants `a_neg`).
                Value::Integer(n) if *n < 0 => {
                    return Err(new_err(
                        "Value of type Integer cannot be converted to Array".into(),
                    ))
                }
                Value::Integer(n) => return Err(unmodelled(&format!("Array.new({n})"))),
                other => {
                    return Err(new_err(format!(
                        "Value of type {} cannot be converted to Array",
                        super::types::generalized_name(other)
                    )))
                }
            })
        }
        "Hash" => match value {
            Value::Hash(_) => Ok(value.clone()),
            Value::Array(a) => {
                let mut h = Hash::default();
                if a.iter().all(|e| matches!(e, Value::Array(p) if p.len() == 2)) && !a.is_empty() {
                    for e in a.iter() {
                        if let Value::Array(p) = e {
                            h.insert(p[0].clone(), p[1].clone());
                        }
                    }
                } else if a.len() % 2 == 0 {
                    for pair in a.chunks(2) {
                        h.insert(pair[0].clone(), pair[1].clone());
                    }
                } else {
                    return Err(raised(key, ODD_FOR_HASH));
                }
                Ok(Value::hash(h))
            }
            // A String is Iterable as its characters, taken in pairs: `'abcd'` is
            // `{a => b, c => d}`, `''` is `{}` (recorded: difftest finding
            // convert-to-new-variants); an odd count fails (lopts/convert-to-hash).
            Value::String(s) if s.chars().count() % 2 == 0 => {
                let chars: Vec<char> = s.chars().collect();
                let mut h = Hash::default();
                for pair in chars.chunks(2) {
                    h.insert(
                        Value::string(pair[0].to_string()),
                        Value::string(pair[1].to_string()),
                    );
                }
                Ok(Value::hash(h))
            }
            Value::String(_) => Err(raised(key, ODD_FOR_HASH)),
            // A non-negative Integer is Iterable as its `times`: `Hash.new(4)` is `{0 => 1,
            // 2 => 3}`, an odd count fails as above, a negative one is not Iterable (recorded:
            // lopts/convert-to-hash). Bounded as Array's.
            Value::Integer(n) if (0..=100_000).contains(n) => {
                if n % 2 == 1 {
                    return Err(raised(key, ODD_FOR_HASH));
                }
                let mut h = Hash::default();
                for i in (0..*n).step_by(2) {
                    h.insert(Value::Integer(i), Value::Integer(i + 1));
                }
                Ok(Value::hash(h))
            }
            Value::Integer(n) if *n > 0 => Err(unmodelled(&format!("Hash.new({n})"))),
            other => Err(raised(
                key,
                &format!(
                    "Value of type {} cannot be converted to Hash",
                    super::types::generalized_name(other)
                ),
            )),
        },
        "String" => match rest.first() {
            None => Ok(Value::string(puppet_string(value))),
            // `String.new(value, format)` (recorded: lopts/convert-to-string-format).
            Some(Value::String(fmt)) => match super::format::string_new(value, fmt) {
                Ok(s) => Ok(Value::string(s)),
                Err(super::format::FormatError::Puppet(m)) => Err(raised(key, &m)),
                Err(super::format::FormatError::Unsupported(m)) => Err(LookupError::new(
                    ErrorKind::Unsupported,
                    format!("The convert_to lookup_option for key '{key}': {m}"),
                )),
            },
            Some(other) => Err(LookupError::new(
                ErrorKind::Unsupported,
                format!(
                    "The convert_to lookup_option for key '{key}': hieralint does not model \
                     String.new with the format {}",
                    puppet_string(other)
                ),
            )),
        },
        // `Sensitive.new(value)` wraps any value; a Sensitive stays as it is (recorded:
        // lopts/convert-to `to_sensitive`).
        "Sensitive" => Ok(match value {
            Value::Sensitive(_) => value.clone(),
            other => Value::Sensitive(std::sync::Arc::new(other.clone())),
        }),
        // `Integer.new(from, radix, abs)`, or one hash `{from => ..., radix => ..., abs => ...}`
        // (the `from_hash` dispatch; recorded: difftest finding convert-to-new-variants).
        "Integer" => {
            if let (Value::Hash(h), true) = (value, rest.is_empty()) {
                if let Some(e) = integer_hash_mismatch(key, h, &new_err, &unmodelled) {
                    return Err(e);
                }
            }
            if let Some(r) = rest.first() {
                if let Some(e) = illegal_radix(key, r) {
                    return Err(e);
                }
            }
            let (from, radix, abs) = match named_args(value, &["radix", "abs"]) {
                Some((from, h)) => (from, h.get(&Value::string("radix")), h.get(&Value::string("abs"))),
                None => (value, rest.first(), rest.get(1)),
            };
            let radix = radix.filter(|r| !matches!(r, Value::Undef));
            to_integer(from, radix)
                .map(|v| absolute(v, abs))
                .map_err(new_err)
        }
        "Float" => {
            let (from, abs) = match named_args(value, &["abs"]) {
                Some((from, h)) => (from, h.get(&Value::string("abs"))),
                None => (value, rest.first()),
            };
            to_float(from).map(|v| absolute(v, abs)).map_err(new_err)
        }
        "Numeric" => match value {
            Value::Integer(_) | Value::Float(_) => Ok(value.clone()),
            Value::Bool(b) => Ok(Value::Integer(*b as i64)),
            Value::String(s) => match to_integer(value, None) {
                Ok(v) => Ok(v),
                Err(_) => to_float(value).map_err(|_| {
                    new_err(format!("The string '{s}' cannot be converted to Numeric"))
                }),
            },
            other => Err(new_err(format!(
                "Value of type {} cannot be converted to Numeric",
                super::types::generalized_name(other)
            ))),
        },
        "Boolean" => match value {
            Value::Bool(_) => Ok(value.clone()),
            Value::Integer(i) => Ok(Value::Bool(*i != 0)),
            Value::Float(f) => Ok(Value::Bool(*f != 0.0)),
            Value::String(s) => match s.to_lowercase().as_str() {
                "true" | "yes" | "y" => Ok(Value::Bool(true)),
                // `Enum['false','true','yes','no','y','n', true]`: the empty string is refused
                // (recorded: difftest finding convert-to-new-variants).
                "false" | "no" | "n" => Ok(Value::Bool(false)),
                _ => Err(new_err(format!(
                    "The string '{s}' cannot be converted to Boolean"
                ))),
            },
            other => Err(new_err(format!(
                "Value of type {} cannot be converted to Boolean",
                super::types::generalized_name(other)
            ))),
        },
        // Enum has no `new` of its own: `PAnyType.new_function` refuses it (recorded:
        // lopts/convert-to-type-parameters `t_enum`). Its words are quoted as Puppet prints
        // the type.
        "Enum" => {
            let words: Option<Vec<String>> = match args.first() {
                Some(Value::String(s)) => match parse_type(s) {
                    Ok(TypeExpr::Type { args, .. }) => args
                        .iter()
                        .map(|a| match a {
                            TypeExpr::Literal(Value::String(w)) => Some(puppet_quote(w)),
                            _ => None,
                        })
                        .collect(),
                    _ => None,
                },
                _ => None,
            };
            match words {
                Some(w) => {
                    let shown = if w.is_empty() {
                        "Enum".to_string()
                    } else {
                        format!("Enum[{}]", w.join(", "))
                    };
                    Err(raised(
                        key,
                        &format!("Creation of new instance of type '{shown}' is not supported"),
                    ))
                }
                None => Err(unmodelled("Enum with these parameters")),
            }
        }
        other => Err(LookupError::new(
            ErrorKind::Unsupported,
            format!(
                "The convert_to lookup_option for key '{key}' uses {other}, which hieralint cannot create"
            ),
        )),
    }
}

/// `assert_radix` (types.rb): a radix other than 2, 8, 10, 16 or default is an ArgumentError
/// raised in the function body (no dispatcher named; recorded: lopts/convert-to-named-args
/// `p_badradix`, `i_badradix`). `None` for a radix it accepts, or one that is not an Integer
/// (left to the conversion as before).
fn illegal_radix(key: &str, radix: &Value) -> Option<LookupError> {
    match radix {
        Value::Integer(2 | 8 | 10 | 16) => None,
        Value::Integer(r) => Some(raised(
            key,
            &format!("Illegal radix: {r}, expected 2, 8, 10, 16, or default"),
        )),
        _ => None,
    }
}

/// `Integer.new` of one Hash that its `NamedArgs` dispatch (`Struct[{from => Convertible,
/// Optional[radix] => Radix, Optional[abs] => Boolean}]`) refuses: `on_error_hash` (types.rb)
/// converts `from` alone when it is not Convertible (the argument-mismatch message, with the
/// dispatcher), refuses an illegal radix, then asserts the hash against `NamedArgs`, whose
/// mismatch describer lists a missing `from` and each unrecognized key, or the size of an
/// empty hash (recorded: lopts/convert-to-named-args). `None` when the hash is a valid
/// `NamedArgs` (converted as before); a mismatch this does not model (a non-String key, an
/// `abs` that is not a Boolean, an undef radix) is an explicit unsupported error.
fn integer_hash_mismatch(
    key: &str,
    h: &Hash,
    new_err: &dyn Fn(String) -> LookupError,
    unmodelled: &dyn Fn(&str) -> LookupError,
) -> Option<LookupError> {
    let get = |k: &str| h.get(&Value::string(k));
    let from = get("from");
    if let Some(from) = from {
        // Convertible (`Variant[Numeric, Boolean, Pattern[INTEGER_PATTERN_LENIENT], ...]`):
        // what `to_integer` takes without a radix.
        if let Err(m) = to_integer(from, None) {
            return Some(new_err(m));
        }
    }
    match get("radix") {
        None => {}
        Some(Value::Undef) => return Some(unmodelled("Integer.new of a hash with an undef radix")),
        Some(r) => {
            if let Some(e) = illegal_radix(key, r) {
                return Some(e);
            }
            if !matches!(r, Value::Integer(_)) {
                return Some(unmodelled(
                    "Integer.new of a hash with a radix that is not an Integer",
                ));
            }
        }
    }
    if let Some(abs) = get("abs") {
        if !matches!(abs, Value::Bool(_)) {
            return Some(unmodelled(
                "Integer.new of a hash with an abs that is not a Boolean",
            ));
        }
    }
    let mut problems: Vec<String> = Vec::new();
    if h.is_empty() {
        problems.push("expects size to be between 1 and 3, got 0".into());
    } else {
        if !h
            .keys()
            .all(|k| matches!(k, Value::String(s) if !s.is_empty()))
        {
            return Some(unmodelled(
                "Integer.new of a hash with a key that is not a String",
            ));
        }
        if from.is_none() {
            problems.push("expects a value for key 'from'".into());
        }
        for k in h.keys().filter_map(|k| k.as_str()) {
            if !matches!(k, "from" | "radix" | "abs") {
                problems.push(format!("unrecognized key '{k}'"));
            }
        }
    }
    // The describer's lines: one alone, or each indented (the first by one space after the
    // lookup's "raised error: ").
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("Integer.new has wrong type, {p}"))
        .collect();
    match lines.as_slice() {
        [] => None,
        [one] => Some(raised(key, one)),
        many => Some(raised(key, &format!(" {}", many.join("\n  ")))),
    }
}

/// The `from` of a `NamedArgs` hash (`Struct[{from => ..., Optional[<optional>] => ...}]`):
/// a Hash with a `from` key and no keys but `optional`.
fn named_args<'v>(value: &'v Value, optional: &[&str]) -> Option<(&'v Value, &'v Hash)> {
    let Value::Hash(h) = value else {
        return None;
    };
    let from = h.get(&Value::string("from"))?;
    h.keys()
        .all(|k| matches!(k, Value::String(s) if &**s == "from" || optional.contains(&&**s)))
        .then_some((from, &**h))
}

/// `result.abs` when `abs` is `true`.
fn absolute(v: Value, abs: Option<&Value>) -> Value {
    match (v, abs) {
        (Value::Integer(i), Some(Value::Bool(true))) => Value::Integer(i.saturating_abs()),
        (Value::Float(f), Some(Value::Bool(true))) => Value::Float(f.abs()),
        (v, _) => v,
    }
}

/// `INTEGER_PATTERN_LENIENT`: `\A[+-]?\s*(?:\d+|0[xX][0-9A-Fa-f]+|0[bB][01]+)\z`, then Ruby's
/// `Integer()` (which reads a leading 0 as octal).
fn to_integer(value: &Value, radix: Option<&Value>) -> Result<Value, String> {
    match value {
        Value::Integer(_) => Ok(value.clone()),
        Value::Float(f) => Ok(Value::Integer(f.trunc() as i64)),
        Value::Bool(b) => Ok(Value::Integer(*b as i64)),
        Value::String(s) => {
            let fail = || format!("The string '{s}' cannot be converted to Integer");
            let t = s.trim_start();
            let (neg, body) = match t.as_bytes().first() {
                Some(b'-') => (true, t[1..].trim_start()),
                Some(b'+') => (false, t[1..].trim_start()),
                _ => (false, t),
            };
            let (digits, base) = if let Some(h) =
                body.strip_prefix("0x").or_else(|| body.strip_prefix("0X"))
            {
                (h, 16)
            } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
                (b, 2)
            } else if body.len() > 1 && body.starts_with('0') {
                (&body[1..], 8)
            } else {
                (body, 10)
            };
            let ok_digits = !digits.is_empty()
                && digits.chars().all(|c| c.is_digit(base.max(10)))
                && (base != 16 || digits.chars().all(|c| c.is_ascii_hexdigit()));
            if !ok_digits {
                return Err(fail());
            }
            if let Some(Value::Integer(r)) = radix {
                if *r as u32 != base && !(base == 8 && *r == 10) {
                    return Err(fail());
                }
            }
            let v = i64::from_str_radix(digits, base).map_err(|_| {
                format!(
                    "invalid value for Integer(): {}",
                    Value::string(s.as_ref()).ruby_inspect()
                )
            })?;
            Ok(Value::Integer(if neg { -v } else { v }))
        }
        other => Err(format!(
            "Value of type {} cannot be converted to Integer",
            super::types::generalized_name(other)
        )),
    }
}

fn to_float(value: &Value) -> Result<Value, String> {
    match value {
        Value::Float(_) => Ok(value.clone()),
        Value::Integer(i) => Ok(Value::Float(*i as f64)),
        Value::Bool(b) => Ok(Value::Float(if *b { 1.0 } else { 0.0 })),
        Value::String(s) => {
            let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
            match t.parse::<f64>() {
                Ok(f) if !t.contains(['i', 'I', 'n', 'N']) => Ok(Value::Float(f)),
                _ => match to_integer(value, None) {
                    Ok(Value::Integer(i)) => Ok(Value::Float(i as f64)),
                    _ => Err(format!("The string '{s}' cannot be converted to Float")),
                },
            }
        }
        other => Err(format!(
            "Value of type {} cannot be converted to Float",
            super::types::generalized_name(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::string(x)
    }

    #[test]
    fn recorded_conversions() {
        // Recorded: lopts/convert-to
        let h: Hash = [(s("a"), Value::Integer(1))].into_iter().collect();
        let h = Value::hash(h);
        assert_eq!(
            convert_to("k", &[s("Array")], &h).unwrap().ruby_inspect(),
            r#"[["a", 1]]"#
        );
        assert_eq!(
            convert_to("k", &[s("Array"), Value::Bool(true)], &h)
                .unwrap()
                .ruby_inspect(),
            r#"[{"a"=>1}]"#
        );
        assert_eq!(
            convert_to("k", &[s("Integer")], &s("42")).unwrap(),
            Value::Integer(42)
        );
        assert_eq!(
            convert_to("to_int_bad", &[s("Integer")], &s("bananas")).unwrap_err().message,
            "The convert_to lookup_option for key 'to_int_bad' raised error: 'new' The string 'bananas' cannot be converted to Integer"
        );
        assert_eq!(
            convert_to("k", &[s("Integer"), Value::Integer(16)], &s("ff")).unwrap_err().message,
            "The convert_to lookup_option for key 'k' raised error: 'new' The string 'ff' cannot be converted to Integer"
        );
        assert_eq!(
            convert_to("to_bad_type", &[s("Integer[")], &s("x")).unwrap_err().message,
            "Invalid data type in lookup_options for key 'to_bad_type' could not parse 'Integer[', error: 'Syntax error at end of input"
        );
        assert_eq!(
            convert_to("k", &[s("ComicSans")], &s("x")).unwrap_err().message,
            "The convert_to lookup_option for key 'k' raised error: Creation of new instance of type 'TypeReference['ComicSans']' is not supported"
        );
        assert_eq!(
            convert_to("k", &[s("String")], &Value::Integer(42)).unwrap(),
            s("42")
        );
        let arr = Value::array(vec![s("a"), Value::Integer(1), s("b"), Value::Integer(2)]);
        assert_eq!(
            convert_to("k", &[s("Hash")], &arr).unwrap().ruby_inspect(),
            r#"{"a"=>1, "b"=>2}"#
        );
        assert_eq!(
            convert_to("k", &[s("Array"), Value::Bool(true)], &Value::Undef)
                .unwrap()
                .ruby_inspect(),
            "[nil]"
        );
        assert_eq!(
            convert_to("k", &[s("Boolean")], &s("yes")).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            args_string(&[s("Array"), Value::Bool(true)]),
            "[Array, true]"
        );
    }
}
