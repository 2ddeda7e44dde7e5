//! The `"kind": "run"` result document (schema `ssdiq/1`). Additions are fine; renames need a
//! new schema version.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::latency::OpSummary;

pub const SCHEMA: &str = "ssdiq/1";

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// A datasheet: what the vendor promises. Every field optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub capacity_gb: Option<f64>,
    #[serde(default)]
    pub seq_read_mb_s: Option<f64>,
    #[serde(default)]
    pub seq_write_mb_s: Option<f64>,
    #[serde(default)]
    pub rand_read_kiops: Option<f64>,
    #[serde(default)]
    pub rand_write_kiops: Option<f64>,
    #[serde(default)]
    pub read_lat_us: Option<f64>,
    #[serde(default)]
    pub write_lat_us: Option<f64>,
}

impl Spec {
    /// Every figure by its key, the capacity first.
    pub fn values(&self) -> [(&'static str, Option<f64>); 7] {
        [
            ("capacity_gb", self.capacity_gb),
            ("seq_read_mb_s", self.seq_read_mb_s),
            ("seq_write_mb_s", self.seq_write_mb_s),
            ("rand_read_kiops", self.rand_read_kiops),
            ("rand_write_kiops", self.rand_write_kiops),
            ("read_lat_us", self.read_lat_us),
            ("write_lat_us", self.write_lat_us),
        ]
    }
}

/// The leading rounds of a step in which the drive wrote no more than it was given: they end
/// at the first round whose WAF is over 1.5 (the suite's `summary::free_pool` decides).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FreePool {
    /// What the flash programmed over those rounds (host bytes x round WAF), per second: the
    /// drive's write buffer, which takes the first bytes of a step, is not flash speed.
    pub mb_s: f64,
    /// Their share of the step's time (1: the pool lasted the whole step).
    pub share: f64,
    pub rounds: u32,
}

/// Whether and when a step reached steady state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Convergence {
    pub converged: bool,
    /// Rounds measured.
    pub rounds: u32,
    /// First round of the steady window, if converged.
    pub window_first: Option<u32>,
    /// Drive writes done by the step when it converged (or stopped).
    pub drive_writes: f64,
    /// Drive writes per round (the detector's unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_drive_writes: Option<f64>,
    /// The step's bound in the reference procedure (drive writes), and whether the steady
    /// window ended within it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_drive_writes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_reference: Option<bool>,
    /// Drive writes the step ran to after `--until-steady` extended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extended_to_drive_writes: Option<f64>,
    /// Present when a steady window was found: whether the rounds of the window the step's
    /// value comes from hold within the same bands. `false` makes the step not steady (its
    /// throughput or WAF moved after the first steady window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_window_steady: Option<bool>,
}

/// What was measured of the drive itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetInfo {
    pub name: String,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub serial: Option<String>,
    #[serde(default)]
    pub firmware: Option<String>,
    pub capacity_bytes: u64,
    pub emulated: bool,
    /// Whether the drive reports media writes (OCP C0h or the emulated drive's counters).
    pub reports_media_writes: bool,
    /// `emulated`, `nvme`, `block` or `file`. For a file, WA and OP figures describe the
    /// filesystem stack (file system and the device beneath), not a drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The GC unit the target itself states (the emulated drive's superblock), for checking
    /// what a study infers; `None` where the drive does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_unit_bytes: Option<u64>,
    /// The full-size drive a scaled emulated drive stands for (its profile's `full_capacity`),
    /// where it is scaled: a share of this drive is that share of the full-size one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_capacity_bytes: Option<u64>,
}

/// One per-second (or per-round) point of a step's time series.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    pub t_s: f64,
    pub mb_s: f64,
    pub iops: f64,
    #[serde(default)]
    pub waf: Option<f64>,
}

/// One stream's numbers for one second of a step (the CSV time series). Seconds are of the
/// target's clock (wall or virtual), counted from the start of the step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SecondPoint {
    /// Start of the second, seconds since the step began.
    pub t_s: f64,
    /// `read`, `write`, `probe_read`, `probe_write`, ...
    pub stream: String,
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mb_s: f64,
    pub lat_mean_ns: f64,
    pub lat_p99_ns: u64,
    /// Length of the interval the row covers, seconds (1 unless the step's interval differs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_s: Option<f64>,
    /// The row covers less than a whole interval (the end of a job): its rates are over
    /// `span_s`, and charts and the reference window leave it out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// A step's value as the reference computes it (SSD-iq artifact, `paper/commons_iobl.R` and
