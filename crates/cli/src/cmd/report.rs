//! `ssdiq report`: Render or compare result files (terminal, Markdown, HTML)

use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    about = "Render or compare result files (terminal, Markdown, HTML)",
    after_help = "Example:\n  ssdiq report drive-a.json drive-b.json --html compare.html"
)]
pub struct Args {
    /// Arguments, accepted but not yet interpreted.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn main(_args: Args) -> anyhow::Result<ExitCode> {
    eprintln!("ssdiq report: not built yet (tracked in issue 7).");
    Ok(ExitCode::from(1))
}
