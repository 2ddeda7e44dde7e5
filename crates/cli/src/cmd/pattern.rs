//! `ssdiq pattern`: what a pattern does to a drive, before anyone spends hours on one.

use std::path::PathBuf;
use std::process::ExitCode;

use ssdiq_workload::analysis::analyze;
use ssdiq_workload::units::parse_size;
use ssdiq_workload::Pattern;

use crate::error::{usage, OrUsage};
use crate::output::{check_outputs, write_json, write_output};
use ssdiq_target::{check_memory, MAX_DRAWS};

/// Pages are counted in a u32 each; beyond this the histogram would not fit comfortably.
const MAX_PAGES: u64 = 1 << 31;

#[derive(clap::Args)]
#[command(
    about = "Show how a pattern spreads accesses: pages touched, hottest-page shares, histograms",
    after_help = "Example:\n  ssdiq pattern zipf:0.8 --pages 1000000 --draws 10x --csv zipf.csv\n\n\
Patterns: seq | uniform | randperm | zipf:THETA | twozone:W/S | zones:W1@S1,... | readonly:F |\n          skipseq:P | window:N | zns:SIZE[xK][:apart] | streams:N"
)]
pub struct Args {
    /// The access pattern, e.g. zipf:0.8 or twozone:80/20.
    pattern: String,
    /// Number of pages in the range (e.g. 1000000, 1M = 2^20).
    #[arg(long, default_value = "1000000")]
    pages: String,
    /// Number of draws, or a multiple of the page count like 10x.
    #[arg(long, default_value = "10x")]
    draws: String,
    /// Seed of the random stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Page size, used by zns:SIZE.
    #[arg(long, default_value = "4k")]
    page_size: String,
    /// Number of LBA bins of the LBA histogram.
    #[arg(long, default_value_t = 100)]
    bins: usize,
    /// Write the access-count histogram (accesses_per_page,pages) as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write the LBA histogram (bin,first_page,last_page,accesses) as CSV.
    #[arg(long)]
    lba_csv: Option<PathBuf>,
    /// Write the report as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn parse_count(text: &str, what: &str) -> anyhow::Result<u64> {
    let v = parse_size(text).map_err(|e| {
        let too_large = if e.reason == "too large" {
            "too large; "
        } else {
            ""
        };
        usage(format!(
            "invalid {what} \"{text}\": {too_large}expected a whole number like 1000000 or 1M"
        ))
    })?;
    if v == 0 {
        return Err(usage(format!("invalid {what} \"{text}\": must be > 0")));
    }
    Ok(v)
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let pattern = Pattern::parse(&args.pattern).or_usage()?;
    let pages = parse_count(&args.pages, "--pages")?;
    if pages > MAX_PAGES {
        return Err(usage(format!(
            "invalid --pages \"{}\": at most {MAX_PAGES} pages can be analysed",
            args.pages
        )));
    }
    let draws = match args.draws.strip_suffix('x') {
        Some(m) => {
            let m: f64 = m
                .parse()
                .ok()
                .filter(|v: &f64| *v > 0.0 && v.is_finite())
                .ok_or_else(|| {
                    usage(format!(
                        "invalid --draws \"{}\": expected N or a multiple like 10x",
                        args.draws
                    ))
                })?;
            (m * pages as f64).round().max(1.0)
        }
        None => parse_count(&args.draws, "--draws")? as f64,
    };
    if draws > MAX_DRAWS as f64 {
        return Err(usage(format!(
            "invalid --draws \"{}\": {draws:.3e} draws; at most {MAX_DRAWS:.0e} (about 20 minutes)",
            args.draws
        )));
    }
    let draws = draws as u64;
    // A u32 count per page (the analysis keeps them all) and the LBA bins.
    let need = 4 * pages + 8 * args.bins.min(pages as usize) as u64;
    check_memory(
        &format!("pattern over {pages} pages"),
        need,
        "use fewer --pages",
    )?;
    let page_bytes = parse_size(&args.page_size).or_usage()?;
    if page_bytes == 0 {
        return Err(usage(format!(
            "invalid --page-size \"{}\": must be > 0",
            args.page_size
        )));
    }
    if args.bins == 0 {
        return Err(usage("invalid --bins \"0\": must be >= 1"));
    }
    let outputs = [
        ("--csv", args.csv.as_deref()),
        ("--lba-csv", args.lba_csv.as_deref()),
        ("--json", args.json.as_deref()),
    ];
    check_outputs(&outputs, &[])?;
    let report = analyze(&pattern, pages, page_bytes, draws, args.seed, args.bins).or_usage()?;
    print!("{}", ssdiq_report::pattern::text(&report));
    if let Some(path) = &args.csv {
        write_output(path, ssdiq_report::pattern::count_csv(&report).as_bytes())?;
    }
    if let Some(path) = &args.lba_csv {
        write_output(path, ssdiq_report::pattern::lba_csv(&report).as_bytes())?;
    }
    if let Some(path) = &args.json {
        // Through a JSON value: keys sorted, as the document has always been written.
        write_json(
            path,
            &serde_json::to_value(ssdiq_schema::PatternDoc::new(report))?,
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
