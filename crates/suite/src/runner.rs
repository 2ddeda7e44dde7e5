//! The whole SSD-iq procedure on one target: the plan's passes, phase by phase (resets, idle
//! pauses, the sequential init, the measured steps), then the implied WAF, the figures of
//! Tables 2 and 3 and the `"kind": "run"` result.
//!
//! Invariants:
//! - Nothing here prints; progress goes to the [`Observer`].
//! - A stop request (Ctrl-C) ends the run after the running job drains (an idle pause ends at
//!   once); the result holds every step begun so far and `partial: true`. A failing step ends
//!   it the same way and names the error.
//! - Durations are the plan's times the run's [`Scales`]; the result records the scales.
//! - Latency under load runs at 25% of the spec random-write IOPS (probe included), else of
//!   the uniform workload's measured IOPS, and says which. Implied WAF divides the spec
//!   sequential write bandwidth, else the measured one, and says which.
//! - The run clock (device log, `elapsed_s`) is the sum of the phases' lengths on the
//!   target's clock.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use ssdiq_engine::chain;
use ssdiq_engine::{Clock, Job, RunControl};
use ssdiq_schema::{figures as keys, steps, Derived, RunInfo, RunResult, Spec, SCHEMA};
use ssdiq_workload::{Pattern, RwMix};

use crate::devlog::DeviceLog;
use crate::figures;
use crate::observe::{Observer, Phase as ObsPhase, StepReport, Unit};
use crate::plan::{
    Bound, Pass, Phase, Plan, Role, Scales, Step, BURST_INTERVAL_S, BURST_SHARE_MAX, LARGE_BS,
    UNTIL_STEADY_CAP,
};
use crate::step::{run_job, run_step, StepContext};
use crate::step_outcome::StepRun;
use crate::summary::{implied_waf, step_result, StepMeta};
use crate::target::{SuiteError, SuiteTarget};

pub struct RunOptions {
    pub plan: Plan,
    /// The datasheet to compare against (already merged with the target's own).
    pub spec: Option<Spec>,
    pub seed: u64,
    pub quick: bool,
    /// Share of the LBA space used, in (0, 1].
    pub fill: f64,
    pub until_steady: bool,
    /// Overrides the target's default time scales (`--time-scale`).
    pub time_scale: Option<f64>,
}

/// The protocol's name in results and on the command line.
pub const PROTOCOL: &str = "ssd-iq";

/// A "nice" interval (1, 2 or 5 x 10^k seconds, 1 ms to 1 s) giving about 100 intervals in
/// `est_s`: the reference logs per second; steps much shorter than 100 s (quick mode, the
/// scaled steps of an emulated drive) log finer so the reference window still has intervals.
pub fn interval_for(est_s: f64) -> f64 {
    let x = (est_s / 100.0).clamp(1e-3, 1.0);
    let mut best = 1e-3;
    for exp in -3..=0 {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(exp);
            if v <= x * (1.0 + 1e-9) && v <= 1.0 {
                best = v;
            }
        }
    }
    best
}

/// The used range: `fill` of the capacity, in whole large blocks.
pub fn used_range(capacity: u64, fill: f64) -> u64 {
    let b = ((capacity as f64 * fill) as u64) / LARGE_BS * LARGE_BS;
    b.clamp(LARGE_BS, capacity / LARGE_BS * LARGE_BS)
}

struct Ctx<'a> {
    target: &'a mut dyn SuiteTarget,
    o: &'a RunOptions,
    ctl: &'a RunControl<'a>,
    observer: &'a dyn Observer,
    scales: Scales,
    capacity: u64,
    range: u64,
    wall: bool,
    clock_ns: u64,
    log: DeviceLog,
    index: usize,
    count: usize,
    result: RunResult,
    info: RunInfo,
    steps_run: usize,
}

