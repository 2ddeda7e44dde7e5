//! `ssdiq info`: Show a drive's identity, health and OCP media counters

use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    about = "Show a drive's identity, health and OCP media counters",
    after_help = "Example:\n  ssdiq info /dev/nvme0n1 --json info.json"
)]
pub struct Args {
    /// Arguments, accepted but not yet interpreted.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn main(_args: Args) -> anyhow::Result<ExitCode> {
    eprintln!("ssdiq info: not built yet (tracked in issue 8).");
    Ok(ExitCode::from(1))
}
