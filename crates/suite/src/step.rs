//! One step of the plan, run in measurement rounds until steady state or its cap.
//!
//! Invariants:
//! - Every round is one engine job over the whole capacity; device counters are read around
//!   each round, so a round's WAF is the device's own count for exactly that round.
//! - Each round gets its own seed: repeating one random stream every round would make the
//!   drive see the same overwrite order again and again.
//! - The tracked metric is the main stream's throughput (SNIA PTS); a step stops early only
//!   when the detector finds a steady window, and always after its cap.
//! - A stop request ends the step after the running round drains; the rounds done so far
//!   are kept and the outcome says it was stopped.

use std::collections::BTreeMap;

use ssdiq_engine::hist::OpStats;
use ssdiq_engine::series::JobSecond;
use ssdiq_engine::{Job, Progress, RunControl};
use ssdiq_workload::units::Rate;
use ssdiq_workload::Op;

use crate::observe::{Observer, Phase, RoundReport, Unit};
use crate::plan::{Bound, Step};
use crate::steady::{SteadyDetector, WindowCheck};
use crate::target::{SuiteError, SuiteTarget};

/// What one round measured.
pub struct Round {
    pub elapsed_ns: u64,
    pub ops: BTreeMap<Op, OpStats>,
    pub probes: BTreeMap<Op, OpStats>,
    pub seconds: Vec<JobSecond>,
    /// Device counter deltas over the round, when the device reports them.
    pub host_bytes: Option<u64>,
    pub media_bytes: Option<u64>,
}

impl Round {
    /// Bytes per second of the main streams, in MB/s.
    pub fn mb_s(&self) -> f64 {
        let bytes: u64 = self.ops.values().map(|s| s.bytes).sum();
        bytes as f64 / 1e6 / (self.elapsed_ns.max(1) as f64 / 1e9)
    }

    pub fn iops(&self) -> f64 {
        let ios: u64 = self.ops.values().map(|s| s.ios).sum();
        ios as f64 / (self.elapsed_ns.max(1) as f64 / 1e9)
    }

    pub fn written(&self) -> u64 {
        self.ops.get(&Op::Write).map_or(0, |s| s.bytes)
    }

    pub fn waf(&self) -> Option<f64> {
        crate::derived::measured_waf(self.host_bytes? as u128, self.media_bytes? as u128)
    }
}

pub struct StepOutcome {
    pub rounds: Vec<Round>,
    /// The steady window, if one was found.
    pub window: Option<WindowCheck>,
    /// Whether the step is steady-state bounded (it then reports convergence).
    pub tracked: bool,
    pub stopped: bool,
}

/// Everything a step needs besides the step itself.
pub struct StepContext<'a> {
    pub ctl: &'a RunControl<'a>,
    pub observer: &'a dyn Observer,
    pub seed: u64,
    /// 1-based phase position and count, for progress.
    pub index: usize,
    pub count: usize,
}

/// Forwards engine progress to the observer, counted from the rounds already done.
struct Forward<'a> {
    observer: &'a dyn Observer,
    unit: Unit,
    base: f64,
}

impl Progress for Forward<'_> {
    fn running(&self, elapsed_ns: u64, bytes: u64) {
        let secs = elapsed_ns as f64 / 1e9;
        let done = match self.unit {
            Unit::Bytes => bytes as f64,
            Unit::Seconds => secs,
        };
        let mb_s = if secs > 0.0 {
            bytes as f64 / 1e6 / secs
        } else {
            0.0
        };
        self.observer.advance(self.base + done, mb_s);
    }
}

/// The engine job of one round of `step`.
pub fn job(step: &Step, target: &str, capacity: u64, seed: u64) -> Job {
    let mut j = Job::new(target, step.mix, step.bs, capacity);
    j.pattern = step.pattern.clone();
    j.qd = step.qd;
    j.threads = step.threads;
    j.seed = seed;
    j.probes = step
        .probes
        .iter()
        .map(|p| if *p == "read" { Op::Read } else { Op::Write })
        .collect();
    j.probe_rate = step.probe_iops.map(Rate::IoPerSec);
    j
}

fn round_seed(seed: u64, step: usize, round: u32) -> u64 {
    // splitmix-style mixing: distinct, well-spread seeds per (step, round).
    let mut z = seed ^ ((step as u64) << 32 | round as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 31)
}

