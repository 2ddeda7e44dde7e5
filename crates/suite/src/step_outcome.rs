//! What a step ran with ([`StepRun`]: its range, bounds, rates and seed) and what it
//! measured ([`StepOutcome`]: its engine jobs on one time axis). The runner
//! ([`crate::step`]) fills them; the steady-state detector, the interval series and the
//! summary read them.

use ssdiq_engine::Stats;

/// One engine job of a step, and where it starts on the step's time axis.
pub struct Segment {
    pub offset_ns: u64,
    pub stats: Stats,
}

pub struct StepOutcome {
    pub segments: Vec<Segment>,
    pub stopped: bool,
    /// Wall-clock seconds the step took.
    pub wall_s: f64,
}

impl StepOutcome {
    pub fn elapsed_ns(&self) -> u64 {
        self.segments
            .last()
            .map_or(0, |s| s.offset_ns + s.stats.elapsed_ns)
    }

    pub fn written(&self) -> u64 {
        self.segments
            .iter()
            .map(|s| {
                s.stats
                    .ops
                    .get(&ssdiq_workload::Op::Write)
                    .map_or(0, |o| o.bytes)
            })
            .sum()
    }
}

/// A step with its bound and pacing resolved for one target.
#[derive(Clone, Debug)]
pub struct StepRun {
    /// Bytes of the target the step addresses (the used range, `--fill`).
    pub range_bytes: u64,
    /// Bytes one drive write stands for (the whole capacity, as the reference counts).
    pub capacity: u64,
    pub seconds: Option<f64>,
    pub bytes: Option<u64>,
    pub interval_ns: u64,
    /// Background rate (latency under load), Poisson arrivals.
    pub rate_iops: Option<f64>,
    /// Probe rate (latency under load), and its interval.
    pub probe_iops: Option<f64>,
    pub probe_interval_ns: Option<u64>,
    pub device_log_ns: Option<u64>,
    /// `--until-steady`: the cap in bytes, when the step may be extended.
    pub extend_to_bytes: Option<u64>,
    pub seed: u64,
}
