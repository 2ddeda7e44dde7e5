//! The `"kind": "store"` document of `ssdiq store`: what a user chose, what the store
//! configured from it and the device, what happened, and the paper's figures beside each row.
//! The store crate produces these (and re-exports them where it defines their behaviour).

use serde::Serialize;

/// What the operations are.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    Ycsb { theta: f64, read_fraction: f64 },
    Pages { pattern: String, read_fraction: f64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BackendChoice {
    Conventional,
    Fdp,
    Zns,
}

/// What a user chooses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Options {
    pub out_of_place: bool,
    pub dwb: bool,
    pub compression: bool,
    pub gdt: bool,
    pub nowa: bool,
    /// Align zones to the device's GC unit: Some(Some(u)) to `u` bytes, Some(None) to the unit
    /// the device reports.
    pub align: Option<Option<u64>>,
    pub zone: Option<u64>,
    pub open_zones: u32,
    pub backend: BackendChoice,
    /// Dataset / device capacity.
    pub fill: f64,
    /// Buffer pool / dataset.
    pub buffer: f64,
    pub evict_batch: u32,
    pub records_per_page: u32,
    pub data_ratio: f64,
    pub gdt_groups: u32,
    pub trim_on_reset: bool,
    pub verify: bool,
    pub seed: u64,
    pub data: DataMode,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            out_of_place: true,
            dwb: true,
            compression: false,
            gdt: false,
            nowa: false,
            align: None,
            zone: None,
            open_zones: 16,
            backend: BackendChoice::Conventional,
            fill: 0.9,
            buffer: 0.1,
            evict_batch: 64,
            records_per_page: 14,
            data_ratio: 2.0,
            gdt_groups: 2,
            trim_on_reset: false,
            verify: true,
            seed: 1,
            data: DataMode::Bytes,
        }
    }
}

/// What the store's `setup::configure` decided besides the configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Derived {
    pub zone_bytes: Option<u64>,
    pub gc_unit: Option<u64>,
    pub aligned: bool,
}

/// Whether pages have contents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DataMode {
    /// Real contents: generated, checksummed, LZ4-compressed, written, read back and checked.
    #[default]
    Bytes,
    /// No contents: stored sizes from the compression model calibrated against real LZ4 on
    /// the same generated pages; the device (the emulated SSD without its data plane) takes
    /// requests by length.
    Model,
}

/// Where pages live on the device.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Page `pid` at byte pid x 4 KiB; with `dwb`, every batch is first written to a
    /// double-write area after the data.
    InPlace { dwb: bool },
    OutOfPlace {
        space: SpaceConfig,
        compression: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoreConfig {
    /// Pages in the dataset.
    pub pages: u64,
    /// Buffer pool frames.
    pub frames: u32,
    /// Dirty pages written per eviction batch.
    pub evict_batch: u32,
    pub records_per_page: u32,
    /// How much the page contents compress with LZ4 (page size / mean compressed size).
    pub data_ratio: f64,
    pub layout: Layout,
    /// Keep each page's last version and check it on every read (bytes mode).
    pub verify: bool,
    pub seed: u64,
    pub data: DataMode,
}

/// How writes reach the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    Conventional,
    Fdp { handles: u16 },
    Zns,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpaceConfig {
    /// Distance between zone starts.
    pub zone_bytes: u64,
    /// Writable bytes per zone (a multiple of 4 KiB, <= zone_bytes).
    pub zone_capacity: u64,
    pub zones: u32,
    /// Zones appended at once (the active group size).
    pub max_open: u32,
    /// GDT with this many EDT groups per batch; None: random placement.
    pub gdt: Option<u32>,
    pub nowa: bool,
    pub backend: Backend,
    /// Deallocate a victim's LBAs before it is rewritten (conventional drives only).
    pub trim_on_reset: bool,
    pub seed: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SpaceCounters {
    pub load_slots: u64,
    pub user_slots: u64,
    /// Slots written by DB GC (compensation included).
    pub gc_slots: u64,
    pub compensation_slots: u64,
    pub gc_pages_moved: u64,
    /// Valid pages of victims left to their (dirty, resident) buffer frame.
    pub gc_pages_in_memory: u64,
    pub gc_read_bytes: u64,
    pub gc_rounds: u64,
    pub victims: u64,
    pub compensation_victims: u64,
    /// Sum over victims of valid / written pages at selection (the valid ratio numerator and
    /// denominator).
    pub victim_valid_pages: u64,
    pub victim_pages: u64,
    pub zone_resets: u64,
    pub groups_recorded: u64,
}

/// Zones of a zoned device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ZoneGeometry {
    /// Distance between zone starts.
    pub zone_bytes: u64,
    /// Writable bytes of each zone (<= zone_bytes).
    pub zone_capacity: u64,
    pub zones: u32,
    /// Zones that may be open at once (0: no limit).
    pub max_open: u32,
}

/// What the store needs to know about a device.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceInfo {
    /// One line for reports, e.g. "emulated data-center TLC, 2GiB, 12% OP, greedy GC".
    pub description: String,
    /// Usable bytes from offset 0.
    pub capacity: u64,
    pub zoned: Option<ZoneGeometry>,
    /// Placement handles (1: writes carry no placement).
    pub streams: u16,
    /// The device's GC unit (superblock / reclaim unit) if it is known: the emulated drive's
    /// superblock, an FDP reclaim unit.
    pub gc_unit: Option<u64>,
    /// True if the device's clock is virtual (the emulated SSD).
    pub virtual_time: bool,
    /// False for a model device: requests carry lengths, not bytes.
    pub keeps_data: bool,
}

