//! Absurd but valid-looking jobs end cleanly or are refused before any I/O (issue 15): tiny
//! rates, rate waits against --time and the stop flag, thread and duration limits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ssdiq_engine::{EmuExecutor, EngineKind, Executor, Job, Probe, RealExecutor, RunControl};
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
fn a_rate_slower_than_the_time_bound_is_refused() {
    let mut j = timed("randwrite", 1 << 30, 1);
    j.rate = Some(Rate::BytesPerSec(1e-9));
    let e = j.validate().unwrap_err().to_string();
    assert!(e.contains("--rate") && e.contains("--time"), "{e}");
    // Two requests fit: fine.
    j.rate = Some(Rate::IoPerSec(2.5));
    j.validate().unwrap();
    let mut j = timed("randread", 1 << 30, 10);
    j.probes = vec![Probe::READ];
    j.probe_rate = Some(Rate::IoPerSec(0.01));
    let e = j.validate().unwrap_err().to_string();
    assert!(e.contains("--probe-rate"), "{e}");
}

#[test]
fn a_rate_limited_job_without_time_bound_must_end_within_the_job_limit() {
    let mut j = Job::new("t", RwMix::parse("randread").unwrap(), 4096, 1 << 30);
    j.rate = Some(Rate::IoPerSec(0.001));
    let e = j.validate().unwrap_err().to_string();
    assert!(e.contains("--rate") && e.contains("days"), "{e}");
    j.rate = Some(Rate::IoPerSec(10_000.0));
    j.validate().unwrap();
}

#[test]
fn time_bound_and_threads_have_limits() {
    let mut j = timed("randread", 1 << 30, 1);
    j.bound.time_ns = Some(u64::MAX / 2);
    let e = j.validate().unwrap_err().to_string();
    assert!(e.contains("--time"), "{e}");
    let mut j = timed("randread", 1 << 30, 1);
    j.threads = 100_000;
    let e = j.validate().unwrap_err().to_string();
    assert!(e.contains("--threads \"100000\""), "{e}");
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

fn scratch(len: u64) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    std::fs::File::create(&f).unwrap().set_len(len).unwrap();
    let p = f.to_str().unwrap().to_string();
    (dir, p)
}

#[test]
fn real_rate_waits_end_at_the_time_bound() {
    let (_d, f) = scratch(1 << 20);
    for engine in [EngineKind::Psync, EngineKind::IoUring] {
        let mut j = timed("randread", 1 << 20, 2);
        j.target = f.clone();
        j.direct = false;
        j.engine = engine;
        // Every 1.6 s: the second request at 1.6 s, the third would wait until 3.2 s.
        j.rate = Some(Rate::IoPerSec(0.625));
        let t0 = Instant::now();
        let s = RealExecutor::new().run(&j, &RunControl::default()).unwrap();
        let wall = t0.elapsed();
        assert_eq!(s.ops[&Op::Read].ios, 2, "{engine:?}");
        assert!(
            wall < Duration::from_millis(2900),
            "{engine:?}: a 2 s job took {wall:?}"
        );
    }
}

#[test]
fn real_rate_waits_end_at_the_stop_flag() {
    let (_d, f) = scratch(1 << 20);
    for engine in [EngineKind::Psync, EngineKind::IoUring] {
        let mut j = timed("randread", 1 << 20, 60);
        j.target = f.clone();
        j.direct = false;
        j.engine = engine;
        j.rate = Some(Rate::IoPerSec(0.05));
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            s2.store(true, Ordering::Relaxed);
        });
        let t0 = Instant::now();
        let ctl = RunControl::new(stop, &ssdiq_engine::NoProgress);
        let s = RealExecutor::new().run(&j, &ctl).unwrap();
        setter.join().unwrap();
        assert!(s.partial);
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "{engine:?}: stopping a 20 s wait took {:?}",
            t0.elapsed()
        );
    }
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
