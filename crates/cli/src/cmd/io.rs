//! `ssdiq io`: run one I/O job against a file or block device and report its statistics.
//!
//! Order: parse and validate everything (exit 2, nothing written) -> safety checks for block
//! devices that would be written (exit 2) -> run with progress on stderr -> summary on stdout,
//! JSON and CSV written to a temporary name and renamed. SIGINT/SIGTERM stop the job; it
//! drains and writes its results with `"partial": true` (exit 130).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use ssdiq_engine::TargetFacts;
use ssdiq_engine::{
    EngineError, Executor, IoReport, Job, JobFlags, Progress, RealExecutor, RunControl,
};
use ssdiq_suite::NvmeCounters;
use ssdiq_workload::units::{format_size, format_size_approx, parse_size};

use super::trace_args::{trace_error, TraceFlags};
use crate::error::{usage, OrUsage};
use crate::output::{check_outputs, write_json, write_output};
use ssdiq_emu::memory::drive_bytes;
use ssdiq_emu::{EmuExecutor, TargetSpec};
use ssdiq_target::{check_memory, Access, FilePlan, Opened, Use};
use ssdiq_trace::{MapKind, TraceSetup};

#[derive(clap::Args)]
#[command(
    about = "Run one I/O job against a file, a block device or an emulated SSD (emu:PROFILE)",
    after_help = "Examples:\n  ssdiq io /tmp/scratch --size 1G --rw randread --bs 4k --qd 32 --time 10s --json r.json\n  ssdiq io /dev/nvme0n1 --rw randwrite --pattern zipf:0.8 --bs 4k --qd 32 --time 60s \\\n      --rate 100MB/s --probe read,write --allow-destroy /dev/nvme0n1\n\n\
Without --time the job issues --size bytes (or --io-size); with both, the first bound wins.\n\
A file that does not exist is created at --size; an existing file is read in place and never\n\
grown; a job writes into it only with --overwrite (in place) or --recreate (emptied and sized\n\
to --size first); either way its content is lost.\n\
Writing to a block device is refused if it is mounted, partitioned, or carries a filesystem,\n\
LVM, RAID, swap or partition-table signature, unless --allow-destroy names the device again.\n\n\
Emulated SSD: TARGET emu:PROFILE[,key=value...] (profiles: default, nosuspend, smallbuf, highop,\n\
2r; the papers' drives pm9a3, pe8110, p5520, sn640, 7450pro, 7450max, pm1733, cm7r, i4i;\n\
consumer drives with an SLC cache, with DRAM 970evoplus, DRAM-less nv2, gsm2ne; 3D XPoint\n\
optane-m10; SATA sm863a, mtron7525; `ssdiq info emu:NAME` describes one; or\n\
emu:path/to/profile.toml) runs the job on the flash model in virtual time: --time is virtual\n\
seconds, --size defaults to the drive's capacity; the host's I/O path flags (--engine,\n\
--hipri, --sqpoll, --fixedbufs, --registerfiles, --buffered) do not apply and are refused.\n\
\x20 ssdiq io emu:default --rw randwrite --fill seq --qd 32 --time 60s --json r.json\n\
\x20 ssdiq io emu:nosuspend,capacity=4GiB --rw randwrite --rate 100MB/s --probe read --time 30s\n\n\
Trace replay: --trace FILE replaces --rw/--pattern/--rate: the trace's reads, writes and trims,\n\
widened to whole --bs units, at their recorded times (--replay-speed 1), scaled (2x), or as\n\
fast as threads x qd allow (max). Offsets are used as they are (--trace-map direct; a new file\n\
is sized to the trace's span); --trace-map compact packs the trace's distinct pages.\n\
\x20 ssdiq io emu:default --trace hm_0.csv.gz --qd 32 --replay-speed max --json r.json"
)]
// fio's names for the same flags are hidden aliases (--iodepth, --numjobs, --runtime,
// --readwrite, --ioengine, --sqthread_poll, --io_size): a fio user's first try works, or
// is told what the value means here.
pub struct Args {
    /// A block device, a file (created or extended to --size), an NVMe generic device
    /// (/dev/ngXnY, with --engine uring-cmd), or an emulated SSD emu:PROFILE[,key=value...];
    /// with --stripe, block devices separated by commas (A,B).
    target: PathBuf,
    /// read, write, randread, randwrite, rw:R, randrw:R (R = read percent), trim, randtrim,
    /// write-zeroes.
    #[arg(long, default_value = "randread", alias = "readwrite")]
    rw: String,
    /// Access pattern (default: uniform for rand* mixes, seq otherwise).
    #[arg(long)]
    pattern: Option<String>,
    /// Block size of each request.
    #[arg(long, default_value = "4k")]
    bs: String,
    /// Requests in flight per thread.
    #[arg(long, default_value_t = 1, alias = "iodepth")]
    qd: u32,
    /// Submitting threads.
    #[arg(long, default_value_t = 1, alias = "numjobs")]
    threads: u32,
    /// Give every thread its own 1/threads of the range, random patterns too (like fio jobs
    /// on separate files); by default only sequential patterns split the range.
    #[arg(long)]
    own_regions: bool,
    /// Range of the target to use, from offset 0 (default: the whole device or file).
    #[arg(long)]
    size: Option<String>,
    /// Bytes to issue in total (default: --size when no --time is given).
    #[arg(long, alias = "io_size")]
    io_size: Option<String>,
    /// Run time, e.g. 60s, 10m.
    #[arg(long, alias = "runtime")]
    time: Option<String>,
    /// Rate limit shared by all threads: a bandwidth like 100MB/s or I/O rate like 25k.
    #[arg(long)]
    rate: Option<String>,
    /// How --rate spaces the I/Os: paced (even, a throttle) or poisson (open-loop Poisson
    /// arrivals, latency timed from each arrival).
    #[arg(long, default_value = "paced", requires = "rate")]
    arrivals: String,
    /// Latency probes running beside the load, measured apart: read, write, rw:R (R percent
    /// reads), comma-separated, e.g. read,write.
    #[arg(long)]
    probe: Option<String>,
    /// Pace of each probe, e.g. 1k (IOPS) or 4MB/s. A paced probe is open loop: latency from
    /// each I/O's due time, so a stall shows in the tail (default: back to back, QD1).
    #[arg(long, requires = "probe")]
    probe_rate: Option<String>,
    /// I/Os each probe may have in flight.
    #[arg(long, default_value_t = 1, requires = "probe")]
    probe_qd: u32,
    /// open (latency from each I/O's due time) or closed (a throttle timed from submission,
    /// like fio's rate_iops: it samples less while the target stalls).
    #[arg(long, default_value = "open", requires = "probe_rate")]
    probe_loop: String,
    /// io_uring, libaio (Linux AIO, O_DIRECT only), psync (one blocking pread/pwrite per
    /// I/O, QD 1 per thread) or uring-cmd (NVMe commands through io_uring on the generic char
    /// device /dev/ngXnY, no block layer; fio's io_uring_cmd).
    /// [default: io_uring]
    #[arg(long, alias = "ioengine")]
    engine: Option<String>,
    /// io_uring: polled completions (IORING_SETUP_IOPOLL, fio's hipri); needs O_DIRECT and an
    /// NVMe device with poll queues (the nvme driver's poll_queues=N).
    #[arg(long)]
    hipri: bool,
    /// io_uring: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL, fio's
    /// sqthread_poll); it keeps a CPU busy while the job runs.
    #[arg(long, alias = "sqthread_poll")]
    sqpoll: bool,
    /// With --sqpoll: the CPU its thread is bound to (fio's sqthread_poll_cpu).
    #[arg(
        long,
        value_name = "CPU",
        requires = "sqpoll",
        alias = "sqthread_poll_cpu"
    )]
    sqpoll_cpu: Option<u32>,
    /// With --sqpoll: how long without submissions before its thread sleeps, e.g. 1s, 10ms.
    #[arg(long, value_name = "TIME", requires = "sqpoll")]
    sqpoll_idle: Option<String>,
    /// io_uring: register the I/O buffers with the ring (fio's fixedbufs).
    #[arg(long)]
    fixedbufs: bool,
    /// io_uring: register the file with the ring (fio's registerfiles).
    #[arg(long)]
    registerfiles: bool,
    /// The FDP placement identifier writes carry (the drive's placement handle, with its
    /// reclaim group in the high bits; `ssdiq info` lists the handles): PID for every write,
    /// or by region of the range, like 0-20%=1,20-100%=2 or 0-1GiB=1 (a write in no region
    /// carries none). With --engine uring-cmd, or on an emulated drive with placement streams
    /// (emu:...,streams=N: PIDs below N).
    #[arg(long, value_name = "PID|REGIONS")]
    fdp_pid: Option<String>,
    /// RAID0 over the block devices TARGET lists (A,B): the range is dealt over them in chunks
    /// of this size (a whole number of --bs), each device with its own queue; the results
    /// give each device's share too. --allow-destroy names each device, in the same order.
    #[arg(long, value_name = "CHUNK")]
    stripe: Option<String>,
    /// Every written block carries a header (offset, write generation, seed) and a CRC-32;
    /// every read block is checked against it, and a job that writes reads its range back
    /// at the end (the emulated drive keeps each page's write generation instead of data).
    /// Mismatches are counted and the first named; they make the exit code 1.
    #[arg(long)]
    verify: bool,
    /// O_DIRECT (the default).
    #[arg(long, conflicts_with = "buffered")]
    direct: bool,
    /// Go through the page cache instead of O_DIRECT.
    #[arg(long)]
    buffered: bool,
    /// Alignment of random offsets (default: --bs).
    #[arg(long)]
    offset_align: Option<String>,
    /// First byte of the target the job addresses (fio's offset); --size counts from here.
    #[arg(long)]
    offset: Option<String>,
    /// Precondition before measuring: seq writes the whole range once.
    #[arg(long)]
    fill: Option<String>,
    /// Seed of the request streams and data.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write data: random, zeros, ones, 0xNN, lba, compressible:RATIO.
    #[arg(long, default_value = "random")]
    data: String,
    /// On an I/O error: stop (drain and report) or continue (count and go on).
    #[arg(long, default_value = "stop")]
    on_error: String,
    /// Write the result as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the per-second series as CSV.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Allow overwriting this block device even if it looks in use (name it again).
    #[arg(long, value_name = "DEVICE")]
    allow_destroy: Option<PathBuf>,
    /// Replay this block trace (blkparse, ftrace-blk, MSR, Alibaba, SPC, FIU; gzip too).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["pattern", "rw", "rate", "offset_align"])]
    trace: Option<PathBuf>,
    #[command(flatten)]
    trace_flags: TraceFlags,
    /// Replay timing: 1 (recorded), a factor like 2x (twice as fast) or 0.5, or max.
    #[arg(long, requires = "trace", default_value = "1")]
    replay_speed: String,
    /// Largest request of a replay; longer trace requests are split.
    #[arg(long, requires = "trace", default_value = "1MiB")]
    trace_max_io: String,
    /// Recreate an existing file target: empty it and size it to --size (default: its
    /// length); its content is lost. Without it an existing file is used in place and never
    /// grown.
    #[arg(long, conflicts_with = "overwrite")]
    recreate: bool,
    /// Write into an existing file target in place (its content is lost, its length kept).
    /// Without it (or --recreate) a job that writes refuses a file that holds data.
    #[arg(long)]
    overwrite: bool,
}

