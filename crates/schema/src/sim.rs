//! The `"kind": "sim"` document of `ssdiq sim` (and of `ssdiq sim merge`), and the
//! `"kind": "sim-shard"` slice one `--shard K/N` process writes.
//!
//! Invariant: a run's fields are a function of its parameters (the simulator is
//! deterministic), except `seconds`, which is how long it took. So a merged sweep equals the
//! single-machine sweep byte for byte once `seconds` is set aside.

use serde::{Deserialize, Deserializer, Serialize};

use crate::GcPolicy;

/// JSON has no NaN; serde_json writes it as `null`. Reading `null` back as NaN keeps a
/// document that went through a shard file identical to one that did not.
fn f64_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// One run's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimParams {
    pub capacity_bytes: u64,
    pub logical_bytes: u64,
    pub page_bytes: u64,
    pub block_bytes: u64,
    pub pages_per_block: u32,
    pub blocks: u32,
    pub logical_pages: u64,
    pub reserve_blocks: u32,
    pub fill: f64,
    pub op: f64,
    pub spare_factor: f64,
    pub gc: GcPolicy,
    /// naive (one victim per trigger, one log) or batched (victims until a block is free).
    pub gc_mode: String,
    pub gc_frontier: bool,
    /// The GC frontier's share of relocated pages when below 1 (the rest go back to the host
    /// log: a policy between naive greedy and a separate GC log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_frontier_share: Option<f64>,
    /// Static wear levelling's erase-count gap, when on: the full block of fewest erases
    /// becomes a victim once its count lags the mean by more than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wear_level_gap: Option<u32>,
    /// The pattern, or `trace:FILE` for a trace run.
    pub pattern: String,
    /// Unmeasured workload writes after the fill, in drive writes.
    pub warmup: f64,
    /// Measured workload writes after the warm-up, in drive writes.
    pub writes: f64,
    pub seed: u64,
    pub write_buffer_pages: u64,
    /// The trace that drove the run, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<SimTrace>,
}

impl SimParams {
    /// The run's GC as tables, CSVs and pages name it: the policy, "+gcf" for a GC frontier
    /// the policy does not have by itself ("+gcf0.5" for a share of the relocations), "+batch"
    /// for batched collection, "+wl15" for static wear levelling at an erase-count gap of 15.
    pub fn gc_label(&self) -> String {
        let mut s = self.gc.to_string();
        match self.gc_frontier_share {
            // The share of relocations the GC frontier took, to three decimals.
            Some(share) => {
                let digits = format!("{share:.3}");
                s.push_str("+gcf");
                s.push_str(digits.trim_end_matches('0').trim_end_matches('.'));
            }
            None if self.gc_frontier && !self.gc.implies_gc_frontier() => s.push_str("+gcf"),
            None => {}
        }
        if self.gc_mode == "batched" {
            s.push_str("+batch");
        }
        if let Some(gap) = self.wear_level_gap {
            s.push_str(&format!("+wl{gap}"));
        }
        s
    }
}

/// How a trace was put onto the simulated drive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimTrace {
    pub file: String,
    pub format: String,
    /// The device filter, if one was given.
    pub device: Option<String>,
    /// compact, modulo or direct.
    pub map: String,
    /// Page writes in one pass over the trace (pages of the flash page size).
    pub pass_page_writes: u64,
    /// Distinct pages the trace writes (`compact`: the pages it occupies on the drive).
    pub written_pages: Option<u64>,
    /// Passes over the trace's writes the run made (`writes` x logical pages / page writes
    /// per pass).
    pub passes: f64,
}

impl SimTrace {
    /// "trace FILE (FORMAT, device D": how tables and pages name it (the caller closes the
    /// parenthesis after what it adds).
    pub fn name(&self) -> String {
        format!(
            "trace {} ({}{}",
            self.file,
            self.format,
            self.device
                .as_deref()
                .map(|d| format!(", device {d}"))
                .unwrap_or_default()
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimSeriesPoint {
    pub drive_writes: f64,
    pub host_writes: u64,
    pub flash_writes: u64,
    #[serde(deserialize_with = "f64_or_nan")]
    pub running_waf: f64,
    #[serde(deserialize_with = "f64_or_nan")]
    pub cumulative_waf: f64,
}

/// One simulation run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimRun {
    pub params: SimParams,
    /// "simulated", or "analytic" for the `optimal` bound.
    pub method: String,
    #[serde(deserialize_with = "f64_or_nan")]
    pub waf: f64,
    #[serde(deserialize_with = "f64_or_nan")]
    pub cumulative_waf: f64,
    pub host_writes: u64,
    pub flash_writes: u64,
    pub erases: u64,
    pub gc_relocations: u64,
    pub buffer_hits: u64,
    pub trims: u64,
    pub mean_victim_valid: Option<f64>,
    #[serde(deserialize_with = "f64_or_nan")]
    pub greedy_model_waf: f64,
    /// Wall time of the run: the one field that differs between equal runs.
    pub seconds: f64,
    pub series: Vec<SimSeriesPoint>,
}

impl SimRun {
    /// A simulated run that never erased a block: GC never ran, so its WAF says nothing
    /// about the policy.
    pub fn never_collected(&self) -> bool {
        self.method == "simulated" && self.erases == 0
    }
}

/// `{"schema": SCHEMA, "kind": "sim", "runs": [...]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimDoc {
    pub schema: String,
    pub kind: String,
    pub runs: Vec<SimRun>,
    /// Present (true) only when runs are missing: an interrupted sweep, or a merge of an
    /// incomplete set of shards with `--allow-partial`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Greedy GC's mean-field WAF for uniform writes as (OP in %, WAF), densely over the OPs
    /// the sweep spans, at the first uniform run's geometry: the model's curve, where the runs
    /// give it only at their own OPs. Empty unless the sweep varies OP.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub greedy_model: Vec<[f64; 2]>,
}

/// Which slice of a sweep a shard holds: points `i` with `i % n == k - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardId {
    /// 1-based.
    pub k: u32,
    pub n: u32,
}

/// A run with its place in the sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexedRun {
    /// 0-based index of the point in the sweep's order.
    pub index: usize,
    #[serde(flatten)]
    pub run: SimRun,
}

/// `{"schema": SCHEMA, "kind": "sim-shard", ...}`: one slice of a sweep, with the whole
/// sweep's point list so a merge can check that every shard belongs to the same sweep and
/// name the points that are missing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimShardDoc {
    pub schema: String,
    pub kind: String,
    pub shard: ShardId,
    /// Every point of the sweep, in order.
    pub points: Vec<SimParams>,
    pub runs: Vec<IndexedRun>,
    /// True when the shard was interrupted before all its runs finished.
    #[serde(default)]
    pub partial: bool,
}

pub const KIND_SIM: &str = "sim";
pub const KIND_SIM_SHARD: &str = "sim-shard";
