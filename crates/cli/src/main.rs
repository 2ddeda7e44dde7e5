//! `ssdiq`: a thin command line over the ssdiq crates. Parsing and presentation only.

mod cmd;
mod error;
mod output;
mod signals;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "ssdiq",
    version,
    about = "How an SSD really behaves: write amplification, latency under load, skew, hidden over-provisioning",
    long_about = None,
    propagate_version = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Run(cmd::run::Args),
    Io(cmd::io::Args),
    Sim(cmd::sim::Args),
    Info(cmd::info::Args),
    Report(cmd::report::Args),
    Pattern(cmd::pattern::Args),
    Trace(cmd::trace::Args),
    Store(cmd::store::Args),
    Study(cmd::study::Args),
    Fit(cmd::fit::Args),
}

/// The subcommands given, outermost first (`ssdiq trace stats --bogus` -> trace, stats): the
/// deepest one's help is where an error points.
fn subcommand_path() -> Vec<String> {
    let mut cmd = Cli::command();
    let mut path = Vec::new();
    for a in std::env::args().skip(1) {
        if a.starts_with('-') {
            break;
        }
        let Some(sub) = cmd.find_subcommand(&a).cloned() else {
            break;
        };
        path.push(a);
        cmd = sub;
    }
    path
}

fn main() -> ExitCode {
    // Printing into a closed pipe (`ssdiq report a.json | head`) ends the process quietly, as
    // for any Unix filter, instead of panicking in `println!`.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help, --version and a bare `ssdiq` (its help) print as clap has them.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            let path = subcommand_path();
            if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                // A bare `ssdiq` prints its help; `ssdiq trace` says what it lacks.
                let Some(line) = error::missing_subcommand(&path) else {
                    e.exit()
                };
                return error::report(&error::usage(line));
            }
            let sub = (!path.is_empty()).then(|| path.join(" "));
            return error::report(&error::usage(error::clap_line(&e, sub.as_deref())));
        }
    };
    // `run`, `io`, `store`, `sim` and `study` drain their job at the first Ctrl-C; the others just end
    // (but never while a result file is being written).
    if !matches!(
        cli.command,
        Command::Run(_) | Command::Io(_) | Command::Store(_) | Command::Sim(_) | Command::Study(_)
    ) {
        if let Err(e) = crate::signals::exit_on_signals() {
            return error::report(&e.into());
        }
    }
    let result = match cli.command {
        Command::Run(a) => cmd::run::main(a),
        Command::Io(a) => cmd::io::main(a),
        Command::Sim(a) => cmd::sim::main(a),
        Command::Info(a) => cmd::info::main(a),
        Command::Report(a) => cmd::report::main(a),
        Command::Pattern(a) => cmd::pattern::main(a),
        Command::Trace(a) => cmd::trace::main(a),
        Command::Store(a) => cmd::store::main(a),
        Command::Study(a) => cmd::study::main(a),
        Command::Fit(a) => cmd::fit::main(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => error::report(&e),
    }
}
