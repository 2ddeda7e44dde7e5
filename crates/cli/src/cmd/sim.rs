//! `ssdiq sim`: simulate a flash translation layer and report write amplification.
//!
//! Every parameter takes a comma list; the runs form the cartesian product, executed in
//! parallel with rayon and printed as one table. All input is validated (geometry, patterns,
//! output paths) before the first run starts, so bad input costs nothing and writes nothing.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ssdiq_flash::memory::sim_bytes;
use ssdiq_flash::SeriesPoint;
use ssdiq_sweep::output::{describe_geometry, describe_traces};
use ssdiq_sweep::{points, Axes, Point, Shard, SweepFlags};
use ssdiq_workload::units::{format_size, format_size_approx};

use super::sim_out::{write_outputs, write_shard, Outputs};
use super::trace_args::TraceFlags;
use crate::error::{sweep_error, usage};
use crate::output::check_outputs;
use ssdiq_target::{MemoryBudget, MAX_SIM_PAGE_WRITES};

#[derive(clap::Args)]
#[command(
    about = "Simulate a flash translation layer and report write amplification",
    after_help = "Every option takes a comma list; the runs form a sweep executed on all cores.\n\n\
Example:\n  ssdiq sim --capacity 16GiB --block 8MiB --fill 0.875 --gc greedy,2r-fifo --pattern twozone:80/20 --writes 10x\n\n\
GC policies: greedy | fifo | random | dchoices:D | cost-benefit | fifo-scan | 2r-greedy | 2r-fifo | separated-model\n\
Patterns: uniform | randperm | zipf:THETA | twozone:W/S | zones:W1@S1,W2@S2,... | readonly:F | seq |\n\
skipseq:P | window:N | zns:SIZE[xK][:apart] | streams:N  (README: Access patterns)\n\n\
Traces: --trace FILE[,FILE...] replaces --pattern: the trace's writes and trims drive the\n\
drive after its sequential fill (--trace-map compact by default; --writes 1pass by default).\n\n\
Many machines: --shard K/N runs every N-th point from the K-th (write it with --json);\n\
`ssdiq sim merge DIR` joins the shards' JSON files into the single-machine JSON/CSV/HTML;\n\
--slurm DIR writes a Slurm job array and the merge as a job depending on it.",
    args_conflicts_with_subcommands = true
)]
pub struct Args {
    #[command(subcommand)]
    command: Option<SimCommand>,
    /// Physical (raw) capacity, e.g. 16GiB.
    #[arg(long, default_value = "16GiB")]
    capacity: String,
    /// Flash page size.
    #[arg(long, default_value = "4KiB")]
    page: String,
    /// Erase block (or superblock) size.
    #[arg(long, default_value = "8MiB")]
    block: String,
    /// Logical / physical capacity (0.875 = SSD-iq's default). Mutually exclusive with --op.
    #[arg(long, conflicts_with = "op")]
    fill: Option<String>,
    /// Over-provisioning (physical - logical) / logical, e.g. 0.1 or 10%.
    #[arg(long)]
    op: Option<String>,
    /// Free blocks GC copies victims into, kept *beyond* the physical capacity (so the host
    /// and GC share exactly the capacity's spare space, as in SSD-iq's simulator).
    #[arg(long, default_value = "1")]
    reserve: String,
    /// GC policy.
    #[arg(long, default_value = "greedy")]
    gc: String,
    /// When GC stops: naive (one victim per trigger; relocated and host pages share one log,
    /// SSD-iq's naive greedy) or batched (victims until a whole block is free, so relocated
    /// pages fill blocks of their own: an implicit hot/cold separation).
    #[arg(long, default_value = "naive")]
    gc_mode: String,
    /// Relocate GC pages to their own write frontier.
    #[arg(long)]
    gc_frontier: bool,
    /// The share of relocated pages the GC frontier takes, the rest going back to the host
    /// log (a policy between naive greedy, 0, and --gc-frontier, 1); a list sweeps it.
    /// Implies --gc-frontier.
    #[arg(long, value_name = "SHARE", allow_hyphen_values = true)]
    gc_frontier_share: Option<String>,
    /// Static wear levelling: when the full block of fewest erases lags the mean erase count
    /// by more than this many erases, GC moves it next (up to 16 in a row, into the most worn
    /// free blocks). 0 (the default) is off, as in SSD-iq's simulator; a list sweeps it.
    #[arg(long, value_name = "ERASES", allow_hyphen_values = true)]
    wear_level_gap: Option<String>,
    /// Workload pattern, applied after a sequential fill.
    #[arg(long, default_value = "uniform")]
    pattern: String,
    /// Unmeasured workload writes after the fill, in drive writes, or "physical" (one physical
    /// capacity, SSD-iq's simulator's warm-up).
    #[arg(long, default_value = "0")]
    warmup: String,
    /// Measured workload writes after the warm-up, in drive writes (10x = 10 x logical
    /// capacity), or in passes over a trace (1pass). Default: 10x, or 1pass with --trace.
    #[arg(long)]
    writes: Option<String>,
    /// Seed of the workload and of random GC choices.
    #[arg(long, default_value = "1")]
    seed: String,
    /// LRU write buffer: a fraction of the physical capacity (0.02%) or a size (64MiB).
    #[arg(long, default_value = "0")]
    write_buffer: String,
    /// Write the runs as JSON (schema ssdiq/1, kind sim).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write every run's WAF series as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write the runs' table and WAF charts as one self-contained HTML page.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Block traces whose writes and trims drive the simulator instead of --pattern.
    #[arg(long, conflicts_with = "pattern", value_name = "FILE")]
    trace: Option<String>,
    #[command(flatten)]
    trace_flags: TraceFlags,
    /// Run only shard K of N (points i with i % N == K-1); write it with --json, join the
    /// shards with `ssdiq sim merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Write a Slurm job array running the sweep in shards, plus the merge step, into DIR.
    #[arg(long, value_name = "DIR")]
    slurm: Option<PathBuf>,
    /// Array tasks of --slurm (default: one per point, at most 1000).
    #[arg(long, requires = "slurm", value_name = "N")]
    slurm_tasks: Option<u32>,
    /// CPUs per array task.
    #[arg(long, requires = "slurm", default_value_t = 1, value_name = "N")]
    slurm_cpus: u32,
    /// Extra #SBATCH option for every job, e.g. --slurm-opt=--partition=long (repeatable).
    #[arg(
        long,
        requires = "slurm",
        value_name = "OPTION",
        allow_hyphen_values = true
    )]
    slurm_opt: Vec<String>,
    /// Print only the summary table.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Subcommand)]