/// Bytes the store wrote, by purpose (the paper's write drilldown, Figure 13b).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Drilldown {
    pub user_bytes: u64,
    pub double_write_bytes: u64,
    /// DB GC relocation, compensation writes included.
    pub db_gc_bytes: u64,
    /// NoWA compensation writes (a part of `db_gc_bytes`).
    pub compensation_bytes: u64,
    /// Media bytes beyond host bytes (SSD GC), if the device reports media bytes.
    pub ssd_gc_bytes: Option<u64>,
}

/// The measured window.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub ops: u64,
    /// Virtual seconds on the emulated SSD, wall seconds otherwise.
    pub seconds: f64,
    pub ops_per_s: f64,
    pub db_waf: f64,
    pub ssd_waf: Option<f64>,
    pub total_waf: Option<f64>,
    pub logical_bytes_per_op: f64,
    pub physical_bytes_per_op: Option<f64>,
    pub hit_ratio: f64,
    pub user_pages: u64,
    /// Mean stored size of a user-written page / 4 KiB (compression).
    pub compressed_fraction: f64,
    /// Mean valid fraction of DB GC victims when chosen.
    pub victim_valid_ratio: Option<f64>,
    pub gc_rounds: u64,
    pub compensation_victims: u64,
    pub host_bytes: Option<u64>,
    pub media_bytes: Option<u64>,
    pub read_bytes_per_op: f64,
    /// Emulated SSD: the mean fraction of its write buffer in use when a write arrived. A
    /// buffer that stays full keeps every page long enough for rewrites to be absorbed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drive_buffer_fill: Option<f64>,
    pub drilldown: Drilldown,
}

/// The model against real LZ4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Calibration {
    /// What was compared: "drawn pages" (pages the model was not built from, with headers
    /// drawn as a run makes them) or "run writes" (every user write of a bytes-mode run).
    pub basis: &'static str,
    /// Page writes compared.
    pub pages: u64,
    /// Patterns (level and key structure) measured, and LZ4 compressions of whole sample
    /// pages they took.
    pub patterns: u64,
    pub compressions: u64,
    pub real_mean_bytes: f64,
    pub model_mean_bytes: f64,
    pub real_sd_bytes: f64,
    pub model_sd_bytes: f64,
    /// 4 KiB slots per page written (packed in the run's batches, or in batches of 64).
    pub real_slots_per_page: f64,
    pub model_slots_per_page: f64,
}

/// What happened in a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    pub metrics: Metrics,
    pub load_wall_s: f64,
    pub warmup_ops: u64,
    /// Wall seconds of the whole run and of the measured window alone.
    pub wall_s: f64,
    pub measure_wall_s: f64,
    /// CPU seconds of the thread that ran the store (one core): the whole run and the
    /// measured window.
    pub cpu_s: f64,
    pub measure_cpu_s: f64,
    /// Stopped early (signal): the window is shorter than asked.
    pub partial: bool,
    pub metadata_bytes: u64,
    /// (groups with live data, imbalanced groups) at the end (NoWA bookkeeping).
    pub groups: (u64, u64),
    /// The space manager's counters over the whole run (load and warm-up included).
    pub space_totals: Option<SpaceCounters>,
    /// The size model against real LZ4 (model mode with compression; bytes mode if the
    /// store shadowed its writes with the model).
    pub size_model: Option<Calibration>,
}

/// The paper's numbers for a row (Table 1: YCSB-A, 800 GB on a PM9A3; Tables 2 and 3 where
/// the row is theirs). Reference values, not measurements.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PaperRow {
    pub table: &'static str,
    pub ops_k: f64,
    pub db_waf: Option<f64>,
    pub ssd_waf: Option<f64>,
    pub logical_bytes_per_op: Option<f64>,
    pub physical_bytes_per_op: Option<f64>,
    pub hit_ratio: Option<f64>,
}

/// One row of a store run: its options, the configuration and device they gave, the outcome.
#[derive(Serialize)]
pub struct StoreRow {
    pub name: String,
    pub options: Options,
    pub config: StoreConfig,
    pub derived: Derived,
    pub device: DeviceInfo,
    pub zone_size: String,
    /// What returned the device to a known state before the row: the emulated drive is built
    /// anew, a block device is reset as `ssdiq run` resets it, a zoned one has its zones reset.
    pub reset: String,
    pub outcome: Outcome,
}

/// `{"schema": SCHEMA, "kind": "store", ...}`.
#[derive(Serialize)]
pub struct StoreDoc {
    pub schema: &'static str,
    pub kind: &'static str,
    pub target: String,
    pub workload: Workload,
    pub partial: bool,
    pub rows: Vec<StoreRow>,
    /// The paper's numbers for the rows that have them (reference values).
    pub paper: Vec<(String, PaperRow)>,
}

impl StoreDoc {
    pub fn new(target: &str, w: &Workload) -> Self {
        StoreDoc {
            schema: crate::SCHEMA,
            kind: "store",
            target: target.to_string(),
            workload: w.clone(),
            partial: false,
            rows: Vec::new(),
            paper: Vec::new(),
        }
    }
}
