//! The command line: `check`, `lookup`, `rules`, `rule`.
//!
//! Exit codes (contract): 0 when no diagnostic reaches `--fail-on` (default: error severity),
//! 1 when one does, 2 when hieralint itself could not do its job (bad flags, unreadable root,
//! unreadable baseline, or errors in the configuration file: H903).

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::gate;
use crate::rules;
use crate::settings::FailOn;

pub use crate::render::OutputFormat;

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
    Check(Box<CheckArgs>),
    /// Look keys up the way `puppet lookup` does
    Lookup(Box<crate::engine::cli::LookupArgs>),
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

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(clap::Args, Debug, Default)]
pub struct CheckArgs {
    /// Environments, environment directories, modules or files to check. Files are the
    /// reporting scope; the environment around them is loaded for context
    pub paths: Vec<PathBuf>,
    /// Output format [default: `format` of .hieralint.yaml, else `github` when
    /// GITHUB_ACTIONS=true, else full]
    #[arg(long, value_enum)]
    pub format: Option<OutputFormat>,
    /// Write the report in --format to this file; human output still goes to the terminal
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// When to use colour in human output
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Print diagnostics only, no summary line
    #[arg(short, long)]
    pub quiet: bool,
    /// Lowest severity that makes the exit status 1 [default: error]
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Run only these rules (names or codes, comma-separated or repeated)
    #[arg(long, value_name = "RULES", action = clap::ArgAction::Append)]
    pub select: Vec<String>,
    /// Do not run these rules (names or codes, comma-separated or repeated)
    #[arg(long, value_name = "RULES", action = clap::ArgAction::Append)]
    pub ignore: Vec<String>,
    /// Configuration file [default: .hieralint.yaml in the target directory or a parent]
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Silence the findings recorded in this baseline file
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record the current findings in this baseline file (they are then silenced)
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Also print findings silenced by suppressions or the baseline, marked as such
    #[arg(long)]
    pub show_suppressed: bool,
    /// Apply the fixes rules offer, then re-check
    #[arg(long, conflicts_with = "diff")]
    pub fix: bool,
    /// Print the fixes as a unified diff instead of applying them (exit 1 when there are some)
    #[arg(long)]
    pub diff: bool,
    /// Read the file's text from standard input and check it as this path, in the context of
    /// the project on disk (for editors)
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// Fact sets to check against: files or directories of JSON/YAML (facter -j, puppet facts
    /// show, PuppetDB exports, Puppet's YAML facts cache). Without it, the values the data
    /// implies are used.
    #[arg(long, value_name = "PATH")]
    pub facts: Vec<PathBuf>,
    /// The Puppet version whose behaviour to model where 7 and 8 differ [default: `puppet` of
    /// .hieralint.yaml, else 8]
    #[arg(long, value_name = "7|8", value_parser = clap::value_parser!(u8).range(7..=8))]
    pub puppet: Option<u8>,
}

pub fn main() -> i32 {
    crate::timing::start();
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
    match gate::run_check(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hieralint: {e}");
            2
        }
    }
}
