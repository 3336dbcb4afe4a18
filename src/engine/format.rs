//! `String.new(value, format)` for `convert_to: [String, "<format>"]`: the part of Puppet's
//! `StringConverter` hieralint models exactly (recorded: fixtures/conformance/lopts/
//! convert-to-string-format). A format Puppet refuses for the value's type fails as Puppet
//! fails; a valid format hieralint does not model fails as unsupported, never with a guess.

use crate::value::Value;

/// Why a format could not be applied.
#[derive(Debug, PartialEq, Eq)]
pub enum FormatError {
    /// Puppet's own error (the text after `raised error: `).
    Puppet(String),
    /// A valid format hieralint does not model.
    Unsupported(String),
}

/// One `%[flags][width][.precision]<conversion>` directive, the whole format string.
struct Directive {
    alt: bool,
    plus: bool,
    space: bool,
    left: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    conv: char,
}

fn parse(fmt: &str) -> Option<Directive> {
    let mut it = fmt.strip_prefix('%')?.chars().peekable();
    let mut d = Directive {
        alt: false,
        plus: false,
        space: false,
        left: false,
        zero: false,
        width: 0,
        precision: None,
        conv: ' ',
    };
    while let Some(&c) = it.peek() {
        match c {
            '#' => d.alt = true,
            '+' => d.plus = true,
            ' ' => d.space = true,
            '-' => d.left = true,
            '0' => d.zero = true,
            _ => break,
        }
        it.next();
    }
    let digits = |it: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        let mut n: Option<usize> = None;
        while let Some(c) = it.peek().and_then(|c| c.to_digit(10)) {
            n = Some(n.unwrap_or(0).checked_mul(10)?.checked_add(c as usize)?);
            it.next();
        }
        Some(n)
    };
    d.width = digits(&mut it)?.unwrap_or(0);
    if it.peek() == Some(&'.') {
        it.next();
        d.precision = Some(digits(&mut it)?.unwrap_or(0));
    }
    d.conv = it.next().filter(char::is_ascii_alphabetic)?;
    // Widths past what a data value needs are not modelled (and bound the output).
    (it.next().is_none() && d.width <= 4096 && d.precision.is_none_or(|p| p <= 4096)).then_some(d)
}

/// The conversions `StringConverter` accepts per type, as its error message lists them.
fn allowed(v: &Value) -> Option<(&'static str, &'static str)> {
    Some(match v {
        Value::Integer(_) => ("Integer", "dxXobBeEfgGaAspc"),
        Value::Float(_) => ("Float", "dxXobBeEfgGaAsp"),
        Value::String(_) => ("String", "cCudspt"),
        Value::Array(_) => ("Array", "asp"),
        Value::Hash(_) => ("Hash", "hasp"),
        Value::Undef => ("Undef", "nudxXobBeEfgGaAvVsp"),
        _ => return None,
    })
}