impl Ctx<'_> {
    fn spec(&self) -> Option<&Spec> {
        self.o.spec.as_ref()
    }

    /// Device-log period of a phase with series interval `iv_ns`: the interval itself on the
    /// emulated drive; at least 1 s on a real one (each sample is two admin commands).
    fn log_period(&self, iv_ns: u64) -> Option<u64> {
        self.target.logs_device().then(|| {
            if self.wall {
                iv_ns.max(1_000_000_000)
            } else {
                iv_ns
            }
        })
    }

    fn obs_phase(&self, name: String, unit: Unit, total: f64) {
        self.observer.phase(&ObsPhase {
            name,
            index: self.index,
            count: self.count,
            unit,
            total,
        });
    }

    fn reset(&mut self, label: &str) -> Result<(), SuiteError> {
        self.obs_phase(format!("{label}reset"), Unit::Seconds, 0.0);
        let t = Instant::now();
        self.info.reset = self.target.reset()?;
        if self.wall {
            self.clock_ns += t.elapsed().as_nanos() as u64;
        }
        self.log.mark_reset();
        if let Some(h) = self.target.health() {
            let s = ssdiq_engine::DeviceSample { t_ns: 0, health: h };
            self.log.push(self.clock_ns, "reset", &[s]);
        }
        self.observer.phase_done();
        Ok(())
    }

    fn idle(&mut self, label: &str, secs: f64) {
        let s = secs * self.scales.idle;
        self.obs_phase(format!("{label}idle"), Unit::Seconds, s);
        let ns = (s * 1e9) as u64;
        let every = (interval_for(s) * 1e9) as u64;
        let period = self.log_period(every).unwrap_or(every);
        let t = Instant::now();
        let samples = self.target.idle(ns, period, self.ctl);
        let passed = if self.wall {
            t.elapsed().as_nanos() as u64
        } else {
            ns
        };
        self.log.push(self.clock_ns, "idle", &samples);
        self.clock_ns += passed;
        self.observer.phase_done();
    }

    /// Sequential writes over the used range (once), large blocks, one thread.
    fn init(
        &mut self,
        label: &str,
        bs: u64,
        qd: u32,
        drive_writes: f64,
    ) -> Result<bool, SuiteError> {
        let bytes = ((drive_writes * self.range as f64) as u64 / bs).max(1) * bs;
        let mut job = Job::new(
            self.target.job_target(),
            RwMix::parse("write").expect("built-in mix"),
            bs,
            self.range,
        );
        job.pattern = Pattern::Seq;
        job.qd = qd;
        job.seed = self.o.seed;
        job.bound.bytes = Some(bytes);
        let est_s = bytes as f64 / 1e9;
        let iv = (interval_for(est_s) * 1e9) as u64;
        job.series_interval_ns = iv;
        job.device_log_ns = self.log_period(iv);
        let cx = StepContext {
            ctl: self.ctl,
            observer: self.observer,
            index: self.index,
            count: self.count,
            label: format!("{label}seq. init"),
        };
        self.obs_phase(cx.label.clone(), Unit::Bytes, bytes as f64);
        let stats = run_job(self.target, &job, &cx, Unit::Bytes, 0.0)?;
        self.observer.phase_done();
        if self.info.precondition_bytes == 0 {
            self.info.precondition_bytes = stats.ops.values().map(|s| s.bytes).sum();
            self.info.precondition_s = stats.elapsed_ns as f64 / 1e9;
        }
        self.log.push(self.clock_ns, "init", &stats.device_log);
        self.clock_ns += stats.elapsed_ns;
        Ok(stats.partial || self.ctl.stopped())
    }

    /// The measured IOPS of the uniform workload so far (median), for the load when there is
    /// no spec.
    fn measured_uniform_iops(&self) -> Option<f64> {
        let v: Vec<f64> = self
            .result
            .steps
            .iter()
            .filter(|s| s.name == steps::RAND_WRITE_UNIFORM)
            .filter_map(|s| s.value.as_ref()?.iops)
            .collect();
        crate::reference::median(&v)
    }

    /// Bandwidth to expect of a workload (to size its intervals): the spec random-write rate,
    /// else the measured uniform one, else a quarter of the measured sequential writes.
    fn expected_write_bytes_per_s(&self, bs: u64) -> f64 {
        if let Some(k) = self.spec().and_then(|s| s.rand_write_kiops) {
            return k * 1e3 * bs as f64;
        }
        if let Some(i) = self.measured_uniform_iops() {
            return i * bs as f64;
        }
        let seq: Vec<f64> = self
            .result
            .steps
            .iter()
            .filter(|s| s.name == steps::SEQ_WRITE)
            .filter_map(|s| s.value.as_ref()?.mb_s)
            .collect();
        crate::reference::median(&seq).map_or(100e6, |m| m * 1e6 / 4.0)
    }

    /// Latency under load: total IOPS (25% of the spec or measured random-write IOPS), the
    /// probe's rate and the background's.
    fn load(&mut self, step: &Step) -> Result<(f64, f64), SuiteError> {
        let l = step.load.expect("latency under load has a load");
        let pct = l.fraction * 100.0;
        let (total, basis) = match self.spec().and_then(|s| s.rand_write_kiops) {
            Some(k) => (
                l.fraction * k * 1e3,
                format!("{pct:.0}% of the spec random-write rate ({k} kIOPS)"),
            ),
            None => match self.measured_uniform_iops() {
                Some(i) => (
                    l.fraction * i,
                    format!(
                        "{pct:.0}% of the measured uniform random-write rate ({:.1} kIOPS); no spec rand_write_kiops",
                        i / 1e3
                    ),
                ),
                None => {
                    return Err(SuiteError::Invalid(
                        "latency under load: no random-write rate known (no spec rand_write_kiops and no uniform workload measured)".into(),
                    ))
                }
            },
        };
        // The probe is part of the load: its writes count, the background takes the rest
        // (iob: rate - 10000 x 0.5 over the other threads). A drive too slow for a 10k IOPS
        // probe at 25% gets a probe of the whole load instead.
        let probe = l.probe_iops.min(total);
        let probe_writes = probe * (100 - l.probe_read_percent) as f64 / 100.0;
        let background = total - probe_writes;
        self.result.derived.load_mb_s = Some(total * step.bs as f64 / 1e6);
        self.result.derived.load_basis = Some(format!(
            "{basis}: {:.0} IOPS = background {:.0} IOPS ({}% writes, Poisson arrivals) + the probes' {:.0} writes (open-loop probes of {:.0} IOPS, {}% reads)",
            total,
            background,
            100 - step.mix.read_percent,
            probe_writes,
            probe,
            l.probe_read_percent
        ));
        Ok((background, probe))
    }

    fn step_run(&mut self, step: &Step) -> Result<StepRun, SuiteError> {
        let (seconds, bytes) = match step.bound {
            Bound::Seconds(s) => {
                let scale = if step.role == Role::LatencyUnderLoad {
                    self.scales.load_time
                } else {
                    self.scales.time
                };
                (Some(s * scale), None)
            }
            Bound::DriveWrites(dw) => {
                let b = (dw * self.scales.drive_writes * self.capacity as f64) as u64;
                (None, Some((b / step.bs).max(1) * step.bs))
            }
            Bound::Bytes(b) => {
                // The burst, shortened in quick mode as the workloads are (a third of 1 GiB
                // still outlasts the buffers of the library's drives).
                let b = ((b as f64 * self.scales.drive_writes) as u64)
                    .min((self.capacity as f64 * BURST_SHARE_MAX) as u64);
                (None, Some((b / step.bs).max(1) * step.bs))
            }
        };
        let est_s = match (seconds, bytes) {
            (Some(s), _) => s,
            (None, Some(b)) => b as f64 / self.expected_write_bytes_per_s(step.bs),
            _ => 1.0,
        };
        let interval_ns = if step.role == Role::WriteBurst {
            (BURST_INTERVAL_S * 1e9) as u64
        } else {
            (interval_for(est_s) * 1e9) as u64
        };
        let (rate_iops, probe_iops) = match step.load {
            Some(_) => {
                let (b, p) = self.load(step)?;
                (Some(b), Some(p))
            }
            None => (None, None),
        };
        Ok(StepRun {
            range_bytes: (self.range / step.span.max(1) as u64 / step.bs).max(1) * step.bs,
            capacity: self.capacity,
            seconds,
            bytes,
            interval_ns,
            rate_iops,
            probe_iops,
            probe_interval_ns: step
                .load
                .map(|l| (l.probe_interval_s * self.scales.load_time * 1e9) as u64),
            device_log_ns: self.log_period(interval_ns),
            extend_to_bytes: bytes
                .filter(|_| self.o.until_steady && step.role == Role::Workload)
                .map(|b| (b as f64 * UNTIL_STEADY_CAP) as u64 / step.bs * step.bs),
            seed: self.o.seed,
        })
    }

    /// Runs one step; `Ok(true)` when the run must end (stopped or failed).
    fn step(&mut self, pass: &Pass, step: &Step) -> bool {
        let label = format!("{}{}", pass_label(pass, &self.o.plan), step_label(step));
        let run = match self.step_run(step) {
            Ok(r) => r,
            Err(e) => {
                self.info.error = Some(format!("step {}: {}", step.name, chain(&e)));
                return true;
            }
        };
        let cx = StepContext {
            ctl: self.ctl,
            observer: self.observer,
            index: self.index,
            count: self.count,
            label,
        };
        let outcome = match run_step(self.target, step, &run, self.steps_run, &cx) {
            Ok(o) => o,
            Err(e) => {
                self.observer.phase_done();
                self.info.error = Some(format!("step {}: {}", step.name, chain(&e)));
                return true;
            }
        };
        self.steps_run += 1;
        let meta = StepMeta {
            repetition: pass.repetition,
            pass: pass.pass,
            reference_bytes: run.bytes,
        };
        let s = step_result(step, &run, &outcome, meta);
        self.observer.step(&StepReport {
            step: step.name.to_string(),
            stopped: s.stopped,
            rounds: s
                .convergence
                .as_ref()
                .map(|c| (c.rounds, crate::plan::ROUNDS_PER_STEP)),
            mb_s: s.value.as_ref().and_then(|v| v.mb_s),
            iops: s.value.as_ref().and_then(|v| v.iops),
            waf: s.waf_measured,
            waf_lag: s.waf_buffer_lag,
            steady: s.convergence.as_ref().map(|c| c.converged),
            steady_drive_writes: s
                .convergence
                .as_ref()
                .filter(|c| c.converged && c.reference_drive_writes.is_some())
                .map(|c| c.drive_writes),
            probes: s
                .value
                .as_ref()
                .map(|v| {
                    v.probes
                        .iter()
                        .map(|(op, p)| (op.clone(), p.mean_ns / 1e3, p.p99_9_ns / 1e3))
                        .collect()
                })
                .unwrap_or_default(),
        });
        self.observer.phase_done();
        let phase = format!("pass {} {}", pass.pass, step_label(step));
        for seg in &outcome.segments {
            self.log
                .push(self.clock_ns + seg.offset_ns, &phase, &seg.stats.device_log);
        }
        self.clock_ns += outcome.elapsed_ns();
        self.result.steps.push(s);
        outcome.stopped
    }
}

