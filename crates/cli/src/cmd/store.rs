//! `ssdiq store [TARGET]`: the out-of-place page store of "How to Write to SSDs" under YCSB-A
//! or a page-level pattern; DB WAF, SSD WAF, total WAF and the paper's other Table 1 columns.
//!
//! Order: parse and validate everything, open the device and pass the safety checks (bad
//! input: one line, exit 2, nothing written) -> for each row: reset the device
//! (`store_reset`), load, warm up, measure ->
//! table on stdout, JSON and HTML written to a temporary name and renamed. SIGINT/SIGTERM end
//! the running row early; what was measured is written, marked partial (exit 130).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use ssdiq_store::device::emu::{EmuDevice, EmuMode};
use ssdiq_store::device::file::FileDevice;
use ssdiq_store::device::nvme::NvmeDevice;
use ssdiq_store::experiment::{self, Outcome};
use ssdiq_store::flags::{self, StoreFlags};
use ssdiq_store::rows::{self, Row};
use ssdiq_store::{configure, BackendChoice, Derived, Options};
use ssdiq_store::{DataMode, Device, DeviceInfo, OpStream, Store, StoreConfig, Workload};
use ssdiq_workload::units::{format_size, parse_duration_ns};

use super::run_target::DriveArgs;
use crate::error::{usage, OrUsage};
use crate::output::check_outputs;
use ssdiq_emu::TargetSpec;
use ssdiq_report::store as store_page;
use ssdiq_schema::{StoreDoc, StoreRow};
use ssdiq_target::check_memory;
use ssdiq_target::{Access, FilePlan, Opened, Use};

/// The emulated drive `ssdiq store` uses by default: the paper's drive (PM9A3) scaled to 8 GiB,
/// so the data plane fits in memory. Its buffer programs every write it accepts, as the paper's
/// in-place SSD WAF of 2.36 on that drive says (docs/store.md).
pub const DEFAULT_TARGET: &str = "emu:pm9a3,capacity=8GiB";

