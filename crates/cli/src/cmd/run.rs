//! `ssdiq run [TARGET]`: the SSD-iq benchmark, end to end.
//!
//! Order: parse and validate everything, open the target and pass the safety checks (bad
//! input: one line, exit 2, nothing written) -> create the output directory and prove it
//! writable, before any I/O to the target -> run with progress on stderr -> write `run.json`,
//! `series.csv`, `device.csv`, `report.md`, `report.html` (each to a temporary name, then
//! renamed) -> Tables 2 and 3 on stdout. SIGINT/SIGTERM stop the running job; the results so
//! far are written with `"partial": true` and the exit code is 130.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use ssdiq_report::Spec;
use ssdiq_suite::plan::{Plan, PlanOptions};
use ssdiq_suite::spec::SpecFlags;
use ssdiq_suite::RunOptions;
use ssdiq_workload::units::parse_fraction;

use super::run_bars::Bars;
use super::run_out;
use super::run_target::{suite_usage, DriveArgs};
use crate::error::{usage, OrUsage};

/// The procedures `ssdiq run` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    /// The SSD-iq paper's reference procedure (scripts/benchbench.sh of its artifact).
    #[value(name = "ssd-iq")]
    SsdIq,
}

#[derive(clap::Args)]
#[command(
    about = "Run the SSD-iq benchmark on a drive (default: the emulated SSD emu:default)",
    after_help = "Examples:\n  ssdiq run --quick\n  ssdiq run emu:default,op=0.28 --out results/highop\n  ssdiq run /tmp/scratch.img --size 4G --spec pm9a3.toml\n  ssdiq run /dev/nvme1n1 --allow-destroy /dev/nvme1n1 --spec-seq-write 1500 --spec-rand-write 70\n\n\
The procedure (docs/protocol.md): three passes, one per random-write workload (uniform,\n\
two-zone 80/20, Zipf 0.8; 3, 4 and 4 drive writes of 4 KiB at 4 x QD128). Each pass resets the\n\
drive, writes it once sequentially (512 KiB, QD1), measures reads and writes before and after\n\
its workload, and ends with latency under load. Full length on a real drive: hours.\n\n\
Writes run.json, series.csv, device.csv (emulated and NVMe drives), report.md and report.html\n\
into --out. Writing to a block device is refused if it looks in use, unless --allow-destroy\n\
names the device again. Reset of a block device: NVMe sanitize (block erase) when it reaches no\n\
other namespace, else NVMe format when that stays within the namespace, then BLKDISCARD of every\n\
LBA; a device that is not NVMe is only discarded. A file target is created at\n\
--size; an existing one is recreated (its content lost) only with --recreate."
)]
pub struct Args {
    /// emu:PROFILE[,key=value...], a block device, or a file (with --size).
    #[arg(default_value = "emu:default")]
    target: String,
    /// The procedure.
    #[arg(long, value_enum, default_value = "ssd-iq")]
    protocol: Protocol,
    /// The same steps in the same shape, shorter: every duration and idle x 1/1000, drive
    /// writes x 1/3. For a demonstration; numbers are rough.
    #[arg(long)]
    quick: bool,
    /// Run the three passes N times; tables show the median and [min-max].
    #[arg(long, default_value_t = 1, value_name = "N")]
    repeat: u32,
    /// Share of the LBA space used, e.g. 0.8 or 80% (the rest stays trimmed, as extra OP).
    #[arg(long, default_value = "1", value_name = "F")]
    fill: String,
    /// Extend a write workload that was not steady (SNIA rule) within its drive writes, up to
    /// 3x them.
    #[arg(long)]
    until_steady: bool,
    /// Multiply every duration and idle by F instead of the target's defaults (1 on real
    /// drives; on an emulated one capacity / 960 GB for the time-bounded steps but latency under
    /// load, 1 for the rest: docs/protocol.md).
    #[arg(long, value_name = "F")]
    time_scale: Option<String>,
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
    /// Output directory (default: ssdiq-results/<target>-<UTC time>); created and checked
    /// writable before the run starts.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of the request streams.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    drive: DriveArgs,
    /// No progress and no tables; print only the output directory.
    #[arg(long)]
    quiet: bool,
    /// Write Slurm jobs that run this benchmark on each of --slurm-nodes, and a job that
    /// compares their results with `ssdiq report` once all have ended, into DIR.
    #[arg(long, value_name = "DIR", requires = "slurm_nodes")]
    slurm: Option<PathBuf>,
    /// Nodes of --slurm: NODE (runs TARGET there) or NODE:TARGET, comma-separated.
    #[arg(long, value_name = "NODE[:TARGET],...", requires = "slurm")]
    slurm_nodes: Option<String>,
    /// Extra #SBATCH option for every job, e.g. --slurm-opt=--partition=bench (repeatable).
    #[arg(
        long,
        requires = "slurm",
        value_name = "OPTION",
        allow_hyphen_values = true
    )]
    slurm_opt: Vec<String>,
}

