//! H201 `interpolation-syntax-error`: `%{...}` tokens Puppet rejects or does not read as written.

use crate::config::ConfigErrorKind;
use crate::diag::{Diagnostic, Severity};
use crate::interp::{split_key, Method, Token, TokenKind};
use crate::project::{LoadedFile, Project};
use crate::rules::interp_sites::{config_sites, undefined_effect, Place, Site};
use crate::rules::invalid_hiera_config::config_diagnostic;
use crate::rules::{Rule, RuleMeta, Sink};

crate::declare_rule!(pub static META = {
    code: "H201",
    name: "interpolation-syntax-error",
    category: Correctness,
    summary: "an unterminated, nested, badly quoted or malformed `%{...}` token",
});

pub struct InterpolationSyntaxError;

/// What is wrong with a token.
enum Problem {
    /// `split_key` rejects the variable expression: `Syntax error in string: <string>`.
    BadExpression { help: String },
    /// A `lookup`/`hiera`/`alias` key `split_key` rejects: `Syntax error in key: '<key>'`.
    BadLookupKey,
    /// A `scope('...')` argument `split_key` rejects: `Syntax error in string: <string>`.
    BadScopeKey,
    /// Looks like a method call but is read as a variable with that odd name.
    MethodReadAsVariable { suggestion: Option<String> },
    /// `%{a %{b}`: the first `}` closes the outer token.
    Nested,
}

/// `name(...)` with an optional space before the parenthesis: text meant as a method call.
fn method_like(expr: &str) -> Option<(&str, &str)> {
    let open = expr.find('(')?;
    let name = expr[..open].trim_end();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let rest = &expr[open + 1..];
    let close = rest.rfind(')')?;
    Some((name, &rest[..close]))
}