#[derive(clap::Args)]
#[command(
    about = "Run the out-of-place page store (How to Write to SSDs): DB WAF, SSD WAF, total WAF",
    after_help = "Examples:\n  ssdiq store --rows table1 --json t1.json --html t1.html\n  ssdiq store --compression --gdt --nowa --align-gc-unit\n  ssdiq store --in-place --pattern zipf:0.8\n  ssdiq store /tmp/db.img --size 1G --compression --measure-ops 1M\n  ssdiq store /dev/nvme1n1 --backend fdp --compression --gdt --align-gc-unit --allow-destroy /dev/nvme1n1\n\n\
Rows (--rows, comma-separated or a table): in-place, oop, comp, gdt, nowa, aligned, nocomp,\n\
fdp, zns; table1 = in-place,oop,comp,gdt,nowa,aligned,nocomp (the paper's Table 1 order,\n\
each row adding its technique), table2 = in-place,aligned,zns, table3 = in-place,aligned,fdp.\n\
Without --rows the flags describe one configuration.\n\n\
On the emulated SSD (TARGET emu:..., default emu:pm9a3,capacity=8GiB)\n\
time is virtual: --workers operations run concurrently, each costing --op-cpu plus the I/O it\n\
waits for. With --data bytes the data is kept in memory (about the dataset size); --data model\n\
keeps none and runs the same decisions on modelled page sizes."
)]
pub struct Args {
    /// emu:PROFILE[,key=value...], a file (with --size), a block device or an NVMe namespace.
    #[arg(default_value = DEFAULT_TARGET)]
    target: String,
    /// Run these rows (see below) instead of one configuration.
    #[arg(long)]
    rows: Option<String>,
    /// Write pages in place with a double-write buffer (the paper's baseline).
    #[arg(long)]
    in_place: bool,
    /// In place without the double-write buffer.
    #[arg(long, requires = "in_place")]
    no_dwb: bool,
    /// LZ4-compress pages and pack them into 4 KiB slots.
    #[arg(long)]
    compression: bool,
    /// Place pages by estimated death time (GDT).
    #[arg(long)]
    gdt: bool,
    /// The NoWA write pattern with compensation writes.
    #[arg(long)]
    nowa: bool,
    /// Align zones to the drive's GC unit (the emulated drive's superblock, an FDP reclaim
    /// unit), or to the SIZE given (e.g. from a ZNS-like pattern, paper §5.3).
    #[arg(long, value_name = "SIZE", num_args = 0..=1, default_missing_value = "device")]
    align_gc_unit: Option<String>,
    /// Zone size (the DB GC unit) when not aligned [default: the paper's 250 MiB zone as its
    /// share of the paper's 894 GiB drive: about 2.2 MiB on the default 8 GiB drive].
    #[arg(long)]
    zone: Option<String>,
    /// Zones appended at once (the active group).
    #[arg(long, default_value_t = 16)]
    open_zones: u32,
    /// conventional, fdp (placement handle per zone) or zns (zone append and reset).
    #[arg(long, default_value = "conventional")]
    backend: String,
    /// Reclaim unit handles of the emulated drive with --backend fdp.
    #[arg(long, default_value_t = 8)]
    fdp_handles: u16,
    /// Deallocate a zone's LBAs when DB GC resets it (conventional devices).
    #[arg(long)]
    trim_on_reset: bool,
    /// Start each row on the device as the last row (or run) left it. By default a block
    /// device is reset before each row as `ssdiq run` resets it (sanitize or format when
    /// that reaches only this namespace, then every LBA discarded), and a file is emptied:
    /// zones aligned to the GC unit line up with the drive's superblocks only from a reset.
    #[arg(long)]
    pub(super) no_reset: bool,
    /// Dataset size as a fraction of the device capacity.
    #[arg(long, default_value = "0.9")]
    fill: String,
    /// Buffer pool as a fraction of the dataset (like 10%) or a size.
    #[arg(long, default_value = "10%")]
    buffer: String,
    /// Dirty pages written per eviction batch.
    #[arg(long, default_value_t = 64)]
    batch: u32,
    /// YCSB-A's Zipf theta over records (the default workload).
    #[arg(long, default_value = "0.8")]
    theta: String,
    /// Page-level workload instead of YCSB: any access pattern (uniform, zipf:0.8, ...).
    #[arg(long)]
    pattern: Option<String>,
    /// Fraction of operations that read (YCSB-A: 0.5).
    #[arg(long, default_value = "0.5")]
    read_fraction: String,
    /// Records per 4 KiB page (LeanStore's half-full leaves hold about 14).
    #[arg(long, default_value_t = 14)]
    records_per_page: u32,
    /// Compressibility of the page contents: page size / mean LZ4 size (1: incompressible).
    #[arg(long, default_value = "2")]
    data_ratio: String,
    /// Warm-up: bytes the store writes, in device capacities (like 3) or a size.
    #[arg(long, default_value = "3")]
    warmup: String,
    /// Measured window: bytes the store writes, in device capacities or a size.
    #[arg(long, default_value = "1")]
    measure: String,
    /// Measure this many operations instead (like 1M).
    #[arg(long)]
    measure_ops: Option<String>,
    /// Concurrent workers on the emulated SSD.
    #[arg(long, default_value_t = 64)]
    workers: u32,
    /// CPU time of one operation on the emulated SSD (virtual).
    #[arg(long, default_value = "1us")]
    op_cpu: String,
    /// Do not keep and check each page's last version (saves 4 bytes per page).
    #[arg(long)]
    no_verify: bool,
    /// Page contents: bytes (generated, LZ4-compressed, written, read back and checked) or
    /// model (emulated SSD only: no contents and no data kept; stored sizes from a compression
    /// model calibrated against LZ4 on the same pages; the same placement, GC and device
    /// requests; several times faster).
    #[arg(long, default_value = "bytes", value_name = "MODE")]
    data: String,
    /// With --data bytes and compression: also ask the size model for every page written
    /// and report it against LZ4's real sizes on this run.
    #[arg(long)]
    check_model: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    pub(super) drive: DriveArgs,
    /// Write the result as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the result as an HTML page.
    #[arg(long)]
    html: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long)]
    quiet: bool,
}

