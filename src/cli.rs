//! The command line: `check`, `lookup`, `rules`, `rule`.
//!
//! Exit codes (contract): 0 when no diagnostic has error severity, 1 when one does, 2 when
//! hieralint itself could not do its job (bad flags, unreadable root).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

use crate::check::{self, CheckOptions};
use crate::diag::Severity;
use crate::render;
use crate::rules;

#[derive(Parser, Debug)]
#[command(
    name = "hieralint",
    version,
    about = "A fast Hiera data linter and static analyzer for Puppet"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check hiera.yaml and Hiera data files (default: the current directory)
    Check(CheckArgs),
    /// Look keys up the way `puppet lookup` does
    Lookup(crate::engine::cli::LookupArgs),
    /// Run the language server (LSP over stdin/stdout; see docs/editors.md)
    Server,
    /// List every rule
    Rules,
    /// Print a rule's documentation
    Rule {
        /// The rule's name (`duplicate-key`) or code (`H002`)
        name: String,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Full,
    Concise,
    Json,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Environments, environment directories, modules or files to check
    pub paths: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = OutputFormat::Full)]
    pub format: OutputFormat,
    /// When to use colour in human output
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Print diagnostics only, no summary line
    #[arg(short, long)]
    pub quiet: bool,
    /// Fact sets to check against: files or directories of JSON/YAML (facter -j, puppet facts
    /// show, PuppetDB exports, Puppet's YAML facts cache). Without it, the values the data
    /// implies are used.
    #[arg(long, value_name = "PATH")]
    pub facts: Vec<PathBuf>,
    /// The Puppet version whose behaviour to model where 7 and 8 differ
    #[arg(long, value_name = "7|8", default_value_t = 8, value_parser = clap::value_parser!(u8).range(7..=8))]
    pub puppet: u8,
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Check(args) => run_check(&args),
        Command::Lookup(args) => crate::engine::cli::run(&args),
        Command::Server => crate::server::run_stdio(),
        Command::Rules => {
            let mut out = std::io::stdout().lock();
            for m in rules::all_meta() {
                let _ = writeln!(
                    out,
                    "{}  {:<38} {:<8} {}",
                    m.code,
                    m.name,
                    m.category.default_severity().as_str(),
                    m.summary
                );
            }
            0
        }
        Command::Rule { name } => match rules::find(&name) {
            Some(m) => {
                print!("{}", m.doc);
                0
            }
            None => {
                eprintln!("hieralint: no rule named `{name}` (see `hieralint rules`)");
                2
            }
        },
    }
}

fn run_check(args: &CheckArgs) -> i32 {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    for p in &paths {
        if std::fs::metadata(p).is_err() {
            eprintln!("hieralint: cannot read `{}`", p.display());
            return 2;
        }
    }
    let result = check::check(&CheckOptions {
        paths,
        facts: args.facts.clone(),
        puppet: args.puppet,
        ..CheckOptions::default()
    });
    let stdout = std::io::stdout();
    let written = match args.format {
        OutputFormat::Json => {
            render::write_json(&mut stdout.lock(), &result.diagnostics, &result.summary)
        }
        OutputFormat::Full | OutputFormat::Concise => {
            let choice = match args.color {
                ColorWhen::Always => ColorChoice::Always,
                ColorWhen::Never => ColorChoice::Never,
                ColorWhen::Auto
                    if std::io::stdout().is_terminal()
                        && std::env::var_os("NO_COLOR").is_none() =>
                {
                    ColorChoice::Auto
                }
                ColorWhen::Auto => ColorChoice::Never,
            };
            let mut out = StandardStream::stdout(choice);
            render::write_codespan(
                &mut out,
                &result.diagnostics,
                args.format == OutputFormat::Concise,
            )
            .and_then(|()| {
                if !args.quiet {
                    writeln!(out, "{}", render::summary_line(&result.summary))?;
                }
                Ok(())
            })
        }
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("hieralint: cannot write output: {e}");
            return 2;
        }
    }
    if result
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error)
    {
        1
    } else {
        0
    }
}