/// The spec of the run: the target's own, overridden by --spec, overridden by the flags.
fn spec(args: &Args, builtin: Option<Spec>) -> anyhow::Result<Option<Spec>> {
    SpecFlags {
        file: args.spec.as_deref(),
        seq_read: args.spec_seq_read.as_deref(),
        seq_write: args.spec_seq_write.as_deref(),
        rand_read: args.spec_rand_read.as_deref(),
        rand_write: args.spec_rand_write.as_deref(),
        read_lat: args.spec_read_lat.as_deref(),
        write_lat: args.spec_write_lat.as_deref(),
    }
    .spec(builtin)
    .or_usage()
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    // Handlers first: a Ctrl-C during setup ends the command at once, nothing written.
    let stop = crate::signals::stop_on_signals()?;
    if args.repeat == 0 || args.repeat > 100 {
        return Err(usage(format!(
            "invalid --repeat \"{}\": expected 1 to 100",
            args.repeat
        )));
    }
    let fill = parse_fraction(&args.fill, "--fill")
        .ok()
        .filter(|f| *f > 0.0 && *f <= 1.0)
        .ok_or_else(|| {
            usage(format!(
                "invalid --fill \"{}\": expected a share of the capacity in (0, 1], e.g. 0.8 or 80%",
                args.fill
            ))
        })?;
    let time_scale = match &args.time_scale {
        None => None,
        Some(t) => Some(
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0 && *x <= 10.0)
                .ok_or_else(|| {
                    usage(format!(
                        "invalid --time-scale \"{t}\": expected a factor in (0, 10], e.g. 0.1"
                    ))
                })?,
        ),
    };
    args.drive.size_bytes()?;
    if let (Some(dir), Some(nodes)) = (&args.slurm, &args.slurm_nodes) {
        if let Some(out) = &args.out {
            return Err(usage(format!(
                "invalid --out \"{}\" with --slurm: each node's results go to {}/results, the comparison to {}/report.html",
                out.display(),
                dir.display(),
                dir.display()
            )));
        }
        // The drives are on the nodes, not here: nothing is opened.
        return super::run_slurm::write(
            dir,
            nodes,
            &args.target,
            args.drive.allow_destroy.as_deref(),
            &args.slurm_opt,
        );
    }
    // --out first: a bad one must not cost a created target file, let alone a run.
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| run_out::default_dir(&args.target));
    run_out::check_dir(&out, &args.target)?;
    let mut target = args.drive.open(&args.target, "run")?;
    let spec = spec(&args, target.builtin_spec())?;
    let _claim = ssdiq_target::OutDir::claim(&out, &run_out::FILES, args.drive.recreate)?;
    // Until here a Ctrl-C ended the process at once: nothing was written.
    crate::signals::drain_on_signals();

    let bars = Bars::new(args.quiet);
    let opts = RunOptions {
        plan: match args.protocol {
            Protocol::SsdIq => Plan::ssd_iq(PlanOptions {
                repeat: args.repeat,
            }),
        },
        spec,
        seed: args.seed,
        quick: args.quick,
        fill,
        until_steady: args.until_steady,
        time_scale,
    };
    let result = ssdiq_suite::run(target.as_mut(), &opts, stop.clone(), &bars);
    bars.clear();
    let result = result.map_err(suite_usage)?;
    run_out::write_all(&out, &result)?;
    if args.quiet {
        println!("{}", out.display());
    } else {
        print!(
            "{}",
            ssdiq_report::terminal::run_summary(&result, &out, std::io::stdout().is_terminal())
        );
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
