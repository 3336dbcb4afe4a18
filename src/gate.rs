//! The `check` command's driver: reads the configuration, resolves the flags against it
//! (flags > `--config` > the file found > defaults), runs ([`crate::run`]), fixes, writes the
//! report(s) and decides the exit status.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use codespan_reporting::term::termcolor::{
    BufferedStandardStream, ColorChoice, NoColor, WriteColor,
};

use crate::baseline::{self, Baseline};
use crate::cli::{CheckArgs, ColorWhen};
use crate::fix;
use crate::render::{self, OutputFormat, Report};
use crate::run::{self, RunOptions, RunResult};
use crate::settings::{self, FailOn, Settings};

/// The format in force: `--format`, else the configuration's `format`, else `github` inside
/// GitHub Actions (`GITHUB_ACTIONS=true`, as yamllint's `auto` does), else `full`.
pub fn choose_format(flag: Option<OutputFormat>, settings: &Settings) -> OutputFormat {
    flag.or(settings.format).unwrap_or_else(|| {
        if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
            OutputFormat::Github
        } else {
            OutputFormat::Full
        }
    })
}

/// The exit status of a finished run (see [`crate::cli`]).
pub fn exit_status(result: &RunResult, fail_on: FailOn) -> i32 {
    if result.config_error {
        2
    } else if result.diagnostics.iter().any(|d| fail_on.fails(d.severity)) {
        1
    } else {
        0
    }
}

fn color_choice(when: ColorWhen, to_terminal: bool) -> ColorChoice {
    match when {
        ColorWhen::Always => ColorChoice::Always,
        ColorWhen::Never => ColorChoice::Never,
        ColorWhen::Auto if to_terminal && std::env::var_os("NO_COLOR").is_none() => {
            ColorChoice::Auto
        }
        ColorWhen::Auto => ColorChoice::Never,
    }
}

/// Runs `hieralint check`; `Err` is a usage or I/O problem (exit status 2).
pub fn run_check(args: &CheckArgs) -> Result<i32, String> {
    run_check_with(args, crate::rules::registry().to_vec())
}