enum SimCommand {
    Merge(super::sim_merge::Args),
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(SimCommand::Merge(m)) = args.command {
        crate::signals::exit_on_signals()?;
        return super::sim_merge::main(m);
    }
    // Until the runs start a Ctrl-C ends the process at once (nothing written yet).
    let stop = crate::signals::stop_on_signals()?;
    let axes = axes(&args)?;
    let shard = args
        .shard
        .as_deref()
        .map(|s| s.parse::<Shard>().map_err(usage))
        .transpose()?;
    if shard.is_some() {
        if args.json.is_none() {
            return Err(usage(
                "--shard writes its runs with --json FILE (merge the shards with ssdiq sim merge)",
            ));
        }
        if args.csv.is_some() || args.html.is_some() || args.slurm.is_some() {
            return Err(usage(
                "--shard writes only --json; the CSV and HTML come from ssdiq sim merge",
            ));
        }
    }
    let outputs = [
        ("--json", args.json.as_deref()),
        ("--csv", args.csv.as_deref()),
        ("--html", args.html.as_deref()),
    ];
    let traces: Vec<std::path::PathBuf> = args
        .trace
        .iter()
        .flat_map(|l| l.split(','))
        .map(|s| std::path::PathBuf::from(s.trim()))
        .collect();
    check_outputs(&outputs, &traces)?;
    let all = points(&axes).map_err(sweep_error)?;
    for p in &all {
        let w = p.params.writes;
        let page_writes = w * p.params.logical_pages as f64;
        if page_writes > MAX_SIM_PAGE_WRITES {
            // The flag as given (passes over a trace are shown converted, too).
            let given = args.writes.as_deref().unwrap_or("the default");
            return Err(usage(format!(
                "invalid --writes \"{given}\": {:.4e} drive writes, {page_writes:.3e} page writes of {} logical pages; at most {MAX_SIM_PAGE_WRITES:.0e} per run",
                w,
                p.params.logical_pages
            )));
        }
    }
    if let Some(dir) = &args.slurm {
        return super::sim_slurm::write(&args.slurm_job(), dir, all.len(), &traces);
    }
    let mine: Vec<&Point> = match shard {
        Some(s) => s.select(&all),
        None => all.iter().collect(),
    };
    if let (Some(s), true) = (shard, mine.is_empty()) {
        return Err(usage(format!(
            "invalid --shard {s}: the sweep has {} point{}, so shard {} of {} holds none; cut it into at most {} shards",
            all.len(),
            if all.len() == 1 { "" } else { "s" },
            s.k,
            s.n,
            all.len()
        )));
    }
    run(&args, &axes, &all, &mine, shard, stop)
}

