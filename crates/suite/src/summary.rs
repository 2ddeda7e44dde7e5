//! A step's rounds -> the step of the result model.
//!
//! Invariants:
//! - Totals (`ops`, `probes`, the measured WAF) cover the steady window when there is one,
//!   else the last `rounds` rounds (all of them for one-round steps): the numbers a table
//!   shows are steady-state numbers, not averages over the transient.
//! - `series` has one point per round and `seconds` every per-second point of every round,
//!   both on the step's own time axis (the sum of the earlier rounds' lengths).
//! - Convergence drive writes are host bytes written by the step up to the end of the steady
//!   window (or of the step) over the capacity.

use std::collections::BTreeMap;

use ssdiq_engine::hist::OpStats;
use ssdiq_schema::{Convergence, SeriesPoint, StepResult};
use ssdiq_workload::Op;

use crate::convert::{op_summary, seconds};
use crate::plan::Step;
use crate::step::{Round, StepOutcome};

/// Rounds summed when no steady window was found.
const TAIL_ROUNDS: usize = 5;

fn merge(
    rounds: &[Round],
    pick: impl Fn(&Round) -> &BTreeMap<Op, OpStats>,
) -> BTreeMap<Op, OpStats> {
    let mut m: BTreeMap<Op, OpStats> = BTreeMap::new();
    for r in rounds {
        for (op, s) in pick(r) {
            m.entry(*op).or_default().merge(s);
        }
    }
    m
}

/// The rounds the totals are taken over.
pub fn window(o: &StepOutcome) -> std::ops::Range<usize> {
    match o.window {
        Some(w) => w.first..(w.first + TAIL_ROUNDS).min(o.rounds.len()),
        None => o.rounds.len().saturating_sub(TAIL_ROUNDS)..o.rounds.len(),
    }
}

pub fn step_result(step: &Step, o: &StepOutcome, capacity: u64) -> StepResult {
    let win = window(o);
    let rounds = &o.rounds[win.clone()];
    let elapsed: u64 = rounds.iter().map(|r| r.elapsed_ns).sum();
    let named = |m: BTreeMap<Op, OpStats>| {
        m.iter()
            .map(|(op, s)| (op.name().to_string(), op_summary(s, elapsed)))
            .collect()
    };
    let host: Option<u64> = rounds.iter().map(|r| r.host_bytes).sum();
    let media: Option<u64> = rounds.iter().map(|r| r.media_bytes).sum();
    let waf_measured = host
        .zip(media)
        .and_then(|(h, m)| crate::derived::measured_waf(h as u128, m as u128))
        .filter(|_| step.mix.writes());
    let mut series = Vec::with_capacity(o.rounds.len());
    let mut secs = Vec::new();
    let mut t = 0.0;
    for r in &o.rounds {
        secs.extend(seconds(&r.seconds, t));
        t += r.elapsed_ns as f64 / 1e9;
        series.push(SeriesPoint {
            t_s: t,
            mb_s: r.mb_s(),
            iops: r.iops(),
            waf: r.waf(),
        });
    }
    let written =
        |rs: &[Round]| rs.iter().map(Round::written).sum::<u64>() as f64 / capacity as f64;
    let convergence = o.tracked.then(|| Convergence {
        converged: o.window.is_some(),
        rounds: o.rounds.len() as u32,
        window_first: o.window.map(|w| w.first as u32),
        drive_writes: written(&o.rounds[..win.end]),
    });
    StepResult {
        name: step.name.to_string(),
        pattern: step.pattern.to_string(),
        rw: step.mix.to_string(),
        bs: step.bs,
        qd: step.qd,
        threads: step.threads,
        ops: named(merge(rounds, |r| &r.ops)),
        probes: named(merge(rounds, |r| &r.probes)),
        convergence,
        waf_measured,
        waf_implied: None,
        series,
        seconds: secs,
        elapsed_s: Some(t),
        rate_mb_s: None,
    }
}