impl Args {
    /// The configuration's flags as text, for `StoreFlags` to parse.
    fn flags(&self) -> StoreFlags<'_> {
        StoreFlags {
            in_place: self.in_place,
            no_dwb: self.no_dwb,
            compression: self.compression,
            gdt: self.gdt,
            nowa: self.nowa,
            align_gc_unit: self.align_gc_unit.as_deref(),
            zone: self.zone.as_deref(),
            open_zones: self.open_zones,
            backend: &self.backend,
            fdp_handles: self.fdp_handles,
            trim_on_reset: self.trim_on_reset,
            fill: &self.fill,
            buffer: &self.buffer,
            batch: self.batch,
            theta: &self.theta,
            pattern: self.pattern.as_deref(),
            read_fraction: &self.read_fraction,
            records_per_page: self.records_per_page,
            data_ratio: &self.data_ratio,
            warmup: &self.warmup,
            measure: &self.measure,
            measure_ops: self.measure_ops.as_deref(),
            workers: self.workers,
            no_verify: self.no_verify,
            data: &self.data,
            check_model: self.check_model,
            seed: self.seed,
        }
    }
}

/// How a row's backend opens the emulated drive.
fn emu_mode(a: &Args, o: &Options) -> EmuMode {
    match o.backend {
        BackendChoice::Conventional => EmuMode::Conventional,
        BackendChoice::Fdp => EmuMode::Fdp {
            handles: a.fdp_handles,
        },
        BackendChoice::Zns => EmuMode::Zoned {
            max_open: o.open_zones.min(u16::MAX as u32) as u16,
        },
    }
}

/// Usage error unless a row fits in the memory available: the store's tables and, on an
/// emulated drive, the drive with its data plane (rows run one at a time).
fn check_row_memory(a: &Args, spec: &TargetSpec, p: &Prepared) -> anyhow::Result<()> {
    check_memory(
        &format!("row {} on {}", p.name, a.target),
        ssdiq_store::memory::store_bytes(&p.config) + emu_device_bytes(a, spec, &p.options)?,
        if spec.is_emu() {
            EMU_MEMORY_HINT
        } else {
            "use a smaller --buffer"
        },
    )
}

const EMU_MEMORY_HINT: &str = "use a smaller capacity, --data model, or a smaller --buffer";

/// What the emulated drive of a row takes (0 for other targets).
fn emu_device_bytes(a: &Args, spec: &TargetSpec, o: &Options) -> anyhow::Result<u64> {
    let Some(profile) = spec.profile() else {
        return Ok(0);
    };
    EmuDevice::estimate_bytes(
        &a.target,
        profile.clone(),
        emu_mode(a, o),
        o.data == DataMode::Bytes,
    )
    .map_err(|e| usage(e.to_string()))
}