/// `paper.R`): per-interval throughput, intervals outside 0.5-1.5x of a 21-interval moving
/// mean dropped, mean over the intervals in 60-99% of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepValue {
    #[serde(default)]
    pub mb_s: Option<f64>,
    #[serde(default)]
    pub iops: Option<f64>,
    /// Whole intervals of the step, those the moving-mean filter dropped, and those the mean
    /// is over.
    pub intervals: u32,
    pub dropped: u32,
    pub used: u32,
    /// Start of the first and end of the last interval used, seconds from the step's start.
    #[serde(default)]
    pub window_s: Option<[f64; 2]>,
    /// Consecutive intervals merged into one row of the rule (1: none), so that every row
    /// holds at least 20 I/Os (short scaled steps with large requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<u32>,
    /// Latency under load: per probe op, the median over the whole probe intervals.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub probes: BTreeMap<String, ProbeValue>,
    /// How the value was obtained, when not by the rule above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Medians over the probe intervals of one probe op (SSD-iq `paper/latency.R`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeValue {
    pub mean_ns: f64,
    #[serde(rename = "p99.9_ns")]
    pub p99_9_ns: f64,
    pub intervals: u32,
}

/// Probe latencies over one interval of latency under load (60 s in the reference).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeInterval {
    pub index: u32,
    pub t_s: f64,
    pub span_s: f64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    pub ops: BTreeMap<String, OpSummary>,
}

/// One figure of Tables 2 and 3 over every sample the run took of it (repetitions, the
/// passes, before and after the write workloads).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub samples: Vec<f64>,
}

/// One sample of the device log (`device.csv`): what the drive said about itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceLogPoint {
    /// Seconds since the run started (target clock).
    pub t_s: f64,
    /// What ran: a step (`pass 1 seq_read before`), `idle`, `init`, `reset`.
    pub phase: String,
    #[serde(default)]
    pub host_bytes: Option<u64>,
    #[serde(default)]
    pub media_bytes: Option<u64>,
    #[serde(default)]
    pub temperature_c: Option<f64>,
    #[serde(default)]
    pub throttling: Option<u8>,
    #[serde(default)]
    pub free_blocks_pct: Option<f64>,
    #[serde(default)]
    pub erase_count_min: Option<u64>,
    #[serde(default)]
    pub erase_count_max: Option<u64>,
    #[serde(default)]
    pub erase_count_avg: Option<f64>,
    /// Media over host bytes since the previous sample at which the media counter moved
    /// (iob's per-second WA); null when it did not move.
    #[serde(default)]
    pub waf: Option<f64>,
    /// Media over host bytes since the pass's reset.
    #[serde(default)]
    pub waf_since_reset: Option<f64>,
}

/// One step of the benchmark (`seq_read`, `rand_write_uniform`, `latency_under_load`, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    pub name: String,
    /// The step was cut short (Ctrl-C, SIGTERM): its figures are over what ran.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
    pub pattern: String,
    pub rw: String,
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
    pub ops: BTreeMap<String, OpSummary>,
    #[serde(default)]
    pub probes: BTreeMap<String, OpSummary>,
    #[serde(default)]
    pub convergence: Option<Convergence>,
    /// Media bytes / host bytes over the steady window, where the drive reports media bytes.
    #[serde(default)]
    pub waf_measured: Option<f64>,
    /// Present when `waf_measured` lags the host: the share of the step's host bytes still in
    /// the drive's write buffer at its end (negative: drained from before it), over 2%, where
    /// the drive tells (the emulated drive). Its counters, like a real drive's, count a write
    /// when it is programmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waf_buffer_lag: Option<f64>,
    /// Sequential write bandwidth / this step's write bandwidth.
    #[serde(default)]
    pub waf_implied: Option<f64>,
    /// The seq_write step while the drive programmed only what the host wrote (its free pool
    /// after the init, or what idle-time GC freed). Absent without media counters, when the
    /// first round already copied data, and when the write buffer took the phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_pool: Option<FreePool>,
    /// One point per measurement round (the steady-state detector's input), `t_s` at the
    /// end of the round.
    #[serde(default)]
    pub series: Vec<SeriesPoint>,
    /// Per-second points of every stream of the step, all rounds concatenated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seconds: Vec<SecondPoint>,
    /// Length of the step (all rounds), seconds of the target's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<f64>,
    /// Rate limit of the main load (latency under load), MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_mb_s: Option<f64>,
    /// Repetition (`--repeat`) and pass (one per write workload) the step ran in, 1-based,
    /// and `before` / `after` the pass's write workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// Length of one interval of `seconds`, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_s: Option<f64>,
    /// The step's value by the reference rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<StepValue>,
    /// Latency under load: probe latencies per interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probe_intervals: Vec<ProbeInterval>,
    /// Wall-clock seconds the step took (on the emulated SSD: what the emulation cost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
}