/// [`run_check`] with another set of rules (tests add their own).
pub fn run_check_with(
    args: &CheckArgs,
    registry: Vec<&'static dyn crate::rules::Rule>,
) -> Result<i32, String> {
    let mut paths = args.paths.clone();
    if paths.is_empty() {
        paths.push(match &args.stdin_filename {
            Some(p) => p.clone(),
            None => PathBuf::from("."),
        });
    }
    for p in &paths {
        if Some(p) == args.stdin_filename.as_ref() {
            continue;
        }
        // A root hieralint cannot read is its own failure (exit 2), not a finding: one that
        // does not exist, and one that exists but cannot be listed or opened (permissions).
        // Only regular files are opened: opening a FIFO blocks.
        let readable = std::fs::metadata(p).and_then(|m| {
            if m.is_dir() {
                std::fs::read_dir(p).map(drop)
            } else if m.is_file() {
                std::fs::File::open(p).map(drop)
            } else {
                Ok(())
            }
        });
        if let Err(e) = readable {
            return Err(match e.kind() {
                std::io::ErrorKind::NotFound => format!("cannot read `{}`", p.display()),
                _ => format!("cannot read `{}`: {e}", p.display()),
            });
        }
    }

    let mut opts = RunOptions::new(paths.clone());
    opts.registry = registry;
    let known = opts.known();
    let config_path = match &args.config {
        Some(p) => Some(p.clone()),
        None => settings::find(&paths[0]),
    };
    if let Some(cp) = &config_path {
        let (s, diags) = settings::load(cp, &known)?;
        opts.settings = s;
        opts.config_diagnostics = diags;
    }
    opts.facts = if args.facts.is_empty() {
        opts.settings.facts.clone()
    } else {
        args.facts.clone()
    };
    opts.puppet = args.puppet.or(opts.settings.puppet).unwrap_or(0);
    opts.select = run::resolve_rules(&args.select, &known, "--select")?;
    opts.ignore = run::resolve_rules(&args.ignore, &known, "--ignore")?;
    if let Some(p) = &args.stdin_filename {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        opts.stdin = Some((p.clone(), Arc::from(text)));
    }
    if let Some(b) = &args.baseline {
        opts.baseline = Some(Arc::new(Baseline::load(b)?));
    }
    let fail_on = args.fail_on.or(opts.settings.fail_on).unwrap_or_default();
    let format = choose_format(args.format, &opts.settings);

    if args.diff {
        let out = run::run_with_fixes(&opts);
        report_refused(&out.refused);
        let mut stdout = std::io::stdout().lock();
        for ff in &out.changed {
            write!(stdout, "{}", fix::unified_diff(ff)).map_err(|e| e.to_string())?;
        }
        if !args.quiet {
            eprintln!(
                "hieralint: {} fix{} available in {} file{}",
                out.applied,
                if out.applied == 1 { "" } else { "es" },
                out.changed.len(),
                if out.changed.len() == 1 { "" } else { "s" },
            );
        }
        return Ok(if out.result.config_error {
            2
        } else if out.changed.is_empty() {
            0
        } else {
            1
        });
    }

    // A bar on stderr while the checks run (terminals only, after a delay); cleared before any
    // output is written.
    let progress = crate::progress::install(crate::progress::wanted(
        std::io::stderr().is_terminal(),
        args.quiet,
    ));
    let mut stdin_fixed: Option<String> = None;
    let mut result = if args.fix {
        let out = run::run_with_fixes(&opts);
        report_refused(&out.refused);
        let stdin_id = args.stdin_filename.as_deref().map(crate::paths::identity);
        for ff in &out.changed {
            if stdin_id.as_ref() == Some(&crate::paths::identity(&ff.file.path)) {
                stdin_fixed = Some(ff.fixed.clone());
                continue;
            }
            fix::write_back(ff)
                .map_err(|e| format!("cannot write `{}`: {e}", ff.file.path.display()))?;
        }
        if !args.quiet && out.applied > 0 {
            eprintln!(
                "hieralint: fixed {} problem{} in {} file{}",
                out.applied,
                if out.applied == 1 { "" } else { "s" },
                out.changed.len(),
                if out.changed.len() == 1 { "" } else { "s" },
            );
        }
        out.result
    } else {
        run::run(&opts)
    };
    drop(progress);
    // With --fix on standard input, the fixed text is the output (as editors expect); the report
    // goes to standard error.
    if args.fix && args.stdin_filename.is_some() {
        let text = match &stdin_fixed {
            Some(t) => t.clone(),
            None => opts
                .stdin
                .as_ref()
                .map(|(_, t)| t.to_string())
                .unwrap_or_default(),
        };
        std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string())?;
    }

    if let Some(path) = &args.write_baseline {
        let n = baseline::write(path, &result.before_baseline, &opts.root)?;
        if !args.quiet {
            eprintln!(
                "hieralint: recorded {n} finding{} in `{}`",
                if n == 1 { "" } else { "s" },
                path.display()
            );
        }
        opts.baseline = Some(Arc::new(Baseline::load(path)?));
        result = run::run(&opts);
    }

    let suppressed: &[crate::suppress::Suppressed] = if args.show_suppressed {
        &result.suppressed
    } else {
        &[]
    };
    let report = Report {
        diagnostics: &result.diagnostics,
        suppressed,
        summary: &result.summary,
        files: &result.files,
        root: &opts.root,
    };
    let to_stderr = args.fix && args.stdin_filename.is_some();
    let written = emit(args, format, &report, to_stderr);
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(format!("cannot write output: {e}"));
        }
    }
    crate::timing::mark("output");
    crate::timing::report();
    let status = exit_status(&result, fail_on);
    // The project (every parsed file, the engines and their caches) is not freed here: the
    // binary ends the process as soon as this returns (`_exit`, src/main.rs), and a library
    // caller frees it on another thread, without waiting for the millions of small frees (5%
    // of a 15k-file check with 1,000 fact sets). Freed on a thread in the binary too, the
    // frees ran on the other core until the exit stopped them: CPU the check spent for
    // nothing, and a count of instructions that changed from run to run.
    if EXITS_AFTER_RUN.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(result);
    } else {
        std::thread::spawn(move || drop(result));
    }
    Ok(status)
}

