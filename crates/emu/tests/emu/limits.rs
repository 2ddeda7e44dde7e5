//! Absurd but valid-looking jobs on the emulated drive end cleanly (issue 15): rate waits
//! against --time, and long idle jobs.

use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, Job, RunControl};
use ssdiq_workload::units::Rate;
use ssdiq_workload::{Op, RwMix};

fn emu() -> EmuExecutor {
    EmuExecutor::open("emu:default,capacity=1GiB,units_per_block=1").unwrap()
}

fn timed(rw: &str, range: u64, secs: u64) -> Job {
    let mut j = Job::new("t", RwMix::parse(rw).unwrap(), 4096, range);
    j.bound.bytes = None;
    j.bound.time_ns = Some(secs * 1_000_000_000);
    j
}

#[test]
fn emulated_rate_wait_ends_at_the_time_bound_with_bounded_series() {
    let mut e = emu();
    let mut j = timed("randwrite", e.capacity_bytes(), 3);
    j.target = "emu".into();
    // One 4 KiB write every 2 s: two fit in 3 s, the third would start after the bound.
    j.rate = Some(Rate::BytesPerSec(2048.0));
    let s = e.run(&j, &RunControl::default()).unwrap();
    assert_eq!(s.ops[&Op::Write].ios, 2);
    assert_eq!(
        s.elapsed_ns, 3_000_000_000,
        "the job ran its whole time, idle"
    );
    assert!(s.series.len() <= 4, "{} series points", s.series.len());
    assert!(!s.partial);
}

#[test]
fn a_long_idle_job_keeps_a_short_series() {
    // 20 virtual days, one write an hour: 480 writes, not 1.7 million per-second rows.
    let mut e = emu();
    let mut j = timed("randwrite", e.capacity_bytes(), 20 * 86_400);
    j.target = "emu".into();
    j.rate = Some(Rate::IoPerSec(1.0 / 3600.0));
    let s = e.run(&j, &RunControl::default()).unwrap();
    assert_eq!(s.ops[&Op::Write].ios, 480);
    assert!(s.series.len() < 2000, "{} rows", s.series.len());
    assert_eq!(s.elapsed_ns, 20 * 86_400 * 1_000_000_000);
}