/// `value` formatted by `fmt`.
pub fn string_new(value: &Value, fmt: &str) -> Result<String, FormatError> {
    let unsupported = || {
        FormatError::Unsupported(format!(
            "hieralint does not model String.new with the format '{fmt}' for {}",
            super::types::short_name(value)
        ))
    };
    let d = parse(fmt).ok_or_else(unsupported)?;
    if let Some((name, chars)) = allowed(value) {
        if !chars.contains(d.conv) {
            return Err(FormatError::Puppet(format!(
                "Illegal format '{}' specified for value of {name} type - expected one of the \
                 characters '{chars}'",
                d.conv
            )));
        }
    }
    // Ruby fills a negative two's complement with its all-ones digit under the `0` flag, and
    // counts a precision in it: not modelled.
    let negative = match value {
        Value::Integer(i) => *i < 0,
        Value::Float(f) => *f <= -1.0,
        _ => false,
    };
    if negative
        && "xXobB".contains(d.conv)
        && !d.plus
        && !d.space
        && ((d.zero && d.width > 0) || d.precision.is_some())
    {
        return Err(unsupported());
    }
    let body = match (value, d.conv) {
        // `string_PUndefType` (7.23's string_converter.rb): a word per conversion, `#` for
        // the alternative (recorded by the differential test: undef in `%x` is `NaN`).
        (Value::Undef, c) if d.precision.is_none() => match (c, d.alt) {
            ('n', false) => "nil".into(),
            ('n', true) => "null".into(),
            ('u', false) => "undef".into(),
            ('u', true) => "undefined".into(),
            ('v', _) => "n/a".into(),
            ('V', _) => "N/A".into(),
            ('s', false) => String::new(),
            ('s', true) => "\"\"".into(),
            ('p', false) => "undef".into(),
            ('p', true) => "\"undef\"".into(),
            _ => "NaN".into(),
        },
        (Value::Integer(i), 'd' | 'x' | 'X' | 'o' | 'b' | 'B') => integer(*i, &d),
        // A Float or a Boolean in an integer conversion is its Integer (`1.5` → `1`, `true`
        // → `1`; recorded: fx_float, fx_bool).
        (Value::Float(f), 'd' | 'x' | 'X' | 'o' | 'b' | 'B')
            if f.is_finite() && f.abs() < 9.0e18 =>
        {
            integer(f.trunc() as i64, &d)
        }
        (Value::Bool(b), 'd' | 'x' | 'X' | 'o' | 'b' | 'B') => integer(i64::from(*b), &d),
        (Value::Integer(i), 's' | 'p') if d.precision.is_none() => i.to_string(),
        (Value::Float(f), 'f') if f.is_finite() => {
            let s = format!("{:.*}", d.precision.unwrap_or(6), f.abs());
            signed(*f < 0.0, s, &d)
        }
        (Value::Integer(i), 'f') => {
            let s = format!("{:.*}", d.precision.unwrap_or(6), (*i as f64).abs());
            signed(*i < 0, s, &d)
        }
        (Value::String(s), 's') => match d.precision {
            Some(p) => s.chars().take(p).collect(),
            None => s.to_string(),
        },
        // `%p` quotes a String as Puppet writes it: single quotes when nothing needs escaping.
        (Value::String(s), 'p')
            if d.precision.is_none()
                && !s.chars().any(|c| c == '\'' || c == '\\' || c.is_control()) =>
        {
            format!("'{s}'")
        }
        // `%d` reads the String as an Integer first (recorded: fd_str).
        (Value::String(s), 'd') => match s.trim().parse::<i64>() {
            Ok(i) => integer(i, &d),
            Err(_) => return Err(unsupported()),
        },
        _ => return Err(unsupported()),
    };
    Ok(pad(body, &d))
}

/// `-` before a negative number, `+` or a space before another one (the flags).
fn sign(negative: bool, d: &Directive) -> &'static str {
    if negative {
        "-"
    } else if d.plus {
        "+"
    } else if d.space {
        " "
    } else {
        ""
    }
}

/// A number's digits after its sign, zero-padded to the width.
fn signed(negative: bool, digits: String, d: &Directive) -> String {
    zero_pad(sign(negative, d), "", digits, d)
}

/// Ruby's `Kernel#format` for an Integer: a negative number in `x`, `o` or `b` without `+` or
/// space is its two's complement after `..` (`-255` → `..f01`; recorded: fx_neg).
fn integer(i: i64, d: &Directive) -> String {
    let radix = match d.conv {
        'x' | 'X' => 16,
        'o' => 8,
        'b' | 'B' => 2,
        _ => 10,
    };
    let prefix = match (d.alt && i != 0, d.conv) {
        (true, 'x') => "0x",
        (true, 'X') => "0X",
        (true, 'b') => "0b",
        (true, 'B') => "0B",
        (true, 'o') => "0",
        _ => "",
    };
    let upper = d.conv == 'X';
    if i < 0 && radix != 10 && !d.plus && !d.space {
        // The two's complement digits (sign-extended to 120 bits, a whole number of binary,
        // octal and hex digits), with the run of leading all-ones digits cut to one.
        let digits = to_radix((i as i128 as u128) & ((1u128 << 120) - 1), radix, upper);
        let top = if upper { 'F' } else { radix_digit(radix - 1) };
        let trimmed = digits.trim_start_matches(top);
        let s = format!("..{top}{trimmed}");
        return format!("{prefix}{s}");
    }
    let digits = to_radix(u128::from(i.unsigned_abs()), radix, upper);
    let digits = match d.precision {
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    };
    let sign = sign(i < 0, d);
    if d.precision.is_some() {
        return format!("{sign}{prefix}{digits}");
    }
    zero_pad(sign, prefix, digits, d)
}