/// Opens the device a row runs on; the target passed `ssdiq_target::open` in [`main`].
pub(super) fn open_device(
    a: &Args,
    spec: &TargetSpec,
    o: &Options,
    plan: FilePlan,
) -> anyhow::Result<Box<dyn Device>> {
    let dev_usage = |e: ssdiq_store::DeviceError| -> anyhow::Error {
        if e.is_usage() {
            usage(e.to_string())
        } else {
            e.into()
        }
    };
    let path = match spec {
        TargetSpec::Emu { profile, .. } => {
            return Ok(Box::new(
                EmuDevice::with_profile(
                    &a.target,
                    (**profile).clone(),
                    emu_mode(a, o),
                    o.data == DataMode::Bytes,
                )
                .map_err(dev_usage)?,
            ))
        }
        TargetSpec::Path(path) => path,
    };
    let size = match plan {
        FilePlan::Create(s) | FilePlan::Recreate(s) => Some(s),
        _ => a.drive.size_bytes()?,
    };
    Ok(match o.backend {
        BackendChoice::Conventional => Box::new(FileDevice::open(path, size).map_err(dev_usage)?),
        BackendChoice::Fdp => {
            let mut d = NvmeDevice::open_fdp(path).map_err(dev_usage)?;
            if let Some(s) = size {
                d.limit(s).map_err(dev_usage)?;
            }
            Box::new(d)
        }
        BackendChoice::Zns => {
            let mut d = NvmeDevice::open_zoned(path).map_err(dev_usage)?;
            if let Some(s) = size {
                d.limit(s).map_err(dev_usage)?;
            }
            d.reset_all_zones().map_err(dev_usage)?;
            Box::new(d)
        }
    })
}

/// Everything a row needs, checked before anything runs.
struct Prepared {
    name: String,
    options: Options,
    config: StoreConfig,
    derived: Derived,
    /// None while validating a file target that is still to be created or recreated.
    device: Option<Box<dyn Device>>,
    /// What the device reports (or a planned file will).
    info: DeviceInfo,
}

/// Superblocks that hold fewer of the in-place store's write cycles than this put its SSD WAF
/// off the full-size drive's (docs/store.md: 2.64 with 3 MiB superblocks, 6 cycles; 2.40 with
/// 12 MiB, 24; 2.34 with 48 MiB; the paper 2.36 with gigabytes).
const CYCLES_PER_SUPERBLOCK: u64 = 16;

/// One line where an in-place row's double-write cycle (the copy of a batch into the
/// double-write area, then the batch's page writes) is large against the emulated drive's
/// superblock: at full size a superblock holds thousands of cycles, here a few, and how they
/// fall on it moves the SSD WAF (upward with the defaults).
fn small_superblock_note(a: &Args, first: &Prepared, opts: &[Options]) -> Option<String> {
    let info = &first.info;
    let superblock = info.gc_unit.filter(|_| info.virtual_time)?;
    if !opts.iter().any(|o| !o.out_of_place && o.dwb) {
        return None;
    }
    let cycle = 2 * a.batch as u64 * 4096;
    let cycles = superblock / cycle.max(1);
    (cycles < CYCLES_PER_SUPERBLOCK).then(|| {
        format!(
            "note: the emulated drive's superblocks ({}) hold {cycles} of the in-place store's double-write cycles ({}: a batch copied to the double-write area, then written in place); at full size they hold thousands, so in-place SSD WAF reads high here (PM9A3: 2.64 with 3 MiB superblocks against 2.34 with 48 MiB; the paper 2.36): a larger capacity, 8GiB or more, is nearer",
            format_size(superblock),
            format_size(cycle)
        )
    })
}

/// Checks (and, unless `dry`, opens) the device of a row. `dry` validates a file target
/// still to be created or recreated against the size it will have, without touching it.
fn prepare(
    a: &Args,
    spec: &TargetSpec,
    name: &str,
    o: &Options,
    dataset: Option<u64>,
    plan: FilePlan,
    dry: bool,
) -> anyhow::Result<Prepared> {
    let (device, info) = match (plan, dry) {
        (FilePlan::Create(size) | FilePlan::Recreate(size), true) => {
            (None, planned_file_info(&a.target, size))
        }
        _ => {
            // The drive alone must fit before it is built; the row as a whole is checked
            // once its configuration is known (check_row_memory). The dry pass over every
            // row comes first, so the run's own pass need not check again.
            if dry {
                check_memory(
                    &format!("the drive of row {name} ({})", a.target),
                    emu_device_bytes(a, spec, o)?,
                    EMU_MEMORY_HINT,
                )?;
            }
            let d = open_device(a, spec, o, plan)?;
            let info = d.info().clone();
            // A dry run opens the device for its facts only: let it go at once.
            (if dry { None } else { Some(d) }, info)
        }
    };
    let mut o = o.clone();
    if let Some(pages) = dataset {
        // Same dataset in bytes as the first row (the paper compares at equal DB size).
        o.fill = (pages as f64 + 0.5) * 4096.0 / info.capacity as f64;
    }
    o.buffer = a.flags().buffer_share(o.fill, info.capacity).or_usage()?;
    let (config, derived) =
        configure(&o, &info).map_err(|e| usage(format!("{name}: {e} ({})", info.description)))?;
    a.flags()
        .phases(info.capacity, info.virtual_time, 0)
        .or_usage()?;
    Ok(Prepared {
        name: name.to_string(),
        options: o,
        config,
        derived,
        device,
        info,
    })
}

