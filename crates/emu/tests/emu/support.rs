//! Helpers the test modules share.

use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, FillMode, Job, RunControl};
use ssdiq_workload::RwMix;

/// A fresh drive of `target`, written once sequentially (1 MiB writes), then idle for
/// `idle_s` virtual seconds (its buffer and SLC cache settle).
pub fn filled(target: &str, idle_s: u64) -> EmuExecutor {
    let mut e = EmuExecutor::open(target).unwrap();
    let mut j = Job::new(
        "emu",
        RwMix::parse("write").unwrap(),
        1 << 20,
        e.capacity_bytes(),
    );
    j.fill = Some(FillMode::Seq);
    j.bound.bytes = Some(1 << 20);
    e.run(&j, &RunControl::default()).unwrap();
    e.idle_for(idle_s * 1_000_000_000);
    e
}