/// Metrics derived from several steps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Derived {
    /// `1 / (2 * WAF_uniform)`: SSD-iq §4.6, a lower bound.
    pub op_estimate_formula: Option<f64>,
    /// OP at which greedy GC gives the uniform WAF (the simulator's model), a lower bound.
    pub op_estimate_greedy: Option<f64>,
    /// Where the background load for latency under load came from.
    pub load_basis: Option<String>,
    /// The background load of latency under load, MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_mb_s: Option<f64>,
    /// The sequential write bandwidth implied WAF divides (spec, or measured when the run had
    /// no spec), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implied_basis: Option<String>,
    /// Why the implied WA of this run is not a write amplification, where it is not (the
    /// basis is a burst the flash does not sustain, such as an SLC cache's): tables show it
    /// as "n/m" and comparisons leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implied_not_meaningful: Option<String>,
}

/// How the run was done.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub quick: bool,
    pub seed: u64,
    /// Submitting threads of every step in results before the `ssd-iq` protocol; each step
    /// states its own now (`steps[].threads`), and this is 0 and left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub threads: u32,
    /// Sequential preconditioning: bytes written and seconds taken (target clock).
    pub precondition_bytes: u64,
    pub precondition_s: f64,
    /// Whole run, seconds of the target's clock (virtual for the emulated SSD).
    pub elapsed_s: f64,
    /// How the target was reset before preconditioning.
    pub reset: String,
    /// The error that ended the run early, if one did (the steps before it are kept and the
    /// result is marked partial).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The procedure (`ssd-iq`), how often it ran, and its scaling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// Share of the LBA space the run used (`--fill`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_steady: Option<bool>,
    /// Factors on the reference's time bounds (`time_scale`), its idle pauses
    /// (`idle_time_scale`), latency under load's duration and probe interval
    /// (`load_time_scale`), and on drive writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_scale: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_time_scale: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_time_scale: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_write_scale: Option<f64>,
    /// Wall-clock seconds of the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema: String,
    pub kind: String,
    pub target: TargetInfo,
    #[serde(default)]
    pub spec: Option<Spec>,
    pub steps: Vec<StepResult>,
    #[serde(default)]
    pub derived: Derived,
    /// "wall" or "virtual".
    pub clock: String,
    pub partial: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunInfo>,
    /// The figures of Tables 2 and 3, keyed by [`figures`] names.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub figures: BTreeMap<String, Figure>,
    /// The device log (emulated SSD and NVMe drives).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_log: Vec<DeviceLogPoint>,
}

impl RunResult {
    pub fn step(&self, name: &str) -> Option<&StepResult> {
        self.steps.iter().find(|s| s.name == name)
    }

    pub fn figure(&self, key: &str) -> Option<&Figure> {
        self.figures.get(key)
    }
}

