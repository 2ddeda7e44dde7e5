//! The whole SSD-iq procedure on one target: reset, sequential preconditioning, the plan's
//! steps in order, derived metrics, and the `"kind": "run"` result.
//!
//! Invariants:
//! - Nothing here prints; progress goes to the [`Observer`].
//! - A stop request (Ctrl-C) ends the run after the running job drains; the result holds
//!   every step begun so far and `partial: true`.
//! - Implied WAF uses the measured sequential write bandwidth (the spec's when that step did
//!   not run); the latency-under-load rate uses the spec's random-write bandwidth, else the
//!   measured uniform one, and the result says which.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use ssdiq_engine::{Clock, RunControl};
use ssdiq_schema::Spec;
use ssdiq_schema::{steps, Derived, RunInfo, RunResult, StepResult, SCHEMA};
use ssdiq_workload::units::Rate;
use ssdiq_workload::{Pattern, RwMix};

use crate::derived::{implied_waf, op_from_greedy, op_from_waf_formula};
use crate::observe::{Observer, Phase, Unit};
use crate::plan::{Plan, Step};
use crate::spec::spec_rand_write_bytes_per_s;
use crate::step::{run_round, run_step, StepContext};
use crate::summary::step_result;
use crate::target::{SuiteError, SuiteTarget};

pub struct RunOptions {
    pub plan: Plan,
    /// The datasheet to compare against (already merged with the target's own).
    pub spec: Option<Spec>,
    pub seed: u64,
    pub quick: bool,
    pub threads: u32,
}

/// Runs the benchmark. `stop` is polled by the engine (set it from a signal handler).
pub fn run(
    target: &mut dyn SuiteTarget,
    o: &RunOptions,
    stop: Arc<AtomicBool>,
    observer: &dyn Observer,
) -> Result<RunResult, SuiteError> {
    let ctl = RunControl::new(stop, &ssdiq_engine::NoProgress);
    let count = o.plan.steps.len() + 2;
    let cx = |index| StepContext {
        ctl: &ctl,
        observer,
        seed: o.seed,
        index,
        count,
    };
    let mut result = RunResult {
        schema: SCHEMA.into(),
        kind: "run".into(),
        target: target.identity(),
        spec: o.spec.clone(),
        steps: Vec::new(),
        derived: Derived::default(),
        clock: match target.clock() {
            Clock::Wall => "wall",
            Clock::Virtual => "virtual",
        }
        .into(),
        partial: false,
        run: None,
    };
    let mut info = RunInfo {
        quick: o.quick,
        seed: o.seed,
        threads: o.threads,
        ..Default::default()
    };

    observer.phase(&Phase {
        name: "reset".into(),
        index: 1,
        count,
        unit: Unit::Seconds,
        total: 0.0,
    });
    // A failure once the drive is being written is part of the result (exit 1, with the
    // error named in run.json); only bad input (nothing written yet) is an error here.
    let ended = |mut result: RunResult, mut info: RunInfo, what: &str, e: SuiteError| {
        if e.is_usage() {
            return Err(e);
        }
        info.error = Some(format!("{what}: {e}"));
        result.partial = true;
        result.run = Some(info);
        Ok(result)
    };
    info.reset = match target.reset() {
        Ok(r) => r,
        Err(e) => return ended(result, info, "reset", e),
    };
    observer.phase_done();

    let pre = match precondition(target, &o.plan, &cx(2)) {
        Ok(p) => p,
        Err(e) => return ended(result, info, "precondition", e),
    };
    info.precondition_bytes = pre.0;
    info.precondition_s = pre.1;
    info.elapsed_s = pre.1;
    result.partial = pre.2;

    for (i, step) in o.plan.steps.iter().enumerate() {
        if result.partial {
            break;
        }
        let rate = step
            .load
            .and_then(|f| load_rate(f.0, &result, o.spec.as_ref()));
        // The write probe is part of the load: the background writes take the rest.
        let probe_bytes_per_s = match step.probe_iops {
            Some(iops) if step.probes.contains(&"write") => iops * step.bs as f64,
            _ => 0.0,
        };
        let main_rate = rate.as_ref().map(|(total, basis)| {
            let main = (total - probe_bytes_per_s).max(total * 0.5);
            result.derived.load_mb_s = Some(total / 1e6);
            result.derived.load_basis = Some(if probe_bytes_per_s > 0.0 {
                format!(
                    "{basis}: background writes {:.1} MB/s plus the write probe's {:.1} MB/s",
                    main / 1e6,
                    (total - main) / 1e6
                )
            } else {
                basis.clone()
            });
            Rate::BytesPerSec(main)
        });
        // A failing step (an I/O error on a real drive) must not throw away the steps that
        // finished: keep them, mark the run partial, and say what ended it.
        let outcome = match run_step(target, step, i, main_rate, &cx(i + 3)) {
            Ok(o) => o,
            Err(e) => {
                info.error = Some(format!("step {}: {e}", step.name));
                result.partial = true;
                break;
            }
        };
        let mut s = step_result(step, &outcome, target.capacity_bytes());
        s.rate_mb_s = rate.map(|r| r.0 / 1e6);
        info.elapsed_s += s.elapsed_s.unwrap_or(0.0);
        result.partial = outcome.stopped;
        result.steps.push(s);
    }
    fill_implied(&mut result);
    result.derived.op_estimate_formula = uniform_waf(&result).and_then(op_from_waf_formula);
    result.derived.op_estimate_greedy = uniform_waf(&result).and_then(op_from_greedy);
    result.run = Some(info);
    Ok(result)
}