fn pass_label(p: &Pass, plan: &crate::plan::Plan) -> String {
    // The last repetition has the heavy-skew pass too.
    let per_rep = plan
        .passes
        .iter()
        .filter(|q| q.repetition == p.repetition)
        .map(|q| q.pass)
        .max()
        .unwrap_or(p.pass);
    format!(
        "rep {} pass {}/{} ({}): ",
        p.repetition,
        p.pass,
        per_rep,
        crate::plan::workload_key(p.workload)
    )
}

fn step_label(s: &Step) -> String {
    match s.stage {
        Some(st) => format!("{} ({})", s.name, st.name()),
        None => s.name.to_string(),
    }
}

/// Runs the benchmark. `stop` is polled by the engine (set it from a signal handler).
pub fn run(
    target: &mut dyn SuiteTarget,
    o: &RunOptions,
    stop: Arc<AtomicBool>,
    observer: &dyn Observer,
) -> Result<RunResult, SuiteError> {
    if !(o.fill > 0.0 && o.fill <= 1.0) {
        return Err(SuiteError::Invalid(format!(
            "invalid --fill \"{}\": expected a share of the capacity in (0, 1]",
            o.fill
        )));
    }
    let started = Instant::now();
    let ctl = RunControl::new(stop, &ssdiq_engine::NoProgress);
    let capacity = target.capacity_bytes();
    let identity = target.identity();
    let scales = match o.time_scale {
        Some(t) => Scales {
            time: t,
            idle: t,
            load_time: t,
            drive_writes: Scales::for_target(o.quick, None).drive_writes,
        },
        None => Scales::for_target(o.quick, identity.emulated.then_some(capacity)),
    };
    let wall = target.clock() == Clock::Wall;
    let result = RunResult {
        schema: SCHEMA.into(),
        kind: "run".into(),
        target: identity,
        spec: o.spec.clone(),
        steps: Vec::new(),
        derived: Derived::default(),
        clock: if wall { "wall" } else { "virtual" }.into(),
        partial: false,
        run: None,
        figures: Default::default(),
        device_log: Vec::new(),
    };
    let info = RunInfo {
        quick: o.quick,
        seed: o.seed,
        protocol: Some(PROTOCOL.into()),
        repeat: Some(
            o.plan
                .passes
                .iter()
                .map(|p| p.repetition)
                .max()
                .unwrap_or(1),
        ),
        fill: Some(o.fill),
        until_steady: Some(o.until_steady),
        time_scale: Some(scales.time),
        idle_time_scale: Some(scales.idle),
        load_time_scale: Some(scales.load_time),
        drive_write_scale: Some(scales.drive_writes),
        ..Default::default()
    };
    let mut c = Ctx {
        range: used_range(capacity, o.fill),
        target,
        o,
        ctl: &ctl,
        observer,
        scales,
        capacity,
        wall,
        clock_ns: 0,
        log: DeviceLog::default(),
        index: 0,
        count: o.plan.phase_count(),
        result,
        info,
        steps_run: 0,
    };
    'passes: for pass in &o.plan.passes {
        let label = pass_label(pass, &o.plan);
        for phase in &pass.phases {
            c.index += 1;
            let end = match phase {
                // A failure once the drive is being written is part of the result (exit 1,
                // with the error named in run.json); only bad input is an error here.
                Phase::Reset => match c.reset(&label) {
                    Ok(()) => false,
                    Err(e) if c.result.steps.is_empty() && e.is_usage() => return Err(e),
                    Err(e) => {
                        c.info.error = Some(format!("reset: {}", chain(&e)));
                        true
                    }
                },
                Phase::Idle(s) => {
                    c.idle(&label, *s);
                    c.ctl.stopped()
                }
                Phase::Init {
                    bs,
                    qd,
                    drive_writes,
                } => match c.init(&label, *bs, *qd, *drive_writes) {
                    Ok(stopped) => stopped,
                    Err(e) if c.result.steps.is_empty() && e.is_usage() => return Err(e),
                    Err(e) => {
                        c.info.error = Some(format!("init: {}", chain(&e)));
                        true
                    }
                },
                Phase::Step(step) => c.step(pass, step),
            };
            if end {
                c.result.partial = true;
                break 'passes;
            }
        }
    }
    let Ctx {
        mut result,
        mut info,
        log,
        clock_ns,
        ..
    } = c;
    info.elapsed_s = clock_ns as f64 / 1e9;
    info.wall_s = Some(started.elapsed().as_secs_f64());
    result.device_log = log.points;
    fill_implied(&mut result);
    result.figures = figures::compute(&result);
    result.derived.implied_not_meaningful = implied_caveat_of(&result);
    result.derived.op_estimate_formula = result.figure(keys::OP_ESTIMATE).map(|f| f.median);
    result.derived.op_estimate_greedy = result.figure(keys::OP_ESTIMATE_GREEDY).map(|f| f.median);
    result.run = Some(info);
    Ok(result)
}