/// What a regular file of `size` bytes will report once created (conventional, 4 KiB
/// blocks), so rows are checked before the file is touched.
fn planned_file_info(target: &str, size: u64) -> DeviceInfo {
    DeviceInfo {
        description: format!("{target} (file of {})", format_size(size)),
        capacity: size / 4096 * 4096,
        zoned: None,
        streams: 1,
        gc_unit: None,
        virtual_time: false,
        keeps_data: true,
    }
}

/// Checks the target with `ssdiq_target::open` (an existing file is refused without
/// --recreate, as `run` does), before anything is written. FDP and ZNS need an NVMe
/// namespace, never a file.
fn file_plan(a: &Args, spec: &TargetSpec, rows: &[Options]) -> anyhow::Result<FilePlan> {
    let access = Access {
        command: Use::Store,
        size: a.drive.size_bytes()?,
        recreate: a.drive.recreate,
        overwrite: false,
        allow_destroy: a.drive.allow_destroy.as_deref(),
        writes: true,
    };
    let (path, plan) = match ssdiq_target::open(spec.clone(), &access)? {
        Opened::Emu { .. } => return Ok(FilePlan::NotAFile),
        Opened::Path { path, plan } => (path, plan),
    };
    let namespace_only = rows
        .iter()
        .find(|o| o.backend != BackendChoice::Conventional);
    if let (false, Some(o)) = (plan == FilePlan::NotAFile, namespace_only) {
        return Err(usage(format!(
            "invalid --backend {}: {} is a regular file; FDP and ZNS need an NVMe namespace that supports them",
            if o.backend == BackendChoice::Fdp {
                "fdp"
            } else {
                "zns"
            },
            path.display()
        )));
    }
    Ok(plan)
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    a.flags().check_ranges().or_usage()?;
    let spec = TargetSpec::parse(&a.target).map_err(|e| usage(e.to_string()))?;
    let base = a.flags().options(&a.target, spec.is_emu()).or_usage()?;
    let work = a.flags().workload().or_usage()?;
    let op_cpu_ns = parse_duration_ns(&a.op_cpu)
        .map_err(|e| usage(format!("invalid --op-cpu \"{}\": {}", a.op_cpu, e.reason)))?;
    let outputs = [("--json", a.json.as_deref()), ("--html", a.html.as_deref())];
    check_outputs(&outputs, &spec.inputs())?;
    let names = match &a.rows {
        Some(r) => {
            let v = rows::expand(r);
            if v.is_empty() {
                return Err(usage(format!("invalid --rows \"{r}\": no row named")));
            }
            v
        }
        None => vec!["custom".to_string()],
    };
    let mut opts = Vec::new();
    for n in &names {
        opts.push(if n == "custom" {
            base.clone()
        } else {
            flags::row_options(n, &base).or_usage()?
        });
    }
    // Validate every row before anything runs; each row then opens its device afresh (an
    // emulated drive holds its data in memory, a block device is opened exclusively).
    OpStream::new(&work, 1, a.records_per_page, a.seed).map_err(usage)?;
    let plan = file_plan(&a, &spec, &opts)?;
    let first = prepare(&a, &spec, &names[0], &opts[0], None, plan, true)?;
    check_row_memory(&a, &spec, &first)?;
    if !a.quiet {
        if let Some(note) = small_superblock_note(&a, &first, &opts) {
            eprintln!("{note}");
        }
    }
    let dataset = (names.len() > 1).then_some(first.config.pages);
    drop(first);
    for (n, o) in names.iter().zip(&opts).skip(1) {
        check_row_memory(&a, &spec, &prepare(&a, &spec, n, o, dataset, plan, true)?)?;
    }
    // Every row is valid: now the file target may be emptied (created by the first row).
    ssdiq_target::apply(Path::new(&a.target), plan)?;
    let stop = crate::signals::stop_on_signals()?;
    crate::signals::drain_on_signals();
    let mut result = StoreDoc::new(&a.target, &work);
    let mut interrupted = false;
    for (i, (n, o)) in names.iter().zip(&opts).enumerate() {
        let reset = super::store_reset::before_row(&a, &spec, o, plan)?;
        let p = prepare(
            &a,
            &spec,
            n,
            o,
            if i == 0 { None } else { dataset },
            plan,
            false,
        )?;
        let row = run_row(&a, p, reset, &work, op_cpu_ns, &stop, (i + 1, names.len()))?;
        let partial = row.outcome.partial;
        if !a.quiet {
            eprintln!("{}", store_page::row_line(&row));
        }
        result.rows.push(row);
        if partial {
            interrupted = true;
            break;
        }
    }
    result.partial = interrupted;
    result.paper = result
        .rows
        .iter()
        .filter_map(|r| Row::parse(&r.name).map(|p| (r.name.clone(), p.paper())))
        .collect();
    print!("{}", store_page::render_text(&result));
    {
        // Both files or a Ctrl-C waits.
        let _both = crate::signals::defer_exit();
        if let Some(p) = &a.json {
            crate::output::write_json(p, &result)?;
        }
        if let Some(p) = &a.html {
            crate::output::write_output(p, store_page::render_html(&result).as_bytes())?;
        }
    }
    if interrupted {
        eprintln!("ssdiq: interrupted; results are partial");
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_row(
    a: &Args,
    p: Prepared,
    reset: String,
    work: &Workload,
    op_cpu_ns: u64,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    (k, rows): (usize, usize),
) -> anyhow::Result<StoreRow> {
    let device = p.device.expect("rows run on an opened device");
    let info = device.info().clone();
    let cap = info.capacity;
    let phases = a
        .flags()
        .phases(cap, info.virtual_time, op_cpu_ns)
        .or_usage()?;
    let mut ops = OpStream::new(work, p.config.pages, a.records_per_page, a.seed).map_err(usage)?;
    let mut store = Store::new(p.config.clone(), device).map_err(|e| {
        if e.is_usage() {
            usage(format!("{}: {e}", p.name))
        } else {
            e.into()
        }
    })?;
    if a.check_model {
        store.shadow_size_model();
    }
    let label = if rows > 1 {
        format!("row {k} of {rows}, {}", p.name)
    } else {
        p.name.clone()
    };
    let mut show = super::store_progress::RowProgress::new(&label, a.quiet);
    let out: Outcome = experiment::run(
        &mut store,
        &mut ops,
        &phases,
        &|| stop.load(Ordering::Relaxed),
        &mut |phase, c| show.update(phase, c.ops),
    )
    .map_err(|e| {
        if e.is_usage() {
            usage(format!("{}: {e}", p.name))
        } else {
            anyhow::anyhow!("{}: {e}", p.name)
        }
    })?;
    show.finish(out.partial);
    let zone_size = p
        .derived
        .zone_bytes
        .map(format_size)
        .unwrap_or_else(|| "-".into());
    Ok(StoreRow {
        name: p.name,
        options: p.options,
        config: p.config,
        derived: p.derived,
        device: info,
        zone_size,
        reset,
        outcome: out,
    })
}
