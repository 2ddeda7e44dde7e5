//! What every study does to its target: reset, sequential fill, jobs with the write counters
//! read around them, and one point recorded per configuration.
//!
//! Invariants:
//! - Each job gets its own seed, derived from the study's seed and the job's position, so a
//!   study is deterministic and no job replays the stream of the one before.
//! - A stop request (Ctrl-C) ends the running job after it drains; [`Bench::stopped`] is then
//!   true and the study returns at once; the point being measured is not recorded.
//! - Progress: one phase per point, counted in the point's planned bytes or target seconds.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use ssdiq_engine::{Job, Stats, WriteCounters};
use ssdiq_schema::StudyPoint;
use ssdiq_workload::{Op, Pattern, RwMix};

use crate::observe::{Observer, Phase, StepReport, Unit};
use crate::step::{run_job, StepContext};
use crate::target::{SuiteError, SuiteTarget};

/// Request size of the sequential fill (the SSD-iq reference's 512 KiB, at QD 4 to keep a
/// real drive's write path busy).
pub const FILL_BS: u64 = 512 * 1024;
/// Purpose tag of the layout seed every job of a study shares (job seeds use 1, 2, ...).
const LAYOUT: u64 = 0x1a70_0000_0000;

/// A job's statistics and what the drive's counters say of it.
pub struct Measured {
    pub stats: Stats,
    /// Media bytes / host bytes over the job, when the drive counts media writes.
    pub waf: Option<f64>,
}

impl Measured {
    pub fn seconds(&self) -> f64 {
        self.stats.elapsed_ns as f64 / 1e9
    }

    fn op(&self, op: Op) -> Option<&ssdiq_engine::OpStats> {
        self.stats.ops.get(&op).filter(|o| o.ios > 0)
    }

    pub fn mb_s(&self, op: Op) -> Option<f64> {
        let s = self.seconds();
        self.op(op)
            .filter(|_| s > 0.0)
            .map(|o| o.bytes as f64 / 1e6 / s)
    }

    pub fn kiops(&self, op: Op) -> Option<f64> {
        let s = self.seconds();
        self.op(op)
            .filter(|_| s > 0.0)
            .map(|o| o.ios as f64 / 1e3 / s)
    }

    /// Mean latency, µs.
    pub fn mean_us(&self, op: Op) -> Option<f64> {
        self.op(op).map(|o| o.mean_ns() / 1e3)
    }

    /// Latency at quantile `q`, µs.
    pub fn quantile_us(&self, op: Op, q: f64) -> Option<f64> {
        self.op(op).map(|o| o.quantile(q) as f64 / 1e3)
    }

    /// Probe latency at quantile `q` (None: mean), µs.
    pub fn probe_us(&self, op: Op, q: Option<f64>) -> Option<f64> {
        let o = self.stats.probes.get(&op).filter(|o| o.ios > 0)?;
        Some(match q {
            Some(q) => o.quantile(q) as f64 / 1e3,
            None => o.mean_ns() / 1e3,
        })
    }
}

pub struct Bench<'a> {
    target: &'a mut dyn SuiteTarget,
    stop: Arc<AtomicBool>,
    observer: &'a dyn Observer,
    seed: u64,
    pub quick: bool,
    /// Seconds of a PTS test period (`--pts-cell`); `None`: the spec's 60 s (quick: 1 s).
    pub pts_cell: Option<f64>,
    jobs: u64,
    planned: usize,
    pub points: Vec<StudyPoint>,
    /// The current point: its phase, what is done of it, and its time on the target's clock.
    phase: Option<Phase>,
    done: f64,
    point_ns: u64,
}

impl<'a> Bench<'a> {
    pub fn new(
        target: &'a mut dyn SuiteTarget,
        stop: Arc<AtomicBool>,
        observer: &'a dyn Observer,
        seed: u64,
        quick: bool,
    ) -> Self {
        Bench {
            target,
            stop,
            observer,
            seed,
            quick,
            pts_cell: None,
            jobs: 0,
            planned: 0,
            points: Vec::new(),
            phase: None,
            done: 0.0,
            point_ns: 0,
        }
    }

    pub fn capacity(&self) -> u64 {
        self.target.capacity_bytes()
    }

    pub fn target(&mut self) -> &mut dyn SuiteTarget {
        &mut *self.target
    }

