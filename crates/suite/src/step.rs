//! One measured step of the plan: one engine job for its bound, and, for a write workload
//! run with `--until-steady` that was not steady within its reference drive writes, further
//! jobs of a few detector rounds each until it is (or its cap).
//!
//! Invariants:
//! - A step is one job whenever it can be: the per-interval series then has no seams, and the
//!   only partial interval is the last (marked partial by the summary).
//! - Every job of a step gets its own seed (a continuation must not replay the stream the
//!   drive has just seen).
//! - A stop request ends the step after the running job drains; the jobs done so far are kept
//!   and the outcome says it was stopped.

use std::time::Instant;

use ssdiq_engine::{Arrivals, Job, Probe, Progress, RunControl, Stats};
use ssdiq_workload::units::Rate;

use crate::observe::{Observer, Phase as ObsPhase, Unit};
use crate::plan::{Step, ROUNDS_PER_STEP};
use crate::steady;
use crate::step_outcome::{Segment, StepOutcome, StepRun};
use crate::target::{SuiteError, SuiteTarget};

/// Everything a step needs besides the step itself.
pub struct StepContext<'a> {
    pub ctl: &'a RunControl<'a>,
    pub observer: &'a dyn Observer,
    /// 1-based phase position and count, for progress.
    pub index: usize,
    pub count: usize,
    pub label: String,
}

/// Forwards engine progress to the observer, counted from the segments already done.
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

/// The engine job of `step` (bounds left to the caller).
pub fn job(step: &Step, run: &StepRun, target: &str, seed: u64) -> Job {
    let mut j = Job::new(target, step.mix, step.bs, run.range_bytes);
    j.pattern = step.pattern.clone();
    j.qd = step.qd;
    j.threads = step.threads;
    j.seed = seed;
    j.series_interval_ns = run.interval_ns;
    j.device_log_ns = run.device_log_ns;
    if let Some(iops) = run.rate_iops {
        j.rate = Some(Rate::IoPerSec(iops));
        j.arrivals = Arrivals::Poisson;
    }
    if let (Some(load), Some(iops)) = (step.load, run.probe_iops) {
        // One probe per op (each with its own queue) at its share of the rate; the engine
        // paces every probe at one rate, so the split is even (the reference's 50/50).
        let (probes, per) = match load.probe_read_percent {
            100 => (vec![Probe::READ], iops),
            0 => (vec![Probe::WRITE], iops),
            50 => (vec![Probe::READ, Probe::WRITE], iops / 2.0),
            r => (vec![Probe { read_percent: r }], iops),
        };
        j.probes = probes;
        j.probe_rate = Some(Rate::IoPerSec(per));
        j.probe_qd = load.probe_qd;
        j.probe_interval_ns = run.probe_interval_ns;
    }
    j
}

/// The job of segment `seg` of a step: its own draws, the first segment's hot pages (a skewed
/// pattern's hot set does not move when a step is extended).
pub fn segment_job(step: &Step, run: &StepRun, target: &str, step_no: usize, seg: u32) -> Job {
    let mut j = job(step, run, target, segment_seed(run.seed, step_no, seg));
    j.layout_seed = Some(segment_seed(run.seed, step_no, 0));
    j
}

/// Distinct, well-spread seeds per (step, segment).
pub fn segment_seed(seed: u64, step: usize, segment: u32) -> u64 {
    ssdiq_workload::rng::derive_seed(seed, ((step as u64) << 20) | segment as u64)
}

/// Runs one job and returns its statistics and whether it was cut short.
pub fn run_job(
    target: &mut dyn SuiteTarget,
    job: &Job,
    cx: &StepContext<'_>,
    unit: Unit,
    base: f64,
) -> Result<Stats, SuiteError> {
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
            format!("{}{more}", ssdiq_engine::describe(f)),
            errno,
        )));
    }
    Ok(stats)
}

