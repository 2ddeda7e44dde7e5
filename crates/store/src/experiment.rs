//! One measured run: load, warm up, measure; the metrics of the measured window.
//!
//! The paper runs until the DB wrote 4x the device capacity and reports the final hour; here
//! the warm-up and the measured window are bounds on the bytes the store writes (multiples of
//! the device capacity) or on operations.

use std::time::Instant;

use crate::driver::{Clock, OpStream, Runner, Until};
use crate::metrics::{Metrics, Snapshot};
use crate::store::{Store, StoreError};

#[derive(Clone, Copy, Debug)]
pub struct Phases {
    pub warmup: Until,
    pub measure: Until,
    pub workers: u32,
    pub op_cpu_ns: u64,
}

/// What happened in a run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Outcome {
    pub metrics: Metrics,
    pub load_wall_s: f64,
    pub warmup_ops: u64,
    /// Wall seconds of the whole run and of the measured window alone.
    pub wall_s: f64,
    pub measure_wall_s: f64,
    /// Stopped early (signal): the window is shorter than asked.
    pub partial: bool,
    pub metadata_bytes: u64,
    /// (groups with live data, imbalanced groups) at the end (NoWA bookkeeping).
    pub groups: (u64, u64),
    /// The space manager's counters over the whole run (load and warm-up included).
    pub space_totals: Option<crate::space::SpaceCounters>,
}

/// Which phase a progress report is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Load { pages: u64, of: u64 },
    Warmup,
    Measure,
}

pub fn run(
    store: &mut Store,
    ops: &mut OpStream,
    p: &Phases,
    stop: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(Phase, Clock),
) -> Result<Outcome, StoreError> {
    let t0 = Instant::now();
    let pages = store.config().pages;
    store.load(&mut |n| {
        progress(
            Phase::Load {
                pages: n,
                of: pages,
            },
            Clock::default(),
        )
    })?;
    let load_wall_s = t0.elapsed().as_secs_f64();
    let mut r = Runner::new(p.workers, p.op_cpu_ns);
    r.run(store, ops, p.warmup, stop, &mut |_, c| {
        progress(Phase::Warmup, c)
    })?;
    let warmup_ops = r.clock.ops;
    let a = Snapshot::take(store, r.clock);
    let tm = Instant::now();
    r.run(store, ops, p.measure, stop, &mut |_, c| {
        progress(Phase::Measure, c)
    })?;
    let b = Snapshot::take(store, r.clock);
    let measure_wall_s = tm.elapsed().as_secs_f64();
    Ok(Outcome {
        metrics: Metrics::between(&a, &b),
        load_wall_s,
        warmup_ops,
        wall_s: t0.elapsed().as_secs_f64(),
        measure_wall_s,
        partial: stop(),
        metadata_bytes: store.metadata_bytes(),
        groups: store.space().map_or((0, 0), |s| s.group_counts()),
        space_totals: store.space().map(|s| s.counters),
    })
}
