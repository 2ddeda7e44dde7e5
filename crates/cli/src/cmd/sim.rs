//! `ssdiq sim`: Simulate a flash translation layer and report write amplification

use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    about = "Simulate a flash translation layer and report write amplification",
    after_help = "Example:\n  ssdiq sim --capacity 16GiB --block 8MiB --fill 0.875 --gc greedy,2r-fifo --pattern twozone:80/20 --writes 10x"
)]
pub struct Args {
    /// Arguments, accepted but not yet interpreted.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn main(_args: Args) -> anyhow::Result<ExitCode> {
    eprintln!("ssdiq sim: not built yet (tracked in issue 4).");
    Ok(ExitCode::from(1))
}
