//! Absurd but valid-looking jobs end cleanly or are refused before any I/O (issue 15): tiny
//! rates, rate waits against --time and the stop flag, thread and duration limits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ssdiq_engine::{EngineKind, Executor, Job, Probe, RealExecutor, RunControl};
use ssdiq_workload::units::Rate;
use ssdiq_workload::{Op, RwMix};

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
