//! `ssdiq sim merge DIR`: joins the shard files of a sweep into the single-machine results.

use std::path::PathBuf;
use std::process::ExitCode;

use ssdiq_sweep::merge::{merge, read_dir};

use super::sim_out::{write_outputs, Outputs};
use crate::error::sweep_error;
use crate::output::check_outputs;

#[derive(clap::Args)]
#[command(
    about = "Join the shards of a sweep (ssdiq sim --shard K/N --json DIR/...) into one result",
    after_help = "Example:\n  for k in 1 2 3 4; do ssdiq sim --gc greedy,2r-fifo --op 7%,28% --shard $k/4 --json shards/$k.json; done\n  ssdiq sim merge shards --json sim.json --csv sim.csv --html sim.html\n\n\
The JSON, CSV and HTML equal a single-machine sweep's, except each run's \"seconds\"."
)]
pub struct Args {
    /// Directory of the shards' JSON files (other JSON files in it are passed over).
    dir: PathBuf,
    /// Write the merged runs as JSON (schema ssdiq/1, kind sim).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write every run's WAF series as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write the runs' table and WAF charts as one HTML page.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Merge even if runs are missing (the result is marked partial).
    #[arg(long)]
    allow_partial: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let outputs = [
        ("--json", args.json.as_deref()),
        ("--csv", args.csv.as_deref()),
        ("--html", args.html.as_deref()),
    ];
    // Every file of the shard directory is an input: a shard overwritten by the merge could
    // never be merged again.
    let shards: Vec<std::path::PathBuf> = std::fs::read_dir(&args.dir)
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    check_outputs(&outputs, &shards)?;
    let found = read_dir(&args.dir).map_err(sweep_error)?;
    for why in &found.not_json {
        eprintln!("ssdiq: note: passed over {why}");
    }
    let shards = found.shards;
    let files = shards.len();
    let m = merge(shards, args.allow_partial, &found.not_json).map_err(sweep_error)?;
    let partial = !m.missing.is_empty();
    if !args.quiet {
        println!(
            "merged {} runs of {} points from {files} shard file{} (N = {})",
            m.runs.len(),
            m.points,
            if files == 1 { "" } else { "s" },
            m.shards
        );
        print!("{}", ssdiq_sweep::output::table(&m.runs));
    }
    write_outputs(
        &Outputs {
            json: args.json,
            csv: args.csv,
            html: args.html,
        },
        m.runs,
        partial,
    )?;
    if partial {
        eprintln!(
            "ssdiq: {} of {} runs are missing; the result is marked partial",
            m.missing.len(),
            m.points
        );
    }
    Ok(ExitCode::SUCCESS)
}