/// Set by the binary, which ends the process right after a check (`_exit`): what the check
/// built is then left to the process's end instead of being freed ([`run_check_with`]).
pub static EXITS_AFTER_RUN: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Tells about fixes refused because they would change the data (a bug in the rule's fix).
fn report_refused(refused: &[fix::Refused]) {
    for r in refused {
        let lc = r.file.line_col(r.fix.span.start as usize);
        eprintln!(
            "hieralint: not applied: the fix \"{}\" at {}:{}:{} would change the data Puppet reads",
            r.fix.title,
            r.file.path.display(),
            lc.line,
            lc.column
        );
    }
}

fn write_human_to(
    out: &mut dyn WriteColor,
    report: &Report,
    concise: bool,
    quiet: bool,
) -> std::io::Result<()> {
    render::write_human(out, report, concise)?;
    if !quiet {
        writeln!(out, "{}", render::summary_line(report.summary))?;
    }
    Ok(())
}

/// Writes the report: to `--output-file` in the chosen format plus human output on the terminal,
/// or the chosen format on standard output (standard error when standard output carries fixed
/// text).
fn emit(
    args: &CheckArgs,
    format: OutputFormat,
    report: &Report,
    to_stderr: bool,
) -> std::io::Result<()> {
    if let Some(path) = &args.output_file {
        write_file(path, format, report, args.quiet)?;
        let concise = format == OutputFormat::Concise;
        return human_stream(args, to_stderr, |out| {
            write_human_to(out, report, concise, args.quiet)
        });
    }
    if format.is_human() {
        let concise = format == OutputFormat::Concise;
        return human_stream(args, to_stderr, |out| {
            write_human_to(out, report, concise, args.quiet)
        });
    }
    // Buffered: a standard stream is line-buffered, so a report of thousands of lines was
    // thousands of `write` calls (5,172 on wikimedia's hieradata with `--format json`).
    let stream: Box<dyn Write> = if to_stderr {
        Box::new(std::io::stderr().lock())
    } else {
        Box::new(std::io::stdout().lock())
    };
    let mut out = std::io::BufWriter::new(stream);
    render::write_machine(format, &mut out, report)?;
    out.flush()
}

fn human_stream(
    args: &CheckArgs,
    to_stderr: bool,
    f: impl FnOnce(&mut dyn WriteColor) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // Buffered for the same reason as the machine formats: a line-buffered stream writes once per
    // diagnostic line.
    let mut out = if to_stderr {
        BufferedStandardStream::stderr(color_choice(args.color, std::io::stderr().is_terminal()))
    } else {
        BufferedStandardStream::stdout(color_choice(args.color, std::io::stdout().is_terminal()))
    };
    f(&mut out)?;
    out.flush()
}

fn write_file(
    path: &Path,
    format: OutputFormat,
    report: &Report,
    quiet: bool,
) -> std::io::Result<()> {
    let mut buf: Vec<u8> = Vec::new();
    if format.is_human() {
        let mut w = NoColor::new(&mut buf);
        write_human_to(&mut w, report, format == OutputFormat::Concise, quiet)?;
    } else {
        render::write_machine(format, &mut buf, report)?;
    }
    std::fs::write(path, buf).map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot write `{}`: {e}", path.display()))
    })
}