/// The argument without spaces and with quotes, when that is a valid method call.
fn quoted_suggestion(name: &str, inner: &str) -> Option<String> {
    let arg = inner.trim();
    let bare = arg
        .strip_prefix('\'')
        .and_then(|a| a.strip_suffix('\''))
        .or_else(|| arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')))
        .unwrap_or(arg);
    if bare.is_empty() || bare.contains(['\'', ',', '(', ')']) || bare.contains(char::is_whitespace)
    {
        return None;
    }
    Some(format!("%{{{name}('{bare}')}}"))
}

/// Why `split_key` refuses an expression, as advice.
fn expression_help(expr: &str) -> String {
    if let Some((name, inner)) = method_like(expr) {
        if expr.trim_end().ends_with(')') {
            if inner.contains(',') {
                return "an interpolation method takes exactly one quoted argument".into();
            }
            if inner.trim().is_empty() || inner == "''" || inner == "\"\"" {
                return "the method's argument must not be empty".into();
            }
            if let Some(s) = quoted_suggestion(name, inner) {
                return format!(
                    "method syntax allows no spaces inside the parentheses: write `{s}`"
                );
            }
        } else if let Some(after) = expr.rfind(')').map(|i| &expr[i + 1..]) {
            if after.trim_start().starts_with('.') {
                return "put the sub-key inside the quotes: `%{lookup('key.sub')}`".into();
            }
        }
        return "method syntax is `%{name('argument')}`: one argument in matching quotes, no spaces"
            .into();
    }
    if expr.starts_with('(') {
        return "the method name is missing".into();
    }
    let singles = expr.matches('\'').count();
    let doubles = expr.matches('"').count();
    if singles % 2 == 1 || doubles % 2 == 1 {
        return "quotes must be matched: `'…'` or `\"…\"`".into();
    }
    if expr.contains("..")
        || expr.starts_with('.')
        || expr.ends_with('.')
        || expr.contains("''")
        || expr.contains("\"\"")
    {
        return "a dotted expression has an empty segment".into();
    }
    "quote a segment of a dotted expression entirely or not at all".into()
}

fn problem(t: &Token) -> Option<Problem> {
    match &t.kind {
        TokenKind::Variable => {
            let ok = split_key(&t.expr).is_ok();
            if !ok {
                let mut help = expression_help(&t.expr);
                if t.expr.contains("%{") {
                    help = format!("interpolation tokens do not nest; {help}");
                }
                return Some(Problem::BadExpression { help });
            }
            if t.expr.contains("%{") {
                return Some(Problem::Nested);
            }
            let (name, inner) = method_like(&t.expr)?;
            Some(Problem::MethodReadAsVariable {
                suggestion: quoted_suggestion(name, inner),
            })
        }
        TokenKind::Method {
            method: Method::Lookup | Method::Hiera | Method::Alias,
            arg,
            ..
        } => split_key(arg).is_err().then_some(Problem::BadLookupKey),
        TokenKind::Method {
            method: Method::Scope,
            arg,
            ..
        } => split_key(arg).is_err().then_some(Problem::BadScopeKey),
        _ => None,
    }
}

/// The diagnostic for a token problem (Puppet's messages quote the whole string).
fn report(file: &LoadedFile, site: &Site, t: &Token, p: Problem) -> Diagnostic {
    let in_config = site.place() != Place::Data;
    let text = &site.value[t.range.clone()];
    let span = site.span_of(&file.source, t.range.clone());
    let string = site.value.as_ref();
    let impact = if in_config {
        "every lookup that reaches this layer fails"
    } else {
        "every lookup of this key fails"
    };
    match p {
        Problem::BadExpression { help } => {
            Diagnostic::new(&META, &file.source, span, format!("`{text}` is not a valid interpolation expression"))
                .note(impact)
                .note(format!("Puppet says: Syntax error in string: {string}"))
                .note(format!("help: {help}"))
        }
        Problem::BadLookupKey => {
            let key = t.lookup_key().unwrap_or_default();
            Diagnostic::new(&META, &file.source, span, format!("`{key}` is not a valid lookup key"))
                .note(impact)
                .note(format!("Puppet says: Syntax error in key: '{key}'"))
                .note("help: a dotted key has segments separated by single dots; quote a segment that holds dots, entirely")
        }
        Problem::BadScopeKey => {
            let key = match &t.kind {
                TokenKind::Method { arg, .. } => arg.as_str(),
                _ => "",
            };
            Diagnostic::new(&META, &file.source, span, format!("`{key}` is not a valid variable expression"))
                .note(impact)
                .note(format!("Puppet says: Syntax error in string: {string}"))
        }
        Problem::MethodReadAsVariable { suggestion } => {
            let d = Diagnostic::new(
                &META,
                &file.source,
                span,
                format!("`{text}` is read as the variable `{}`, not as a method call", t.expr),
            )
            .note(format!(
                "no variable has that name: {}",
                undefined_effect(&t.expr, site.place())
            ));
            match (suggestion, in_config) {
                (_, true) => d.note("help: hiera.yaml allows no methods, only variables such as `%{facts.x}` and `%{trusted.x}`"),
                (Some(s), false) => d.note(format!("help: quote the argument: `{s}`")),
                (None, false) => d.note("help: method syntax is `%{name('argument')}`: one argument in matching quotes"),
            }
        }
        Problem::Nested => Diagnostic::new(
            &META,
            &file.source,
            span,
            format!("interpolation tokens do not nest: `{text}` ends at the first `}}`"),
        )
        .note(format!(
            "Puppet reads the variable `{}` and keeps the text after the first `}}` literally; {}",
            t.expr,
            undefined_effect(&t.expr, site.place())
        ))
        .note("help: a token cannot build a variable name from another token; interpolate each variable in a token of its own"),
    }
}

/// An unterminated `%{`: Puppet keeps it literally; only a warning.
fn unterminated(file: &LoadedFile, site: &Site, at: usize) -> Diagnostic {
    let span = site.span_of(&file.source, at..site.value.len());
    let text = &site.value[at..];
    Diagnostic::new(
        &META,
        &file.source,
        span,
        format!("`{text}` is never closed: Puppet keeps it as literal text"),
    )
    .with_severity(Severity::Warning)
    .note("Puppet interpolates only complete `%{...}` tokens; an unterminated one is not an error")
    .note("help: add the closing `}`, or write `%{literal('%')}{` for a literal `%{`")
}

impl Rule for InterpolationSyntaxError {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn reads_interpolations(&self) -> bool {
        true
    }

    fn check_data_file<'a>(&self, _project: &Project, file: &'a LoadedFile, sink: &mut Sink<'a>) {
        for site in sink.data_sites(file).iter() {
            if site.copied {
                continue;
            }
            let tokens = site.tokens();
            for t in tokens {
                if let Some(p) = problem(t) {
                    sink.report(report(file, site, t, p));
                }
            }
            if let Some(at) = site.unterminated(tokens) {
                sink.report(unterminated(file, site, at));
            }
        }
    }

    fn check_hiera_config(&self, _project: &Project, file: &LoadedFile, sink: &mut Sink) {
        // Expressions `split_key` rejects are configuration errors (the layer fails when its
        // providers are created); the model reports them with Puppet's text.
        for e in &file.hiera_config().1 {
            if e.kind == ConfigErrorKind::InterpolationSyntax {
                sink.report(config_diagnostic(&META, file, e));
            }
        }
        // What the model does not report: tokens Puppet reads differently from what they
        // say. Methods are forbidden in hiera.yaml (H102), so only variables are looked at.
        for site in config_sites(file) {
            if site.role == Some(crate::config::StringRole::MappedPathsScope) {
                continue;
            }
            let tokens = site.tokens();
            for t in tokens {
                let p = match problem(t) {
                    Some(p @ (Problem::MethodReadAsVariable { .. } | Problem::Nested)) => p,
                    _ => continue,
                };
                sink.report(report(file, &site, t, p));
            }
            if let Some(at) = site.unterminated(tokens) {
                sink.report(unterminated(file, &site, at));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::tokens;

    fn kind(s: &str) -> Option<&'static str> {
        let t = tokens(s).into_iter().next()?;
        problem(&t).map(|p| match p {
            Problem::BadExpression { .. } => "expression",
            Problem::BadLookupKey => "lookup-key",
            Problem::BadScopeKey => "scope-key",
            Problem::MethodReadAsVariable { .. } => "method-as-variable",
            Problem::Nested => "nested",
        })
    }

    #[test]
    fn classifies_like_puppet() {
        // Recorded: interp/syntax-errors and interp/lint-evidence.
        for s in [
            "%{lookup( 'a' )}",
            "%{literal('')}",
            "%{lookup('a').x}",
            "%{'the.key\"}",
            "%{a..b}",
            "%{a.}",
            "%{.a}",
            "%{facts.''}",
            "%{'pa'key}",
            "%{lookup('a', 'b')}",
            "%{('a')}",
        ] {
            assert_eq!(kind(s), Some("expression"), "{s}");
        }
        assert_eq!(kind("%{lookup('a..b')}"), Some("lookup-key"));
        assert_eq!(kind("%{alias('.a')}"), Some("lookup-key"));
        assert_eq!(kind("%{scope('a..b')}"), Some("scope-key"));
        assert_eq!(kind("%{lookup(a)}"), Some("method-as-variable"));
        assert_eq!(kind("%{%{x}}"), Some("nested"));
        for ok in [
            "%{x}",
            "%{facts . role}",
            "%{facts.'dotted.fact'}",
            "%{literal('%')}",
            "%{}",
            "%{::}",
            "%{lookup('a.\"b.c\"')}",
            "%{what('x')}",
            "%{ alias('a') }",
        ] {
            assert_eq!(kind(ok), None, "{ok}");
        }
    }

    #[test]
    fn help_texts() {
        assert!(expression_help("lookup( 'a' )").contains("`%{lookup('a')}`"));
        assert!(expression_help("lookup('a', 'b')").contains("exactly one"));
        assert!(expression_help("lookup('a').x").contains("inside the quotes"));
        assert!(expression_help("literal('')").contains("empty"));
        assert!(expression_help("('a')").contains("name is missing"));
        assert!(expression_help("'the.key\"").contains("matched"));
        assert!(expression_help("a..b").contains("empty segment"));
        assert!(expression_help("'pa'key").contains("entirely"));
    }
}
