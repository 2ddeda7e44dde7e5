//! Open-loop probes on the real executors (io_uring, libaio and psync) over a file: a probe due far
//! faster than the file can serve at its queue depth builds a backlog, and an open-loop probe
//! times each I/O from its due time, so its latency grows with the backlog; the closed-loop
//! (fio-style) probe times from submission and reports the service time only.

use ssdiq_engine::{EngineKind, Executor, Job, Probe, RealExecutor, RunControl};
use ssdiq_workload::units::Rate;
use ssdiq_workload::{Op, RwMix};

fn probe_mean_ns(engine: EngineKind, open_loop: bool) -> (f64, u64) {
    probe_at(engine, open_loop, 10_000_000.0)
}

/// The probe's mean latency and I/Os with the probe due `iops` times a second.
fn probe_at(engine: EngineKind, open_loop: bool, iops: f64) -> (f64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let mut j = Job::new(
        path.to_str().unwrap(),
        RwMix::parse("randread").unwrap(),
        4096,
        8 << 20,
    );
    // The main load: one slow-paced reader, so the job is about the probe.
    j.rate = Some(Rate::IoPerSec(100.0));
    j.bound.bytes = None;
    j.bound.time_ns = Some(400_000_000);
    j.engine = engine;
    // The page cache where the engine allows it (libaio is asynchronous only with O_DIRECT).
    j.direct = engine == EngineKind::Libaio;
    j.probes = vec![Probe::READ];
    j.probe_rate = Some(Rate::IoPerSec(iops));
    j.probe_open_loop = open_loop;
    let s = RealExecutor::new().run(&j, &RunControl::default()).unwrap();
    let p = &s.probes[&Op::Read];
    (p.mean_ns(), p.ios)
}

#[test]
fn open_loop_latency_counts_the_backlog_on_every_engine() {
    for engine in [EngineKind::IoUring, EngineKind::Libaio, EngineKind::Psync] {
        // Far above what one thread can do at QD1 through syscalls: 10 M IOPS.
        let (open_ns, open_ios) = probe_mean_ns(engine, true);
        let (closed_ns, _) = probe_mean_ns(engine, false);
        println!(
            "{}: open-loop mean {:.0} us over {open_ios} I/Os, closed-loop {:.1} us",
            engine.name(),
            open_ns / 1e3,
            closed_ns / 1e3
        );
        // 0.4 s of a backlog growing from 0: the mean wait is about half of it.
        assert!(open_ns > 50e6, "{}: {open_ns}", engine.name());
        assert!(closed_ns < 5e6, "{}: {closed_ns}", engine.name());
    }
}

/// A probe the file keeps up with has no backlog: timed from its due times, its mean is a
/// service time, far below the 0.4 s job (a request once timed from its byte offset, read as
/// a due time, measured about half the job, as a backlog would).
#[test]
fn open_loop_latency_without_a_backlog_is_the_service_time() {
    for engine in [EngineKind::IoUring, EngineKind::Libaio, EngineKind::Psync] {
        let (open_ns, ios) = probe_at(engine, true, 1000.0);
        println!(
            "{}: open-loop mean {:.1} us over {ios} I/Os",
            engine.name(),
            open_ns / 1e3
        );
        assert!(ios > 100, "{}: {ios}", engine.name());
        assert!(open_ns < 20e6, "{}: {open_ns}", engine.name());
    }
}
