//! `--format checkstyle`: Checkstyle XML (version 4.3 layout), read by reviewdog
//! (`-f=checkstyle`) and Jenkins Warnings-NG. Written with quick-xml's writer so that every
//! attribute is escaped.
//!
//! `<checkstyle><file name="path"><error line column severity message source/></file></checkstyle>`,
//! one `<file>` per file with findings; `source` is `hieralint.<code>.<name>`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};
use quick_xml::Writer;

use super::Report;
use crate::diag::{Diagnostic, Severity};
use crate::paths;

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

pub fn write(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let mut by_file: BTreeMap<String, Vec<&Diagnostic>> = BTreeMap::new();
    for d in report.diagnostics {
        by_file
            .entry(paths::report_path(&d.primary.file.path, report.root))
            .or_default()
            .push(d);
    }
    let mut w = Writer::new_with_indent(&mut *out, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut root = BytesStart::new("checkstyle");
    root.push_attribute(("version", "4.3"));
    w.write_event(Event::Start(root))?;
    for (path, diags) in by_file {
        let mut file = BytesStart::new("file");
        file.push_attribute(("name", path.as_str()));
        w.write_event(Event::Start(file))?;
        for d in diags {
            let (start, _) = super::positions(&d.primary);
            let mut e = BytesStart::new("error");
            e.push_attribute(("line", start.line.to_string().as_str()));
            e.push_attribute(("column", start.column.to_string().as_str()));
            e.push_attribute(("severity", severity(d.severity)));
            e.push_attribute(("message", d.message.as_str()));
            e.push_attribute((
                "source",
                format!("hieralint.{}.{}", d.rule.code, d.rule.name).as_str(),
            ));
            w.write_event(Event::Empty(e))?;
        }
        w.write_event(Event::End(BytesEnd::new("file")))?;
    }
    w.write_event(Event::End(BytesEnd::new("checkstyle")))?;
    writeln!(out)
}
