//! `ssdiq run [TARGET]`: the SSD-iq benchmark, end to end.
//!
//! Order: parse and validate everything, open the target and pass the safety checks (bad
//! input: one line, exit 2, nothing written) -> create the output directory -> run with
//! progress on stderr -> write `run.json`, `series.csv`, `report.md`, `report.html` (each to a
//! temporary name, then renamed) -> Tables 2 and 3 on stdout. SIGINT/SIGTERM stop the running
//! job; the results so far are written with `"partial": true` and the exit code is 130.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ssdiq_report::model::RunResult;
use ssdiq_report::{build_tables, terminal, Spec};
use ssdiq_suite::plan::{Plan, PlanOptions};
use ssdiq_suite::RunOptions;
use ssdiq_workload::units::parse_size;

use super::run_bars::Bars;
use super::run_out;
use super::run_target::suite_usage;
use crate::error::{usage, OrUsage};

#[derive(clap::Args)]
#[command(
    about = "Run the SSD-iq benchmark on a drive (default: the emulated SSD emu:default)",
    after_help = "Examples:\n  ssdiq run --quick\n  ssdiq run emu:default,op=0.28 --out results/highop\n  ssdiq run /tmp/scratch.img --size 4G --spec pm9a3.toml\n  ssdiq run /dev/nvme1n1 --allow-destroy /dev/nvme1n1 --spec-seq-write 1500 --spec-rand-write 70\n\n\
Writes run.json, series.csv, report.md and report.html into --out. A file target is created\n\
at --size; an existing one is recreated (its content lost) only with --recreate.\n\
Writing to a block device is refused if it looks in use, unless --allow-destroy names the\n\
device again; the whole device is discarded (and formatted when it is the only NVMe\n\
namespace) before the run."
)]
pub struct Args {
    /// emu:PROFILE[,key=value...], a block device, or a file (with --size).
    #[arg(default_value = "emu:default")]
    target: String,
    /// Short demonstration run: fewer, shorter rounds.
    #[arg(long)]
    quick: bool,
    /// Datasheet values as TOML (name, capacity_gb, seq_read_mb_s, seq_write_mb_s,
    /// rand_read_kiops, rand_write_kiops, read_lat_us, write_lat_us).
    #[arg(long, value_name = "FILE.toml")]
    spec: Option<PathBuf>,
    /// Spec sequential read, MB/s (overrides --spec and the profile).
    #[arg(long, value_name = "MB/s")]
    spec_seq_read: Option<String>,
    /// Spec sequential write, MB/s.
    #[arg(long, value_name = "MB/s")]
    spec_seq_write: Option<String>,
    /// Spec random 4 KiB read, kIOPS.
    #[arg(long, value_name = "kIOPS")]
    spec_rand_read: Option<String>,
    /// Spec random 4 KiB write, kIOPS (the latency-under-load rate is 25% of it).
    #[arg(long, value_name = "kIOPS")]
    spec_rand_write: Option<String>,
    /// Spec read latency, us.
    #[arg(long, value_name = "us")]
    spec_read_lat: Option<String>,
    /// Spec write latency, us.
    #[arg(long, value_name = "us")]
    spec_write_lat: Option<String>,
    /// Output directory (default: ssdiq-results/<target>-<UTC time>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Submitting threads per step.
    #[arg(long, default_value_t = 1)]
    threads: u32,
    /// Seed of the request streams.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Size of a file target (created, or recreated with --recreate).
    #[arg(long)]
    size: Option<String>,
    /// Allow recreating an existing file target (run empties it on reset: its content is
    /// lost). Without it, run refuses an existing file.
    #[arg(long)]
    recreate: bool,
    /// Allow overwriting this block device even if it looks in use (name it again).
    #[arg(long, value_name = "DEVICE")]
    allow_destroy: Option<PathBuf>,
    /// No progress and no tables; print only the output directory.
    #[arg(long)]
    quiet: bool,
}

fn spec_flag(name: &str, v: &Option<String>) -> anyhow::Result<Option<f64>> {
    let Some(s) = v else { return Ok(None) };
    let (lo, hi) = ssdiq_suite::spec::PLAUSIBLE;
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (lo..=hi).contains(&x) => Ok(Some(x)),
        _ => Err(usage(format!(
            "invalid --{name} \"{s}\": expected a positive number from {lo} to {hi:e}"
        ))),
    }
}