impl Args {
    pub(super) fn slurm_job(&self) -> super::sim_slurm::SlurmArgs {
        super::sim_slurm::SlurmArgs {
            tasks: self.slurm_tasks,
            cpus: self.slurm_cpus,
            sbatch: self.slurm_opt.clone(),
            json: self.json.clone(),
            csv: self.csv.clone(),
            html: self.html.clone(),
        }
    }
}

/// The sweep's lists from the flags; every error is a usage error.
fn axes(args: &Args) -> anyhow::Result<Axes> {
    let t = &args.trace_flags;
    SweepFlags {
        capacity: &args.capacity,
        page: &args.page,
        block: &args.block,
        fill: args.fill.as_deref(),
        op: args.op.as_deref(),
        reserve: &args.reserve,
        gc: &args.gc,
        gc_mode: &args.gc_mode,
        gc_frontier: args.gc_frontier,
        gc_frontier_share: args.gc_frontier_share.as_deref(),
        wear_level_gap: args.wear_level_gap.as_deref(),
        pattern: &args.pattern,
        warmup: &args.warmup,
        writes: args.writes.as_deref(),
        seed: &args.seed,
        write_buffer: &args.write_buffer,
        trace: args.trace.as_deref(),
        trace_format: t.trace_format.as_deref(),
        trace_device: t.trace_device.as_deref(),
        trace_map: t.trace_map.as_deref(),
    }
    .axes()
    .map_err(sweep_error)
}