/// Runs `step` (the `step_no`-th of the run) on `target`; the caller ends the phase.
pub fn run_step(
    target: &mut dyn SuiteTarget,
    step: &Step,
    run: &StepRun,
    step_no: usize,
    cx: &StepContext<'_>,
) -> Result<StepOutcome, SuiteError> {
    let started = Instant::now();
    let name = target.job_target();
    let (unit, total) = match (run.bytes, run.seconds) {
        (Some(b), _) => (Unit::Bytes, run.extend_to_bytes.unwrap_or(b) as f64),
        (None, Some(s)) => (Unit::Seconds, s),
        (None, None) => (Unit::Seconds, 0.0),
    };
    cx.observer.phase(&ObsPhase {
        name: cx.label.clone(),
        index: cx.index,
        count: cx.count,
        unit,
        total,
    });
    let mut out = StepOutcome {
        segments: Vec::new(),
        stopped: false,
        wall_s: 0.0,
    };
    let mut j = segment_job(step, run, &name, step_no, 0);
    j.bound.bytes = run.bytes;
    j.bound.time_ns = run.seconds.map(|s| (s * 1e9).round().max(1.0) as u64);
    let stats = run_job(target, &j, cx, unit, 0.0)?;
    out.stopped = stats.partial || cx.ctl.stopped();
    out.segments.push(Segment {
        offset_ns: 0,
        stats,
    });
    // --until-steady: a few rounds more at a time until the detector finds a window.
    if let (Some(cap), Some(bytes)) = (run.extend_to_bytes, run.bytes) {
        let round = (bytes / ROUNDS_PER_STEP as u64).max(step.bs);
        let chunk = (round * steady::WINDOW_ROUNDS as u64).next_multiple_of(step.bs);
        let mut seg = 1;
        while !out.stopped
            && out.written() < cap
            && steady::of_outcome(&out, run, bytes).is_none_or(|c| !c.converged)
        {
            let mut j = segment_job(step, run, &name, step_no, seg);
            j.bound.bytes = Some(chunk.min(cap - out.written()).max(step.bs));
            let offset_ns = out.elapsed_ns();
            let stats = run_job(target, &j, cx, unit, out.written() as f64)?;
            out.stopped = stats.partial || cx.ctl.stopped();
            out.segments.push(Segment { offset_ns, stats });
            seg += 1;
        }
    }
    out.wall_s = started.elapsed().as_secs_f64();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_of_a_step_draw_anew_over_one_layout() {
        let step = Step {
            name: "zipf",
            role: crate::plan::Role::Workload,
            stage: None,
            mix: ssdiq_workload::RwMix::parse("randwrite").unwrap(),
            pattern: ssdiq_workload::Pattern::parse("zipf:0.8").unwrap(),
            bs: 4096,
            qd: 32,
            threads: 1,
            bound: crate::plan::Bound::DriveWrites(1.0),
            load: None,
            span: 1,
        };
        let run = StepRun {
            range_bytes: 1 << 30,
            capacity: 1 << 30,
            seconds: None,
            bytes: None,
            interval_ns: 1_000_000_000,
            rate_iops: None,
            probe_iops: None,
            probe_interval_ns: None,
            device_log_ns: None,
            extend_to_bytes: None,
            seed: 7,
        };
        let first = segment_job(&step, &run, "t", 3, 0).stream_config(0);
        let later = segment_job(&step, &run, "t", 3, 2).stream_config(0);
        assert_ne!(first.seed, later.seed);
        assert_eq!(first.layout_seed, later.layout_seed);
        let hottest = |cfg| {
            let mut s = ssdiq_workload::RequestStream::new(&step.pattern, step.mix, cfg).unwrap();
            let mut counts = std::collections::HashMap::new();
            for _ in 0..20_000 {
                *counts.entry(s.next_request().page).or_insert(0u32) += 1;
            }
            counts.into_iter().max_by_key(|&(o, c)| (c, o)).unwrap().0
        };
        assert_eq!(hottest(first), hottest(later), "the hot page stays");
    }

    #[test]
    fn segment_seeds_differ() {
        let mut seen = std::collections::HashSet::new();
        for s in 0..60 {
            for r in 0..20 {
                assert!(seen.insert(segment_seed(1, s, r)));
            }
        }
    }
}