fn engine_usage(e: EngineError) -> anyhow::Error {
    if e.is_usage() {
        usage(e.to_string())
    } else {
        e.into()
    }
}

impl Args {
    /// The job's flags as text, for `JobFlags` to parse.
    fn job_flags(&self, trace: Option<&TraceSetup>) -> JobFlags<'_> {
        JobFlags {
            rw: &self.rw,
            pattern: self.pattern.as_deref(),
            bs: &self.bs,
            qd: self.qd,
            threads: self.threads,
            own_regions: self.own_regions,
            size: self.size.as_deref(),
            io_size: self.io_size.as_deref(),
            time: self.time.as_deref(),
            rate: self.rate.as_deref(),
            arrivals: &self.arrivals,
            probe: self.probe.as_deref(),
            probe_rate: self.probe_rate.as_deref(),
            probe_qd: self.probe_qd,
            probe_loop: &self.probe_loop,
            engine: self.engine.as_deref().unwrap_or("io_uring"),
            hipri: self.hipri,
            sqpoll: self.sqpoll,
            sqpoll_cpu: self.sqpoll_cpu,
            sqpoll_idle: self.sqpoll_idle.as_deref(),
            fixedbufs: self.fixedbufs,
            registerfiles: self.registerfiles,
            fdp_pid: self.fdp_pid.as_deref(),
            stripe: self.stripe.as_deref(),
            verify: self.verify,
            buffered: self.buffered,
            offset_align: self.offset_align.as_deref(),
            offset: self.offset.as_deref(),
            fill: self.fill.as_deref(),
            seed: self.seed,
            data: &self.data,
            on_error: &self.on_error,
            replay_writes: trace.map(TraceSetup::writes),
        }
    }
}