    /// Lets `ns` pass without I/O on the target's clock (ends early on a stop request).
    pub fn idle(&mut self, ns: u64) {
        let ctl = ssdiq_engine::RunControl::new(self.stop.clone(), &ssdiq_engine::NoProgress);
        self.target.idle(ns, ns.max(1), &ctl);
        self.point_ns += ns;
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many points the study will record (for "[i/N]" and the ETA).
    pub fn plan(&mut self, points: usize) {
        self.planned = points;
    }

    /// Once a study knows its remaining work: `more` points after those recorded so far.
    pub fn plan_remaining(&mut self, more: usize) {
        self.planned = self.points.len() + more;
    }

    /// Starts the next point: `total` of `unit` is what its jobs will do in all.
    pub fn begin(&mut self, name: impl Into<String>, unit: Unit, total: f64) {
        let p = Phase {
            name: name.into(),
            index: self.points.len() + 1,
            count: self.planned.max(self.points.len() + 1),
            unit,
            total,
        };
        self.observer.phase(&p);
        self.phase = Some(p);
        self.done = 0.0;
        self.point_ns = 0;
    }

    /// Records the current point.
    pub fn point(
        &mut self,
        series: impl Into<String>,
        x: f64,
        x_label: impl Into<String>,
        values: BTreeMap<String, f64>,
    ) {
        let waf = values.get("waf").copied();
        let mb_s = values
            .get("write_mb_s")
            .or_else(|| values.get("mb_s"))
            .or_else(|| values.get("read_mb_s"))
            .copied();
        self.observer.step(&StepReport {
            step: String::new(),
            stopped: false,
            rounds: None,
            mb_s,
            iops: None,
            waf,
            waf_lag: None,
            steady: None,
            steady_drive_writes: None,
            probes: Vec::new(),
        });
        self.observer.phase_done();
        self.points.push(StudyPoint {
            series: series.into(),
            x,
            x_label: x_label.into(),
            values,
            target_s: self.point_ns as f64 / 1e9,
        });
        self.phase = None;
    }

    /// Records a point of work already measured (a segment of a job, an average over
    /// rounds): the first takes the open phase, later ones a phase of no work of their own.
    /// `seconds`: the target's time the point stands for (a segment's own), if it has one;
    /// else the phase's.
    pub fn derived_point(
        &mut self,
        series: impl Into<String>,
        x: f64,
        x_label: impl Into<String>,
        values: BTreeMap<String, f64>,
        seconds: Option<f64>,
    ) {
        let (series, x_label) = (series.into(), x_label.into());
        if self.phase.is_none() {
            self.begin(format!("{series} {x_label}"), Unit::Seconds, 0.0);
        }
        if let Some(s) = seconds {
            self.point_ns = (s * 1e9) as u64;
        }
        self.point(series, x, x_label, values);
    }

    pub fn reset(&mut self) -> Result<(), SuiteError> {
        self.target.reset()?;
        Ok(())
    }

    /// A job on the whole target (names, range and seed filled in).
    pub fn job(&mut self, rw: &str, pattern: &str, bs: u64, qd: u32) -> Job {
        let mix = RwMix::parse(rw).expect("studies name valid mixes");
        let range = self.capacity() / bs * bs;
        let mut j = Job::new(self.target.job_target(), mix, bs, range);
        j.pattern = Pattern::parse(pattern).expect("studies name valid patterns");
        j.qd = qd;
        j.threads = 1;
        self.jobs += 1;
        j.seed = ssdiq_workload::rng::derive_seed(self.seed, self.jobs);
        // A point runs its pattern as several jobs (warm-up, measured part): each draws its
        // own addresses, and all keep the hot or read-only pages where the first put them.
        j.layout_seed = Some(ssdiq_workload::rng::derive_seed(self.seed, LAYOUT));
        // One point per second at most: studies keep totals, not series.
        j.series_interval_ns = 1_000_000_000;
        j
    }

    /// Writes the whole target once, sequentially.
    pub fn fill(&mut self) -> Result<Measured, SuiteError> {
        let mut j = self.job("write", "seq", FILL_BS, 4);
        j.bound.bytes = Some(j.range_bytes);
        self.run(j)
    }

    /// Runs `job` with the drive's write counters read before and after.
    pub fn run(&mut self, job: Job) -> Result<Measured, SuiteError> {
        let before = self.target.counters();
        let phase = self.phase.clone().unwrap_or(Phase {
            name: "study".into(),
            index: 1,
            count: 1,
            unit: Unit::Bytes,
            total: 0.0,
        });
        let cx = StepContext {
            ctl: &ssdiq_engine::RunControl::new(self.stop.clone(), &ssdiq_engine::NoProgress),
            observer: self.observer,
            index: phase.index,
            count: phase.count,
            label: phase.name.clone(),
        };
        let stats = run_job(&mut *self.target, &job, &cx, phase.unit, self.done)?;
        let after = self.target.counters();
        self.point_ns += stats.elapsed_ns;
        self.done += match phase.unit {
            Unit::Bytes => stats.ops.values().map(|o| o.bytes).sum::<u64>() as f64,
            Unit::Seconds => stats.elapsed_ns as f64 / 1e9,
        };
        Ok(Measured {
            waf: waf_between(before, after),
            stats,
        })
    }
}

fn waf_between(before: Option<WriteCounters>, after: Option<WriteCounters>) -> Option<f64> {
    let (b, a) = (before?, after?);
    let host = a.host_bytes.checked_sub(b.host_bytes)?;
    let media = a.media_bytes?.checked_sub(b.media_bytes?)?;
    (host > 0).then(|| media as f64 / host as f64)
}

/// `1 job`, `4 jobs`: a count and its noun, for point labels.
pub fn plural(n: u64, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

/// `values` from pairs, leaving out the ones not measured.
pub fn values(pairs: &[(&str, Option<f64>)]) -> BTreeMap<String, f64> {
    pairs
        .iter()
        .filter_map(|(k, v)| v.filter(|v| v.is_finite()).map(|v| (k.to_string(), v)))
        .collect()
}
