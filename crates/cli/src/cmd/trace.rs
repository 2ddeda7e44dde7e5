//! `ssdiq trace`: what a block trace does (`stats`), and whether every line of it parses
//! (`check`), before it drives the simulator or a drive.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use ssdiq_trace::{TraceOptions, TraceReader, TraceStatsBuilder};
use ssdiq_workload::units::parse_size;
use ssdiq_workload::Op;

use super::trace_args::{parse_format, trace_error};
use crate::error::usage;
use crate::output::{check_outputs, write_json};

#[derive(clap::Args)]
#[command(about = "Inspect block traces: statistics and a parse check")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Stats(StatsArgs),
    Check(CheckArgs),
}

/// Which trace and how to read it.
#[derive(clap::Args)]
struct Input {
    /// The trace: blkparse text, ftrace blk, MSR Cambridge, Alibaba, SPC or FIU (gzip too).
    file: PathBuf,
    /// Format (default: detected): blkparse, ftrace-blk, msr, alibaba, spc, fiu;
    /// blkparse:Q / blkparse:C take queue / completion events instead of issues (D).
    #[arg(long, alias = "trace-format")]
    format: Option<String>,
    /// Only this device, named as the file names it (8,0 / hm,0 / 3).
    #[arg(long, alias = "trace-device")]
    device: Option<String>,
}

impl Input {
    fn options(&self) -> anyhow::Result<TraceOptions> {
        Ok(TraceOptions {
            path: self.file.clone(),
            format: parse_format(self.format.as_deref())?,
            device: self.device.clone(),
        })
    }
}

#[derive(clap::Args)]
#[command(
    about = "Requests, read/write mix, footprint, sizes, sequentiality, inter-arrival times and write skew of a trace",
    after_help = "Example:\n  ssdiq trace stats hm_0.csv.gz --json hm_0.json\n\n\
Footprint and write skew count pages of --page bytes; a request covering part of a page\n\
touches it. Sequential: a read (write) starting where the device's previous read (write)\n\
ended. Write skew: the share of page writes that the most written X% of the written pages\n\
receive, as `ssdiq pattern` reports for patterns."
)]
struct StatsArgs {
    #[command(flatten)]
    input: Input,
    /// Page size of the footprint and the write skew.
    #[arg(long, default_value = "4KiB")]
    page: String,
    /// Write the statistics as JSON (schema ssdiq/1, kind trace-stats).
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(clap::Args)]
#[command(
    about = "Parse every line of a trace and report the format, the requests and the parse speed",
    after_help = "Exit code 2 and the file, line and expected layout on the first bad line."
)]
struct CheckArgs {
    #[command(flatten)]
    input: Input,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Stats(a) => stats(a),
        Command::Check(a) => check(a),
    }
}

fn stats(args: StatsArgs) -> anyhow::Result<ExitCode> {
    let page = parse_size(&args.page)
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| {
            usage(format!(
                "invalid --page \"{}\": expected a size like 4KiB",
                args.page
            ))
        })?;
    if let Some(p) = &args.json {
        check_outputs(
            &[("--json", Some(p))],
            std::slice::from_ref(&args.input.file),
        )?;
    }
    let opts = args.input.options()?;
    let mut reader = TraceReader::open(&opts).map_err(trace_error)?;
    let mut b = TraceStatsBuilder::new(page);
    while let Some(r) = reader.next_record().map_err(trace_error)? {
        b.add(&r);
    }
    let s = b.finish(
        &opts.path.display().to_string(),
        &reader.format().to_string(),
        opts.device.as_deref(),
        reader.lines(),
        |d| reader.device_name(d),
    );
    if s.requests == 0 {
        return Err(usage(format!(
            "trace \"{}\": no request{} in {} lines",
            opts.path.display(),
            opts.device
                .as_deref()
                .map(|d| format!(" of device \"{d}\""))
                .unwrap_or_default(),
            s.lines
        )));
    }
    print!("{}", ssdiq_report::trace::text(&s));
    if let Some(p) = &args.json {
        // Through a JSON value: keys sorted, as the document has always been written.
        write_json(
            p,
            &serde_json::to_value(ssdiq_schema::TraceStatsDoc::new(s))?,
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let opts = args.input.options()?;
    let t0 = Instant::now();
    let mut reader = TraceReader::open(&opts).map_err(trace_error)?;
    let mut n = [0u64; 3];
    while let Some(r) = reader.next_record().map_err(trace_error)? {
        n[match r.op {
            Op::Read => 0,
            Op::Trim => 2,
            _ => 1,
        }] += 1;
    }
    let secs = t0.elapsed().as_secs_f64();
    let total: u64 = n.iter().sum();
    println!(
        "{}: {}, {} lines, {} requests ({} reads, {} writes, {} trims); parsed in {:.2} s, {:.2} M records/s",
        opts.path.display(),
        reader.format(),
        reader.lines(),
        total,
        n[0],
        n[1],
        n[2],
        secs,
        total as f64 / secs.max(1e-9) / 1e6
    );
    Ok(ExitCode::SUCCESS)
}
