//! `--format github`: GitHub Actions workflow commands, which the runner turns into annotations
//! on the pull request (`::error title=...,file=...,line=...::message`).
//!
//! Escaping follows the runner's `toolkit/core` command encoding: in the message, `%`, `\r` and
//! `\n` become `%25`, `%0D`, `%0A`; in property values `:` and `,` also become `%3A`, `%2C`.
//! GitHub rejects `col`/`endColumn` on an annotation that spans lines, so they are left out then
//! (ruff's `github.rs` does the same). Severity: error → `::error`, warning → `::warning`,
//! info → `::notice`.

use std::io::{self, Write};

use super::Report;
use crate::diag::Severity;
use crate::paths;

/// Escapes a command's message (data).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property's value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn write(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    for d in report.diagnostics {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let (start, end) = super::positions(&d.primary);
        let file = paths::report_path(&d.primary.file.path, report.root);
        let mut props = vec![
            format!(
                "title={}",
                escape_property(&format!("hieralint ({})", d.rule.code))
            ),
            format!("file={}", escape_property(&file)),
            format!("line={}", start.line),
        ];
        if start.line == end.line {
            props.push(format!("col={}", start.column));
            props.push(format!("endLine={}", end.line));
            props.push(format!("endColumn={}", end.column));
        } else {
            props.push(format!("endLine={}", end.line));
        }
        let mut message = format!("{} [{}]", d.message, d.rule.name);
        for n in &d.notes {
            message.push_str("\nnote: ");
            message.push_str(n);
        }
        writeln!(
            out,
            "::{command} {}::{}",
            props.join(","),
            escape_data(&message)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