fn radix_digit(n: u32) -> char {
    std::char::from_digit(n, 16).unwrap_or('0')
}

fn to_radix(mut n: u128, radix: u32, upper: bool) -> String {
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(radix_digit((n % u128::from(radix)) as u32));
        n /= u128::from(radix);
    }
    let s: String = out.iter().rev().collect();
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

/// Zeros between the sign and the digits up to the width (the `0` flag, not with `-`).
fn zero_pad(sign: &str, prefix: &str, digits: String, d: &Directive) -> String {
    let len = sign.len() + prefix.len() + digits.chars().count();
    if d.zero && !d.left && d.width > len {
        format!("{sign}{prefix}{}{digits}", "0".repeat(d.width - len))
    } else {
        format!("{sign}{prefix}{digits}")
    }
}

/// Spaces up to the width: before the text, or after it with `-`.
fn pad(s: String, d: &Directive) -> String {
    let n = s.chars().count();
    if d.width <= n {
        return s;
    }
    let fill = " ".repeat(d.width - n);
    if d.left {
        s + &fill
    } else {
        fill + &s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Value, fmt: &str) -> String {
        string_new(&v, fmt).unwrap()
    }

    /// Ruby's `format` for these, checked with ruby 3.1 (`format('%x', -255)` → `..f01`).
    #[test]
    fn integers_format_as_ruby_formats_them() {
        assert_eq!(f(Value::Integer(255), "%x"), "ff");
        assert_eq!(f(Value::Integer(255), "%#x"), "0xff");
        assert_eq!(f(Value::Integer(255), "%X"), "FF");
        assert_eq!(f(Value::Integer(8), "%o"), "10");
        assert_eq!(f(Value::Integer(5), "%b"), "101");
        assert_eq!(f(Value::Integer(42), "%5d"), "   42");
        assert_eq!(f(Value::Integer(42), "%-5d"), "42   ");
        assert_eq!(f(Value::Integer(42), "%05d"), "00042");
        assert_eq!(f(Value::Integer(42), "%+d"), "+42");
        assert_eq!(f(Value::Integer(-255), "%x"), "..f01");
        assert_eq!(f(Value::Integer(-1), "%x"), "..f");
        assert_eq!(f(Value::Integer(-8), "%o"), "..70");
        assert_eq!(f(Value::Integer(-5), "%b"), "..1011");
        assert_eq!(f(Value::Integer(-255), "%+x"), "-ff");
        assert_eq!(f(Value::Integer(0), "%#x"), "0");
    }

    #[test]
    fn refused_and_unmodelled_formats_fail() {
        assert!(matches!(
            string_new(&Value::string("abc"), "%x"),
            Err(FormatError::Puppet(m)) if m == "Illegal format 'x' specified for value of String type - expected one of the characters 'cCudspt'"
        ));
        assert_eq!(f(Value::Undef, "%x"), "NaN");
        assert_eq!(f(Value::Undef, "%p"), "undef");
        assert_eq!(f(Value::Undef, "%5s"), "     ");
        assert!(matches!(
            string_new(&Value::Undef, "%q"),
            Err(FormatError::Puppet(m)) if m.ends_with("for value of Undef type - expected one of the characters 'nudxXobBeEfgGaAvVsp'")
        ));
        assert!(matches!(
            string_new(&Value::Float(1.5), "%e"),
            Err(FormatError::Unsupported(_))
        ));
        assert!(matches!(
            string_new(&Value::Integer(1), "x%d"),
            Err(FormatError::Unsupported(_))
        ));
    }
}