/// Implied WAF of every workload: the spec sequential write bandwidth, else what the drive's
/// sequential writes measured, over each interval's write bandwidth, by the reference rule.
/// The measured figure is the seq_write steps' free-pool phase where they have one: the paper
/// implies WA from its sequential write, which is that phase (docs/drives.md), while the
/// steps' 60-99% value is bound by GC (a tenth of it on a greedy drive: an implied WA below 1).
fn fill_implied(r: &mut RunResult) {
    let (basis, words) = match r.spec.as_ref().and_then(|s| s.seq_write_mb_s) {
        Some(b) => (b, format!("the spec sequential write bandwidth ({b} MB/s)")),
        None => {
            let seq_writes = || r.steps.iter().filter(|s| s.name == steps::SEQ_WRITE);
            let pools: Vec<f64> = seq_writes()
                .filter_map(|s| Some(s.free_pool.as_ref()?.mb_s))
                .collect();
            let (seq, what) = if pools.is_empty() {
                let whole = seq_writes().filter_map(|s| s.value.as_ref()?.mb_s);
                (whole.collect(), "runs of seq_write")
            } else {
                (pools, "seq_write steps' free-pool phases")
            };
            match crate::reference::median(&seq) {
                Some(m) => (
                    m,
                    format!(
                        "the measured sequential write bandwidth ({m:.1} MB/s, median of {} {what}); no spec seq_write_mb_s",
                        seq.len()
                    ),
                ),
                None => return,
            }
        }
    };
    r.derived.implied_basis = Some(words);
    for s in r.steps.iter_mut() {
        if s.name.starts_with("rand_write") {
            s.waf_implied = implied_waf(s, basis);
        }
    }
}