/// Runs `mine` (all points, or one shard's), printing progress, and writes the outputs. On
/// SIGINT/SIGTERM the finished runs are written at once, marked partial (exit 130).
fn run(
    args: &Args,
    axes: &Axes,
    all: &[Point],
    mine: &[&Point],
    shard: Option<Shard>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<ExitCode> {
    let single = mine.len() == 1;
    let quiet = args.quiet;
    let largest = mine
        .iter()
        .max_by_key(|p| sim_bytes(&p.cfg))
        .expect("at least one run");
    let budget = MemoryBudget::for_runs(
        sim_bytes(&largest.cfg),
        &format!(
            "a simulation of {} ({} physical pages)",
            format_size(largest.params.capacity_bytes),
            largest.cfg.geometry.physical_pages()
        ),
        "use a smaller --capacity or a larger --page",
    )?;
    let threads = rayon::current_num_threads() as u64;
    let at_once = budget.fits(sim_bytes(&largest.cfg));
    let within = if at_once < threads.min(mine.len() as u64) {
        format!(
            ", at most {at_once} at a time within the memory budget ({} available)",
            format_size_approx(budget.total() as f64)
        )
    } else {
        String::new()
    };
    if !quiet {
        if let Some(p) = mine.first() {
            if single || axes.one_geometry() {
                println!("{}", describe_geometry(&p.cfg.geometry));
            }
        }
        for line in describe_traces(all) {
            println!("{line}");
        }
        match shard {
            Some(s) => println!(
                "shard {s}: {} of the sweep's {} runs on {threads} threads{within}",
                mine.len(),
                all.len(),
            ),
            None if !single => {
                println!("sweep of {} runs on {threads} threads{within}", mine.len())
            }
            None => {}
        }
    }
    let outputs = Outputs {
        json: args.json.clone(),
        csv: args.csv.clone(),
        html: args.html.clone(),
    };
    let finished: Arc<Mutex<Vec<Option<ssdiq_schema::SimRun>>>> =
        Arc::new(Mutex::new(vec![None; mine.len()]));
    // From here a Ctrl-C writes the finished runs (marked partial) instead of ending at once.
    crate::signals::drain_on_signals();
    let done = Arc::new(AtomicBool::new(false));
    let slot_of: std::collections::HashMap<usize, usize> = mine
        .iter()
        .enumerate()
        .map(|(slot, p)| (p.index, slot))
        .collect();
    let watcher = save_on_signal(
        stop.clone(),
        done.clone(),
        finished.clone(),
        outputs.clone(),
        shard,
        all.to_vec(),
    );
    let print_lock = Mutex::new(());
    let result = ssdiq_sweep::run::run_points(
        mine,
        &stop,
        |p| budget.acquire(sim_bytes(&p.cfg)),
        |p, pt| progress(&print_lock, quiet, single, p, pt),
        |p, r| finished.lock().unwrap()[slot_of[&p.index]] = Some(r.clone()),
    );
    done.store(true, Ordering::Release);
    let _ = watcher.join();
    let runs = result.map_err(sweep_error)?;
    let partial = runs.iter().any(Option::is_none);
    let complete: Vec<ssdiq_schema::SimRun> = runs.iter().flatten().cloned().collect();
    print!("{}", ssdiq_sweep::output::table(&complete));
    match shard {
        Some(s) => write_shard(&outputs, s, all, runs)?,
        None => write_outputs(&outputs, complete, partial)?,
    }
    if partial {
        eprintln!("ssdiq: interrupted; results are partial");
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

fn progress(lock: &Mutex<()>, quiet: bool, single: bool, p: &Point, pt: &SeriesPoint) {
    if quiet {
        return;
    }
    // Sweeps print whole drive writes only, so lines stay readable.
    let whole = (pt.drive_writes - pt.drive_writes.round()).abs() < 1e-9;
    if single || whole {
        let _guard = lock.lock().unwrap();
        let prefix = if single {
            String::new()
        } else {
            format!("[{}] {} ", p.index + 1, p.label())
        };
        println!(
            "{prefix}{:>6.2} dw  running WAF {:>7.4}  cumulative {:>7.4}",
            pt.drive_writes, pt.running_waf, pt.cumulative_waf
        );
    }
}

/// A thread that, when a signal sets `stop` before the sweep is `done`, writes the finished
/// runs (marked partial) and exits 130 without waiting for the runs in flight: a Slurm task
/// at its time limit has seconds between SIGTERM and SIGKILL.
fn save_on_signal(
    stop: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
    finished: Arc<Mutex<Vec<Option<ssdiq_schema::SimRun>>>>,
    outputs: Outputs,
    shard: Option<Shard>,
    all: Vec<Point>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !done.load(Ordering::Acquire) {
            if stop.load(Ordering::Relaxed) {
                let runs = finished.lock().unwrap().clone();
                let r = match shard {
                    Some(s) => write_shard(&outputs, s, &all, runs),
                    None => write_outputs(&outputs, runs.into_iter().flatten().collect(), true),
                };
                if let Err(e) = r {
                    eprintln!("ssdiq: error: {e:#}");
                }
                eprintln!("ssdiq: interrupted; the finished runs are written, marked partial");
                std::process::exit(130);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    })
}