/// Attaches the trace's replay to `job` and validates it.
fn finish_job(mut job: Job, trace: Option<&TraceSetup>) -> anyhow::Result<Job> {
    if let Some(t) = trace {
        job.replay = Some(
            t.replay(job.range_bytes, &job.target)
                .map_err(trace_error)?,
        );
    }
    job.validate().map_err(engine_usage)?;
    Ok(job)
}

/// Draws the fill bar and a run spinner on stderr (hidden when stderr is not a terminal).
struct Bars {
    fill: OnceLock<ProgressBar>,
    run: OnceLock<ProgressBar>,
    time_ns: Option<u64>,
}

impl Progress for Bars {
    fn fill(&self, done: u64, total: u64) {
        let bar = self.fill.get_or_init(|| {
            let b = ProgressBar::new(total);
            b.set_style(
                ProgressStyle::with_template(
                    "fill {bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
                )
                .expect("static template"),
            );
            b
        });
        bar.set_position(done);
        if done >= total {
            bar.finish_and_clear();
        }
    }

    fn running(&self, elapsed_ns: u64, bytes: u64) {
        // No spinner (and no ticker thread waking beside the measuring ones) unless someone
        // is watching.
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = self.run.get_or_init(|| {
            let b = ProgressBar::new_spinner();
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        let of = self
            .time_ns
            .map(|t| format!(" of {:.0} s", t as f64 / 1e9))
            .unwrap_or_default();
        bar.set_message(format!(
            "running {:.1} s{of}, {} issued",
            elapsed_ns as f64 / 1e9,
            format_size_short(bytes)
        ));
    }
}

impl Bars {
    fn clear(&self) {
        for b in [self.fill.get(), self.run.get()].into_iter().flatten() {
            b.finish_and_clear();
        }
    }
}

fn format_size_short(b: u64) -> String {
    ssdiq_workload::units::format_size_approx(b as f64)
}

/// Validation and safety checks for a file or block device (`ssdiq_target::open`, told by the
/// flags whether the job writes); its executor and what happens to a file target before the job.
fn real_setup(
    args: &Args,
    spec: TargetSpec,
    trace: Option<&TraceSetup>,
) -> anyhow::Result<(Job, Box<dyn Executor>, FilePlan)> {
    let size = args
        .size
        .as_deref()
        .map(parse_size)
        .transpose()
        .or_usage()?;
    // A replay sizes a new file to the trace's footprint unless --size says otherwise.
    let natural = (size.is_none() && !args.target.exists())
        .then(|| trace.and_then(TraceSetup::natural_range))
        .flatten();
    if let (Some(n), Some(t)) = (natural, trace) {
        if let Some((free, dir)) = ssdiq_target::free_space(&args.target) {
            if n > free {
                return Err(usage(format!(
                    "{} does not exist and the trace needs {} of it ({}), but the filesystem of {dir} has {} free; give --size with --trace-map modulo to fold the trace onto less",
                    args.target.display(),
                    format_size(n),
                    t.natural_range_what(),
                    format_size_approx(free as f64)
                )));
            }
        }
    }
    let size = size.or(natural);
    // A file must hold the job's extent: --offset plus --size.
    let flags = args.job_flags(trace);
    let offset = flags.offset().map_err(engine_usage)?;
    let size = size.map(|s| s.saturating_add(offset));
    let writes = flags.writes();
    let access = Access {
        command: Use::Io,
        size,
        recreate: args.recreate,
        overwrite: args.overwrite,
        allow_destroy: args.allow_destroy.as_deref(),
        writes,
    };
    let inputs = io_inputs(args, &spec);
    let (facts, plan) = match flags.stripe().map_err(engine_usage)? {
        None => {
            let Opened::Path { plan, .. } = ssdiq_target::open(spec, &access)? else {
                unreachable!("real_setup is for paths")
            };
            (
                TargetFacts::probe(&args.target).map_err(engine_usage)?,
                plan,
            )
        }
        Some(chunk) => {
            // Every member a block device before any is checked as one.
            let (facts, _) = TargetFacts::probe_striped(&args.target.to_string_lossy(), chunk)
                .map_err(engine_usage)?;
            open_stripe_members(args, &access)?;
            (facts, FilePlan::NotAFile)
        }
    };
    let natural = trace.and_then(TraceSetup::natural_range);
    let job = flags.job_on(&facts, natural).map_err(engine_usage)?;
    let job = finish_job(job, trace)?;
    facts.check(&job).map_err(engine_usage)?;
    if job.writes() && !writes {
        anyhow::bail!("internal error: the job writes, but its target was checked for reads only");
    }
    check_memory(
        &format!(
            "{} threads x --qd {} x --bs {}",
            job.threads,
            job.qd,
            format_size(job.bs)
        ),
        RealExecutor::buffer_bytes(&job),
        "lower --threads, --qd or --bs",
    )?;
    check_io_outputs(args, &inputs)?;
    let exec = match NvmeCounters::probe(&facts) {
        Some(c) => RealExecutor::with_counters(Box::new(c)),
        None => RealExecutor::new(),
    };
    Ok((job, Box::new(exec), plan))
}

/// Each device of a RAID0 target (`A,B` with `--stripe`) through `ssdiq_target::open`, as one
/// device would be: safety checks for each, `--allow-destroy` naming each in the same order.
fn open_stripe_members(args: &Args, access: &Access) -> anyhow::Result<()> {
    let target = args.target.to_string_lossy();
    let paths: Vec<&str> = target.split(',').collect();
    let allowed: Vec<PathBuf> = match &args.allow_destroy {
        None => Vec::new(),
        Some(a) => {
            let list: Vec<PathBuf> = a.to_string_lossy().split(',').map(PathBuf::from).collect();
            if list.len() != paths.len() {
                return Err(usage(format!(
                    "invalid --allow-destroy \"{}\" with --stripe: name each device of {target}, in the same order, separated by commas",
                    a.display()
                )));
            }
            list
        }
    };
    for (i, p) in paths.iter().enumerate() {
        let spec = TargetSpec::parse(p).map_err(|e| usage(e.to_string()))?;
        if spec.is_emu() || p.is_empty() {
            return Err(usage(format!(
                "invalid --stripe member \"{p}\" of {target}: expected a block device"
            )));
        }
        let member = Access {
            size: None,
            allow_destroy: allowed.get(i).map(PathBuf::as_path),
            ..*access
        };
        // A device's refusal names it alone in its hint; a stripe's --allow-destroy names all.
        ssdiq_target::open(spec, &member).map_err(|e| match e.downcast::<ssdiq_target::Refused>() {
            Ok(r) if r.0.contains("pass --allow-destroy") && args.allow_destroy.is_none() => {
                let hint = r.0.find("; pass --allow-destroy").map_or(r.0.as_str(), |i| &r.0[..i]);
                usage(format!(
                    "{hint}; pass --allow-destroy {target} (every device of the stripe, in order) to overwrite them anyway"
                ))
            }
            Ok(r) => anyhow::Error::new(r),
            Err(e) => e,
        })?;
    }
    Ok(())
}

/// The emulated SSD (checked by `ssdiq_target::open`; nothing real is written); `--size`
/// defaults to the drive's capacity. The host's I/O path flags are refused: a job that asked
/// for page-cache reads or polled completions must not get flash reads in virtual time
/// without a word.
fn emu_setup(
    args: &Args,
    spec: TargetSpec,
    trace: Option<&TraceSetup>,
) -> anyhow::Result<(Job, Box<dyn Executor>, FilePlan)> {
    if args.stripe.is_some() {
        return Err(usage(format!(
            "invalid --stripe for {}: a RAID0 stripes block devices; the emulated drive is one drive",
            args.target.display()
        )));
    }
    let host_path = [
        ("--engine", args.engine.is_some()),
        ("--hipri", args.hipri),
        ("--sqpoll", args.sqpoll),
        ("--fixedbufs", args.fixedbufs),
        ("--registerfiles", args.registerfiles),
        ("--buffered", args.buffered),
    ];
    if let Some((flag, _)) = host_path.iter().find(|(_, given)| *given) {
        return Err(usage(format!(
            "invalid {flag} for {}: the emulated drive runs in virtual time, with no host I/O path; drop {flag} (it applies to files and devices)",
            args.target.display()
        )));
    }
    let inputs = io_inputs(args, &spec);
    let access = Access {
        command: Use::Io,
        size: None,
        recreate: args.recreate,
        overwrite: args.overwrite,
        allow_destroy: args.allow_destroy.as_deref(),
        writes: true,
    };
    let Opened::Emu {
        text: target,
        profile,
    } = ssdiq_target::open(spec, &access)?
    else {
        unreachable!("emu_setup is for emulated drives")
    };
    let need = drive_bytes(&profile).map_err(|e| usage(format!("{target}: {e}")))?;
    check_memory(&target, need.total(), "use a smaller capacity")?;
    let exec = EmuExecutor::from_profile(*profile).map_err(engine_usage)?;
    let cap = exec.capacity_bytes();
    let job = args
        .job_flags(trace)
        .job(target.clone(), &|bs| {
            if cap < bs {
                return Err(EngineError::Invalid(format!(
                    "invalid --bs \"{}\": larger than the emulated drive ({})",
                    args.bs,
                    format_size(cap)
                )));
            }
            Ok(cap / bs * bs)
        })
        .map_err(engine_usage)?;
    // Target facts (block size, capacity) before anything runs.
    let job = finish_job(job, trace)?;
    check_io_outputs(args, &inputs)?;
    Ok((job, Box::new(exec), FilePlan::NotAFile))
}

/// What the job reads and its results must not replace: the target, a profile file, the trace.
fn io_inputs(args: &Args, spec: &TargetSpec) -> Vec<PathBuf> {
    let mut inputs = spec.inputs();
    inputs.extend(args.trace.clone());
    inputs
}

/// `--json` and `--log` can be written, and neither replaces the target, a profile or the
/// trace (a read-only job must never replace the file it reads).
fn check_io_outputs(args: &Args, inputs: &[PathBuf]) -> anyhow::Result<()> {
    check_outputs(
        &[
            ("--json", args.json.as_deref()),
            ("--log", args.log.as_deref()),
        ],
        inputs,
    )
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    // Handlers first: a Ctrl-C during setup ends the command at once, nothing written.
    let stop = crate::signals::stop_on_signals()?;
    let target = args.target.to_string_lossy().to_string();
    let spec = TargetSpec::parse(&target).map_err(|e| usage(e.to_string()))?;
    let trace = match &args.trace {
        Some(path) => {
            let bs = parse_size(&args.bs).or_usage()?;
            if bs == 0 {
                return Err(usage(format!("invalid --bs \"{}\": must be > 0", args.bs)));
            }
            Some(
                TraceSetup::new(
                    &args.trace_flags.options(path)?,
                    args.trace_flags.map(MapKind::Direct)?,
                    bs,
                    &args.replay_speed,
                    &args.trace_max_io,
                    ssdiq_target::room(
                        &spec,
                        args.size
                            .as_deref()
                            .map(parse_size)
                            .transpose()
                            .or_usage()?,
                    )?,
                    ssdiq_target::available_memory()?,
                )
                .map_err(trace_error)?,
            )
        }
        None => None,
    };
    let (job, mut exec, plan) = match spec.is_emu() {
        true => emu_setup(&args, spec, trace.as_ref())?,
        false => real_setup(&args, spec, trace.as_ref())?,
    };
    // Until here a Ctrl-C ended the process at once: nothing was written.
    crate::signals::drain_on_signals();
    ssdiq_target::apply(&args.target, plan)?;
    let bars = Bars {
        fill: OnceLock::new(),
        run: OnceLock::new(),
        time_ns: job.bound.time_ns,
    };
    let ctl = RunControl::new(stop.clone(), &bars);
    let result = exec.run(&job, &ctl);
    bars.clear();
    let stats = result.map_err(engine_usage)?;
    let report = stats.report(job.info());
    print!("{}", ssdiq_report::io::text(&report));
    let replay = match (&trace, &job.replay) {
        (Some(t), Some(r)) => Some(t.report(r)),
        _ => None,
    };
    if let Some(r) = &replay {
        print!("{}", ssdiq_report::io::replay_text(r));
    }
    {
        let _both = crate::signals::defer_exit();
        if let Some(path) = &args.json {
            match &replay {
                Some(r) => {
                    let mut doc = serde_json::to_value(&report)?;
                    doc["replay"] = serde_json::to_value(r)?;
                    write_json(path, &doc)?;
                }
                None => write_json(path, &report)?,
            }
        }
        if let Some(path) = &args.log {
            write_csv(path, &report)?;
        }
    }
    // Both decide: a Ctrl-C that lands after the job ended leaves whole results (exit by
    // them), and a job halted by its first failed I/O is partial but was not interrupted.
    if report.partial && ctl.stopped() {
        eprintln!("ssdiq: interrupted; results are partial");
        return Ok(ExitCode::from(130));
    }
    if let Some(first) = report.errors.first.as_ref() {
        eprintln!(
            "ssdiq: error: {} failed I/O(s); the first: {}",
            report.errors.count,
            ssdiq_engine::describe(first)
        );
        return Ok(ExitCode::from(1));
    }
    if let Some(v) = report.verify.as_ref().filter(|v| v.mismatches > 0) {
        eprintln!(
            "ssdiq: error: {}",
            ssdiq_report::io::verify_line(v, &report.job)
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn write_csv(path: &Path, report: &IoReport) -> anyhow::Result<()> {
    write_output(path, ssdiq_report::io::series_csv(report).as_bytes())
}