/// [`crate::derived::implied_caveat`] of the run's uniform implied WA.
fn implied_caveat_of(r: &RunResult) -> Option<String> {
    let uniform = |family: &str| r.figure(&keys::of(family, "uniform")).map(|f| f.median);
    let basis = r
        .derived
        .implied_basis
        .as_deref()
        .unwrap_or("the sequential write");
    crate::derived::implied_caveat(
        basis,
        uniform(keys::WAF_IMPLIED)?,
        uniform(keys::WAF_MEASURED),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_intervals() {
        assert_eq!(interval_for(300.0), 1.0);
        assert_eq!(interval_for(100.0), 1.0);
        assert_eq!(interval_for(60.0), 0.5);
        assert_eq!(interval_for(5.37), 0.05);
        assert_eq!(interval_for(0.3), 0.002);
        assert_eq!(interval_for(0.01), 0.001);
    }

    /// Without a spec, the implied WA's basis is the seq_write steps' free-pool phase when
    /// they have one (the paper's sequential write), else their whole value.
    #[test]
    fn implied_wa_rests_on_the_free_pool_phase_without_a_spec() {
        use ssdiq_schema::{FreePool, StepResult, StepValue};
        let seq = |mb_s: f64, pool: Option<f64>| StepResult {
            name: steps::SEQ_WRITE.into(),
            value: Some(StepValue {
                mb_s: Some(mb_s),
                ..Default::default()
            }),
            free_pool: pool.map(|mb_s| FreePool {
                mb_s,
                share: 0.5,
                rounds: 3,
            }),
            ..Default::default()
        };
        let mut r = RunResult {
            steps: vec![seq(300.0, Some(1400.0)), seq(280.0, Some(1390.0))],
            ..Default::default()
        };
        fill_implied(&mut r);
        let b = r.derived.implied_basis.unwrap();
        assert!(
            b.contains("(1395.0 MB/s, median of 2 seq_write steps' free-pool phases)"),
            "{b}"
        );
        let mut r = RunResult {
            steps: vec![seq(300.0, None)],
            ..Default::default()
        };
        fill_implied(&mut r);
        let b = r.derived.implied_basis.unwrap();
        assert!(
            b.contains("(300.0 MB/s, median of 1 runs of seq_write)"),
            "{b}"
        );
    }

    #[test]
    fn used_ranges() {
        assert_eq!(used_range(16 << 30, 1.0), 16 << 30);
        assert_eq!(used_range(16 << 30, 0.5), 8 << 30);
        assert_eq!(used_range(1 << 20, 0.001), LARGE_BS);
    }
}
