//! The `"kind": "run"` result document (schema `ssdiq/1`). Additions are fine; renames need a
//! new schema version.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::latency::OpSummary;

pub const SCHEMA: &str = "ssdiq/1";

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
}

/// One step of the benchmark (`seq_read`, `rand_write_uniform`, `latency_under_load`, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    pub name: String,
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
    /// Sequential write bandwidth / this step's write bandwidth.
    #[serde(default)]
    pub waf_implied: Option<f64>,
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
}

/// How the run was done.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub quick: bool,
    pub seed: u64,
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
}

impl RunResult {
    pub fn step(&self, name: &str) -> Option<&StepResult> {
        self.steps.iter().find(|s| s.name == name)
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
    pub const LATENCY_UNDER_LOAD: &str = "latency_under_load";
}