/// Sequential writes over the whole capacity. Returns (bytes, seconds, stopped).
fn precondition(
    target: &mut dyn SuiteTarget,
    plan: &Plan,
    cx: &StepContext<'_>,
) -> Result<(u64, f64, bool), SuiteError> {
    let capacity = target.capacity_bytes();
    let bs = plan.precondition_bs;
    let bytes = ((plan.precondition_drive_writes * capacity as f64) as u64 / bs).max(1) * bs;
    let step = Step {
        name: "precondition",
        mix: RwMix::parse("write").expect("built-in mix"),
        pattern: Pattern::Seq,
        bs,
        qd: 32,
        threads: 1,
        bound: crate::plan::Bound::Seconds(0.0),
        probes: Vec::new(),
        probe_iops: None,
        load: None,
    };
    cx.observer.phase(&Phase {
        name: "precondition (seq. init)".into(),
        index: cx.index,
        count: cx.count,
        unit: Unit::Bytes,
        total: bytes as f64,
    });
    let mut job = crate::step::job(&step, &target.job_target(), capacity, cx.seed);
    job.bound.bytes = Some(bytes);
    let (round, partial) = run_round(target, &job, cx, Unit::Bytes, 0.0)?;
    cx.observer.phase_done();
    Ok((
        round.written(),
        round.elapsed_ns as f64 / 1e9,
        partial || cx.ctl.stopped(),
    ))
}

/// The main-load rate of latency under load: `fraction` of the spec random-write bandwidth,
/// else of the measured uniform one. Returns bytes/s and where it came from.
fn load_rate(fraction: f64, r: &RunResult, spec: Option<&Spec>) -> Option<(f64, String)> {
    let pct = fraction * 100.0;
    if let Some(b) = spec.and_then(spec_rand_write_bytes_per_s) {
        return Some((
            fraction * b,
            format!(
                "{pct:.0}% of the spec random-write bandwidth ({:.1} MB/s)",
                b / 1e6
            ),
        ));
    }
    let measured = r
        .step(steps::RAND_WRITE_UNIFORM)
        .and_then(|s| s.ops.get("write"))
        .map(|w| w.mb_s * 1e6)
        .filter(|b| *b > 0.0)?;
    Some((
        fraction * measured,
        format!(
            "{pct:.0}% of the measured steady-state random-write bandwidth ({:.1} MB/s); no spec rand_write_kiops",
            measured / 1e6
        ),
    ))
}

fn write_mb_s(s: &StepResult) -> Option<f64> {
    s.ops.get("write").map(|w| w.mb_s)
}

/// Implied WAF of every random-write step: sequential over random write bandwidth.
fn fill_implied(r: &mut RunResult) {
    let seq = r
        .step(steps::SEQ_WRITE)
        .and_then(write_mb_s)
        .or(r.spec.as_ref().and_then(|s| s.seq_write_mb_s));
    let Some(seq) = seq else { return };
    for s in r.steps.iter_mut() {
        if s.name.starts_with("rand_write") {
            s.waf_implied = write_mb_s(s).and_then(|w| implied_waf(seq, w));
        }
    }
}

/// The uniform-write WAF the OP estimates start from: measured when known, else implied.
fn uniform_waf(r: &RunResult) -> Option<f64> {
    r.step(steps::RAND_WRITE_UNIFORM)
        .and_then(|s| s.waf_measured.or(s.waf_implied))
}
