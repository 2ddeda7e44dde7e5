//! `ssdiq io`: Run one I/O job against a file, block device or emulated SSD

use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    about = "Run one I/O job against a file, block device or emulated SSD",
    after_help = "Example:\n  ssdiq io /dev/nvme0n1 --rw randwrite --pattern zipf:0.8 --bs 4k --qd 32 --time 60s --allow-destroy /dev/nvme0n1"
)]
pub struct Args {
    /// Arguments, accepted but not yet interpreted.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn main(_args: Args) -> anyhow::Result<ExitCode> {
    eprintln!("ssdiq io: not built yet (tracked in issue 5).");
    Ok(ExitCode::from(1))
}