/// The spec of the run: the target's own, overridden by --spec, overridden by the flags.
fn spec(args: &Args, builtin: Option<Spec>) -> anyhow::Result<Option<Spec>> {
    let mut s = builtin.unwrap_or_default();
    if let Some(path) = &args.spec {
        let f = ssdiq_suite::spec::load_spec(path).or_usage()?;
        s = Spec {
            name: f.name.or(s.name),
            capacity_gb: f.capacity_gb.or(s.capacity_gb),
            seq_read_mb_s: f.seq_read_mb_s.or(s.seq_read_mb_s),
            seq_write_mb_s: f.seq_write_mb_s.or(s.seq_write_mb_s),
            rand_read_kiops: f.rand_read_kiops.or(s.rand_read_kiops),
            rand_write_kiops: f.rand_write_kiops.or(s.rand_write_kiops),
            read_lat_us: f.read_lat_us.or(s.read_lat_us),
            write_lat_us: f.write_lat_us.or(s.write_lat_us),
        };
    }
    for (name, flag, field) in [
        ("spec-seq-read", &args.spec_seq_read, &mut s.seq_read_mb_s),
        (
            "spec-seq-write",
            &args.spec_seq_write,
            &mut s.seq_write_mb_s,
        ),
        (
            "spec-rand-read",
            &args.spec_rand_read,
            &mut s.rand_read_kiops,
        ),
        (
            "spec-rand-write",
            &args.spec_rand_write,
            &mut s.rand_write_kiops,
        ),
        ("spec-read-lat", &args.spec_read_lat, &mut s.read_lat_us),
        ("spec-write-lat", &args.spec_write_lat, &mut s.write_lat_us),
    ] {
        if let Some(v) = spec_flag(name, flag)? {
            *field = Some(v);
        }
    }
    Ok((s != Spec::default()).then_some(s))
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    // Handlers first: a Ctrl-C during setup ends the command at once, nothing written.
    let stop = ssdiq_engine::signals::stop_on_signals()?;
    if args.threads == 0 || args.threads > 64 {
        return Err(usage(format!(
            "invalid --threads \"{}\": expected 1 to 64",
            args.threads
        )));
    }
    let size = args
        .size
        .as_deref()
        .map(parse_size)
        .transpose()
        .or_usage()?;
    let mut target = super::run_target::open(
        &args.target,
        size,
        args.allow_destroy.as_deref(),
        args.recreate,
    )?;
    let spec = spec(&args, target.builtin_spec())?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| run_out::default_dir(&args.target));
    run_out::check_dir(&out)?;
    // Until here a Ctrl-C ended the process at once: nothing was written.
    ssdiq_engine::signals::drain_on_signals();

    let bars = Bars::new(args.quiet);
    let opts = RunOptions {
        plan: Plan::ssd_iq(PlanOptions {
            quick: args.quick,
            threads: args.threads,
        }),
        spec,
        seed: args.seed,
        quick: args.quick,
        threads: args.threads,
    };
    let result = ssdiq_suite::run(target.as_mut(), &opts, stop.clone(), &bars);
    bars.clear();
    let result = result.map_err(suite_usage)?;
    run_out::write_all(&out, &result)?;
    if args.quiet {
        println!("{}", out.display());
    } else {
        print!("{}", summary(&result, &out));
    }
    if let Some(e) = result.run.as_ref().and_then(|r| r.error.as_deref()) {
        eprintln!("ssdiq: error: {e}; the steps before it are saved, marked partial");
        return Ok(ExitCode::from(1));
    }
    if result.partial {
        eprintln!("ssdiq: interrupted; results are partial");
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

fn summary(r: &RunResult, out: &Path) -> String {
    let (t2, t3) = build_tables(&[r]);
    let ansi = std::io::stdout().is_terminal();
    let mut s = format!(
        "{}\n{}\n",
        terminal::table(&t2, ansi),
        terminal::table(&t3, ansi)
    );
    if let Some(b) = &r.derived.load_basis {
        s.push_str(&format!("latency under load: background writes at {b}\n"));
    }
    if let Some(i) = &r.run {
        s.push_str(&format!(
            "ran {:.1} s ({} clock){}\n",
            i.elapsed_s,
            r.clock,
            if r.partial { ", partial" } else { "" }
        ));
    }
    s.push_str(&format!(
        "results: {}/{{run.json,series.csv,report.md,report.html}}\n",
        out.display()
    ));
    s
}