/// Keys of [`RunResult::figures`].
pub mod figures {
    pub const SEQ_READ_MB_S: &str = "seq_read_mb_s";
    pub const SEQ_WRITE_MB_S: &str = "seq_write_mb_s";
    /// The seq_write steps' bandwidth while the drive's free pool lasted.
    pub const SEQ_WRITE_FREE_POOL_MB_S: &str = "seq_write_free_pool_mb_s";
    pub const RAND_READ_KIOPS: &str = "rand_read_kiops";
    /// `rand_write_kiops.uniform`, `.twozone`, `.zipf`, `.zipf_heavy` (ssdiq's heavy-skew pass).
    pub const RAND_WRITE_KIOPS: &str = "rand_write_kiops";
    pub const WAF_MEASURED: &str = "waf_measured";
    pub const WAF_IMPLIED: &str = "waf_implied";
    pub const READ_LAT_IDLE_US: &str = "read_lat_idle_us";
    pub const WRITE_LAT_IDLE_US: &str = "write_lat_idle_us";
    pub const READ_LAT_LOAD_AVG_US: &str = "read_lat_load_avg_us";
    pub const READ_LAT_LOAD_P999_US: &str = "read_lat_load_p99.9_us";
    pub const WRITE_LAT_LOAD_AVG_US: &str = "write_lat_load_avg_us";
    pub const WRITE_LAT_LOAD_P999_US: &str = "write_lat_load_p99.9_us";
    /// 1/(2 WAF) and the greedy-model OP, from the uniform workload's WAF.
    pub const OP_ESTIMATE: &str = "op_estimate";
    pub const OP_ESTIMATE_GREEDY: &str = "op_estimate_greedy";
    /// The write burst after idle: MiB written before a millisecond's average write latency
    /// first exceeds 4 times the first millisecond's (the write buffer filling).
    pub const WRITE_BURST_FAST_MIB: &str = "write_burst_fast_mib";
    /// The map reads: QD1 4 KiB random reads over the first 1/k of the drive, mean latency
    /// (`map_read_us.1/256` ... `map_read_us.1/1`).
    pub const MAP_READ_US: &str = "map_read_us";
    /// The sequential init on the freshly reset drive (not in the paper's tables): the media
    /// over the host bytes from the reset to the end of the idle pause after the init (an SLC
    /// cache's folds, a DRAM-less drive's map writes), where the drive counts media writes.
    pub const INIT_WAF: &str = "init_waf";
    /// The sequential init's host bytes over its time, MB/s.
    pub const INIT_MB_S: &str = "init_mb_s";

    /// `rand_write_kiops.uniform` etc.
    pub fn of(metric: &str, workload: &str) -> String {
        format!("{metric}.{workload}")
    }
}

/// Canonical step names shared by the suite and the renderers.
pub mod steps {
    pub const SEQ_READ: &str = "seq_read";
    pub const SEQ_WRITE: &str = "seq_write";
    pub const RAND_READ: &str = "rand_read";
    pub const RAND_WRITE_UNIFORM: &str = "rand_write_uniform";
    pub const RAND_WRITE_TWOZONE: &str = "rand_write_twozone";
    pub const RAND_WRITE_ZIPF: &str = "rand_write_zipf";
    /// Not in the paper: a pass of its own after the protocol's last (reset, sequential init,
    /// then 4 KiB random writes under Zipf 1.1): the heavy skew at which GC policies part
    /// (greedy against cost-benefit), which the paper's TwoZ 80/20 and Zipf 0.8 barely tell
    /// apart (`ssdiq fit`).
    pub const RAND_WRITE_ZIPF_HEAVY: &str = "rand_write_zipf_heavy";
    pub const LATENCY_UNDER_LOAD: &str = "latency_under_load";
    /// QD1 latency on an otherwise idle drive (the reference's `read-lat` / `write-lat`).
    pub const READ_LATENCY: &str = "read_latency";
    pub const WRITE_LATENCY: &str = "write_latency";
    /// Not in the paper: 4 KiB random writes at QD 32 right after an idle pause, timed per
    /// millisecond, which shows how much the drive takes before its write buffer is full.
    pub const WRITE_BURST: &str = "write_burst";
    /// Not in the paper: after the burst and an idle pause, QD1 4 KiB random reads over the
    /// first 1/k of the drive for k = 256 ... 1 (`map_read_1/256` ...): a DRAM-less drive's
    /// map cache shows as a rise in latency once the span outgrows what it covers.
    pub const MAP_READS: [(&str, u32); 7] = [
        ("map_read_1/256", 256),
        ("map_read_1/64", 64),
        ("map_read_1/16", 16),
        ("map_read_1/8", 8),
        ("map_read_1/4", 4),
        ("map_read_1/2", 2),
        ("map_read_1/1", 1),
    ];
}