/// Runs one round with `bound` and returns what it measured.
pub fn run_round(
    target: &mut dyn SuiteTarget,
    job: &Job,
    cx: &StepContext<'_>,
    unit: Unit,
    base: f64,
) -> Result<(Round, bool), SuiteError> {
    let before = target.counters();
    let fwd = Forward {
        observer: cx.observer,
        unit,
        base,
    };
    let ctl = RunControl::new(cx.ctl.stop.clone(), &fwd);
    let stats = target.executor().run(job, &ctl)?;
    // A failed I/O ends the run as an error, not as an interruption: the engine drained
    // and says "partial", but the drive (or the filesystem under a file) failed.
    if let Some(f) = stats.errors.first.as_ref() {
        let errno = std::io::Error::from_raw_os_error(f.errno);
        let more = match stats.errors.count {
            1 => String::new(),
            n => format!(" ({n} failed I/Os)"),
        };
        return Err(SuiteError::Engine(ssdiq_engine::EngineError::io(
            format!("{}{more}", f.describe()),
            errno,
        )));
    }
    let after = target.counters();
    let (host_bytes, media_bytes) = match (before, after) {
        (Some(b), Some(a)) => (
            Some(a.host_bytes.saturating_sub(b.host_bytes)),
            a.media_bytes
                .zip(b.media_bytes)
                .map(|(a, b)| a.saturating_sub(b)),
        ),
        _ => (None, None),
    };
    let partial = stats.partial;
    Ok((
        Round {
            elapsed_ns: stats.elapsed_ns,
            ops: stats.ops,
            probes: stats.probes,
            seconds: stats.series,
            host_bytes,
            media_bytes,
        },
        partial,
    ))
}

/// Runs `step` (the `step_no`-th of the plan) on `target` in rounds; `rate` limits the main
/// load (latency under load).
pub fn run_step(
    target: &mut dyn SuiteTarget,
    step: &Step,
    step_no: usize,
    rate: Option<Rate>,
    cx: &StepContext<'_>,
) -> Result<StepOutcome, SuiteError> {
    let capacity = target.capacity_bytes();
    let name = target.job_target();
    let blocks = |dw: f64| (((dw * capacity as f64) as u64) / step.bs).max(1) * step.bs;
    // (unit, size of a round, warm-up before a window may start, cap; all in that unit)
    let (unit, round, warmup, cap, criteria) = match &step.bound {
        Bound::Seconds(s) => (Unit::Seconds, *s, 0.0, *s, None),
        Bound::SteadyTime {
            round_s,
            cap_s,
            criteria,
        } => (Unit::Seconds, *round_s, 0.0, *cap_s, Some(*criteria)),
        Bound::SteadyWrites {
            round_drive_writes,
            warmup_drive_writes,
            cap_drive_writes,
            criteria,
        } => (
            Unit::Bytes,
            blocks(*round_drive_writes) as f64,
            *warmup_drive_writes * capacity as f64,
            blocks(*cap_drive_writes) as f64,
            Some(*criteria),
        ),
    };
    cx.observer.phase(&Phase {
        name: step.name.to_string(),
        index: cx.index,
        count: cx.count,
        unit,
        total: cap,
    });
    let mut detector = criteria.map(SteadyDetector::new);
    let mut out = StepOutcome {
        rounds: Vec::new(),
        window: None,
        tracked: criteria.is_some(),
        stopped: false,
    };
    let mut done = 0.0;
    // Index of the first round fed to the detector (the first after the warm-up).
    let mut first_fed = None;
    loop {
        let r = out.rounds.len() as u32;
        let mut j = job(step, &name, capacity, round_seed(cx.seed, step_no, r));
        j.rate = rate;
        match unit {
            Unit::Seconds => {
                j.bound.bytes = None;
                j.bound.time_ns = Some((round * 1e9) as u64);
            }
            Unit::Bytes => j.bound.bytes = Some(round as u64),
        }
        let (round_result, partial) = run_round(target, &j, cx, unit, done)?;
        let warm = done >= warmup * 0.999;
        done += match unit {
            Unit::Seconds => round_result.elapsed_ns as f64 / 1e9,
            Unit::Bytes => round_result.written() as f64,
        };
        let mb_s = round_result.mb_s();
        let waf = round_result.waf();
        out.rounds.push(round_result);
        if partial || cx.ctl.stopped() {
            out.stopped = true;
            break;
        }
        if let Some(d) = detector.as_mut().filter(|_| warm) {
            let offset = *first_fed.get_or_insert(r as usize);
            out.window = d.push(mb_s).map(|mut w| {
                w.first += offset;
                w
            });
        }
        cx.observer.round(&RoundReport {
            step: step.name.to_string(),
            round: r,
            mb_s,
            waf,
            steady: out.window.is_some(),
        });
        // Stop at the steady window, or when the next round would pass the cap.
        if out.window.is_some() || done + round > cap * 1.01 {
            break;
        }
    }
    cx.observer.phase_done();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_seeds_differ() {
        let mut seen = std::collections::HashSet::new();
        for s in 0..7 {
            for r in 0..50 {
                assert!(seen.insert(round_seed(1, s, r)));
            }
        }
    }
}
