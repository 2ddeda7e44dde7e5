//! One measured run: load, warm up, measure; the metrics of the measured window.
//!
//! The paper runs until the DB wrote 4x the device capacity and reports the final hour; here
//! the warm-up and the measured window are bounds on the bytes the store writes (multiples of
//! the device capacity) or on operations.

use std::time::Instant;

use crate::driver::{Clock, OpStream, Runner, Until};
use crate::metrics::Snapshot;
use crate::store::{Store, StoreError};
pub use ssdiq_schema::store::Outcome;

#[derive(Clone, Copy, Debug)]
pub struct Phases {
    pub warmup: Until,
    pub measure: Until,
    pub workers: u32,
    pub op_cpu_ns: u64,
}

/// CPU time of the calling thread, in seconds.
pub fn thread_cpu_s() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given; the clock id is a constant.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if r != 0 {
        return 0.0;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// Which phase a progress report is from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    Load {
        pages: u64,
        of: u64,
    },
    /// `done`: the share of the phase's bound reached, 0 to 1.
    Warmup {
        done: f64,
    },
    Measure {
        done: f64,
    },
}

pub fn run(
    store: &mut Store,
    ops: &mut OpStream,
    p: &Phases,
    stop: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(Phase, Clock),
) -> Result<Outcome, StoreError> {
    let t0 = Instant::now();
    let c0 = thread_cpu_s();
    let pages = store.config().pages;
    store.load_until(
        &mut |n| {
            progress(
                Phase::Load {
                    pages: n,
                    of: pages,
                },
                Clock::default(),
            )
        },
        stop,
    )?;
    let load_wall_s = t0.elapsed().as_secs_f64();
    let mut r = Runner::new(p.workers, p.op_cpu_ns);
    r.run(store, ops, p.warmup, stop, &mut |_, c, done| {
        progress(Phase::Warmup { done }, c)
    })?;
    let warmup_ops = r.clock.ops;
    let a = Snapshot::take(store, r.clock);
    let tm = Instant::now();
    let cm = thread_cpu_s();
    r.run(store, ops, p.measure, stop, &mut |_, c, done| {
        progress(Phase::Measure { done }, c)
    })?;
    let b = Snapshot::take(store, r.clock);
    let measure_wall_s = tm.elapsed().as_secs_f64();
    let measure_cpu_s = thread_cpu_s() - cm;
    Ok(Outcome {
        metrics: crate::metrics::between(&a, &b),
        load_wall_s,
        warmup_ops,
        wall_s: t0.elapsed().as_secs_f64(),
        measure_wall_s,
        cpu_s: thread_cpu_s() - c0,
        measure_cpu_s,
        partial: stop(),
        metadata_bytes: store.metadata_bytes(),
        groups: store.space().map_or((0, 0), |s| s.group_counts()),
        space_totals: store.space().map(|s| s.counters),
        size_model: store.size_calibration(),
    })
}
