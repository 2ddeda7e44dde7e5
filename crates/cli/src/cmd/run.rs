//! `ssdiq run`: Run the SSD-iq benchmark on a drive (default: the emulated SSD emu:default)

use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    about = "Run the SSD-iq benchmark on a drive (default: the emulated SSD emu:default)",
    after_help = "Example:\n  ssdiq run emu:default --quick"
)]
pub struct Args {
    /// Arguments, accepted but not yet interpreted.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn main(_args: Args) -> anyhow::Result<ExitCode> {
    eprintln!("ssdiq run: not built yet (tracked in issue 7).");
    Ok(ExitCode::from(1))
}
