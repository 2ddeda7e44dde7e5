//! `ssdiq trace`: what a block trace does (`stats`), and whether every line of it parses
//! (`check`), before it drives the simulator or a drive.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use ssdiq_trace::stats::TraceStats;
use ssdiq_trace::{TraceOptions, TraceReader, TraceStatsBuilder};
use ssdiq_workload::units::{format_size_approx, parse_size};
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
    print!("{}", render(&s));
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

fn size(b: u64) -> String {
    format_size_approx(b as f64)
}

fn pct(x: f64) -> String {
    format!("{:.2}%", x * 100.0)
}

fn render(s: &TraceStats) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "trace {} ({}{}): {} requests in {} lines over {:.3} s ({:.0} requests/s), {} device{}",
        s.file,
        s.format,
        s.device
            .as_deref()
            .map(|d| format!(", device {d}"))
            .unwrap_or_default(),
        s.requests,
        s.lines,
        s.duration_s,
        s.requests_per_s,
        s.device_count,
        if s.device_count == 1 { "" } else { "s" }
    );
    if s.device_count > 1 {
        let list: Vec<String> = s
            .devices
            .iter()
            .take(8)
            .map(|d| format!("{} ({})", d.device, d.requests))
            .collect();
        let _ = writeln!(
            o,
            "busiest devices: {}{}",
            list.join(", "),
            if s.device_count > 8 { ", ..." } else { "" }
        );
    }
    let _ = writeln!(
        o,
        "{:<6} {:>12} {:>9} {:>12} {:>11} {:>11}",
        "op", "requests", "share", "bytes", "mean size", "sequential"
    );
    for (name, op) in [("read", &s.read), ("write", &s.write), ("trim", &s.trim)] {
        if op.requests == 0 {
            continue;
        }
        let _ = writeln!(
            o,
            "{name:<6} {:>12} {:>9} {:>12} {:>11} {:>11}",
            op.requests,
            pct(op.requests as f64 / s.requests as f64),
            size(op.bytes),
            size(op.mean_bytes.round() as u64),
            if name == "trim" {
                "-".into()
            } else {
                pct(op.sequential_fraction)
            }
        );
    }
    let _ = writeln!(
        o,
        "read share of reads+writes: {} of requests, {} of bytes",
        pct(s.read_fraction),
        pct(s.read_bytes_fraction)
    );
    let f = &s.footprint;
    let _ = writeln!(
        o,
        "footprint: {} ({} pages of {}): read {}, written {}, read-only {}; offsets {} .. {}",
        size(f.bytes),
        f.pages,
        size(f.page_bytes),
        size(f.read_pages * f.page_bytes),
        size(f.written_pages * f.page_bytes),
        size(f.read_only_pages * f.page_bytes),
        size(f.min_offset),
        size(f.max_end)
    );
    if f.uncounted_pages > 0 {
        let _ = writeln!(
            o,
            "note: {} pages beyond 2^48 pages into a device are left out of the footprint",
            f.uncounted_pages
        );
    }
    let _ = writeln!(
        o,
        "{:<10} {:>10} {:>10} {:>10}",
        "size <=", "read", "write", "trim"
    );
    for b in s.sizes.iter().filter(|b| b.read + b.write + b.trim > 0) {
        let _ = writeln!(
            o,
            "{:<10} {:>10} {:>10} {:>10}",
            if b.up_to_bytes == u64::MAX {
                format!("> {}", size(1 << 29))
            } else {
                size(b.up_to_bytes)
            },
            b.read,
            b.write,
            b.trim
        );
    }
    let ia = &s.inter_arrival;
    let _ = writeln!(
        o,
        "inter-arrival us: mean {:.1} p50 {:.1} p90 {:.1} p99 {:.1} p99.9 {:.1} max {:.1}{}",
        ia.mean_us,
        ia.p50_us,
        ia.p90_us,
        ia.p99_us,
        ia.p99_9_us,
        ia.max_us,
        if ia.backwards > 0 {
            format!(
                "; {} records stamped before their predecessor",
                ia.backwards
            )
        } else {
            String::new()
        }
    );
    let w = &s.write_skew;
    if w.written_pages == 0 {
        let _ = writeln!(o, "write skew: the trace writes nothing");
        return o;
    }
    let _ = writeln!(
        o,
        "write skew: {} page writes to {} written pages ({:.2} per page, at most {})",
        w.page_writes, w.written_pages, w.mean_writes_per_page, w.max_writes_per_page
    );
    let _ = writeln!(o, "{:<26} {:>15}", "most written pages", "share of writes");
    for t in &w.top {
        let frac = format!("{:.2}", t.pages_fraction * 100.0);
        let frac = frac.trim_end_matches('0').trim_end_matches('.');
        let label = format!("top {frac}% ({} pages)", t.pages);
        let _ = writeln!(o, "{label:<26} {:>15}", pct(t.share));
    }
    o
}
