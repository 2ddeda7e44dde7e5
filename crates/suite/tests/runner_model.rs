//! The runner against a model drive whose throughput and WAF are known functions of the
//! drive writes done: checks the round logic (warm-up, steady window, totals over the
//! window), the derived metrics and the partial result of a stopped run, in milliseconds.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ssdiq_engine::series::SeriesSink;
use ssdiq_engine::stats::StreamId;
use ssdiq_engine::{Clock, EngineError, Executor, Job, Recorder, RunControl, Stats, WriteCounters};
use ssdiq_schema::TargetInfo;
use ssdiq_schema::{steps, RunResult};
use ssdiq_suite::plan::{Plan, PlanOptions};
use ssdiq_suite::{run, RunOptions, Silent, SuiteError, SuiteTarget};
use ssdiq_workload::Op;

const CAP: u64 = 64 << 20;
/// Steady-state random-write WAF of the model and its flash write bandwidth (bytes/s).
const WAF: f64 = 4.0;
const FLASH: f64 = 1e9;

/// Random writes get slower and amplify more as the drive fills with invalid pages, settling
/// after about one drive write of random writes; sequential I/O runs at the flash bandwidth.
struct Model {
    random_written: f64,
    host: u64,
    media: f64,
    jobs: u32,
    stop_after: Option<(u32, Arc<AtomicBool>)>,
    /// The job number that fails like a drive returning EIO.
    fail_at: Option<u32>,
    /// The job number whose I/O fails with this errno the way the engine reports it: the
    /// job drains and returns its statistics, partial, with the failure counted.
    io_error_at: Option<(u32, i32)>,
}

impl Model {
    fn waf(&self) -> f64 {
        1.0 + (WAF - 1.0) * (1.0 - (-3.0 * self.random_written / CAP as f64).exp())
    }
}

impl Executor for Model {
    fn run(&mut self, job: &Job, ctl: &RunControl<'_>) -> Result<Stats, EngineError> {
        self.jobs += 1;
        if self.fail_at == Some(self.jobs) {
            return Err(EngineError::io(
                "pwrite at offset 4096",
                std::io::Error::from_raw_os_error(5), // EIO,
            ));
        }
        if let Some((n, flag)) = &self.stop_after {
            if self.jobs >= *n {
                flag.store(true, Ordering::Relaxed);
            }
        }
        let op = job.mix.ops()[0];
        let random = !job.pattern.is_sequential();
        let waf = if random && op == Op::Write {
            self.waf()
        } else {
            1.0
        };
        let bw = FLASH / waf;
        let bytes = match (job.bound.bytes, job.bound.time_ns) {
            (Some(b), _) => b,
            (None, Some(t)) => (bw * t as f64 / 1e9) as u64 / job.bs * job.bs,
            _ => unreachable!(),
        };
        let elapsed = (bytes as f64 / bw * 1e9) as u64;
        let sink = Arc::new(SeriesSink::new(1));
        let mut streams = vec![StreamId::main(op)];
        streams.extend(job.probes.iter().map(|&p| StreamId::probe(p)));
        let mut rec = Recorder::new(sink.clone(), 0, &streams);
        let ios = bytes / job.bs;
        for i in 0..ios {
            rec.record(StreamId::main(op), elapsed * (i + 1) / ios, 50_000, job.bs);
        }
        for &p in &job.probes {
            for i in 0..100 {
                rec.record(
                    StreamId::probe(p),
                    elapsed * i / 100,
                    20_000 + i * 100,
                    4096,
                );
            }
        }
        if op == Op::Write {
            self.host += bytes;
            self.media += bytes as f64 * waf;
            if random {
                self.random_written += bytes as f64;
            }
        }
        let failed = match self.io_error_at {
            Some((n, errno)) if n == self.jobs => {
                rec.fail(op, 8 << 20, job.bs, Some(errno), elapsed);
                true
            }
            _ => false,
        };
        let mut stats = Stats::collect(Clock::Virtual, elapsed, vec![rec.finish()], &sink);
        stats.partial = ctl.stopped() || failed;
        Ok(stats)
    }
}

struct ModelTarget(Model);

impl SuiteTarget for ModelTarget {
    fn job_target(&self) -> String {
        "model".into()
    }
    fn capacity_bytes(&self) -> u64 {
        CAP
    }
    fn identity(&self) -> TargetInfo {
        TargetInfo {
            name: "model".into(),
            capacity_bytes: CAP,
            emulated: true,
            reports_media_writes: true,
            ..Default::default()
        }
    }
    fn clock(&self) -> Clock {
        Clock::Virtual
    }
    fn reset(&mut self) -> Result<String, SuiteError> {
        self.0.random_written = 0.0;
        Ok("model reset".into())
    }
    fn counters(&mut self) -> Option<WriteCounters> {
        Some(WriteCounters {
            host_bytes: self.0.host,
            media_bytes: Some(self.0.media as u64),
        })
    }
    fn executor(&mut self) -> &mut dyn Executor {
        &mut self.0
    }
}

fn target(stop_after: Option<(u32, Arc<AtomicBool>)>) -> ModelTarget {
    ModelTarget(Model {
        random_written: 0.0,
        host: 0,
        media: 0.0,
        jobs: 0,
        stop_after,
        fail_at: None,
        io_error_at: None,
    })
}

fn options() -> RunOptions {
    RunOptions {
        plan: Plan::ssd_iq(PlanOptions {
            quick: true,
            threads: 1,
        }),
        spec: None,
        seed: 1,
        quick: true,
        threads: 1,
    }
}

/// The whole quick plan with no stop requested.
fn run_to_end(t: &mut ModelTarget) -> RunResult {
    run(t, &options(), Arc::new(AtomicBool::new(false)), &Silent).unwrap()
}

#[test]
fn steady_windows_and_derived_metrics() {
    let mut t = target(None);
    let r = run_to_end(&mut t);
    assert!(!r.partial);
    assert_eq!(r.steps.len(), 7);
    let u = r.step(steps::RAND_WRITE_UNIFORM).unwrap();
    let c = u.convergence.as_ref().unwrap();
    assert!(c.converged);
    // Quick: rounds of 0.1 drive writes, no window before 0.3 drive writes.
    assert!(c.window_first.unwrap() >= 3, "{c:?}");
    assert_eq!(c.rounds, c.window_first.unwrap() + 5);
    assert!(
        (c.drive_writes - c.rounds as f64 * 0.1).abs() < 1e-3,
        "{c:?}"
    );
    assert_eq!(u.series.len(), c.rounds as usize);
    // Totals cover the window: the window's WAF, and implied equals measured on this model.
    let m = u.waf_measured.unwrap();
    let i = u.waf_implied.unwrap();
    assert!(m > 2.5 && m < WAF, "{m}");
    assert!((i / m - 1.0).abs() < 0.02, "implied {i} vs measured {m}");
    let f = r.derived.op_estimate_formula.unwrap();
    assert!((f - 1.0 / (2.0 * m)).abs() < 1e-12);
    assert!(r.derived.op_estimate_greedy.unwrap() > 0.0);
    // No spec: the load is 25% of the measured uniform bandwidth, and says so.
    let w = u.ops["write"].mb_s;
    assert!((r.derived.load_mb_s.unwrap() - 0.25 * w).abs() < 1e-9);
    assert!(r.derived.load_basis.as_ref().unwrap().contains("measured"));
    let lat = r.step(steps::LATENCY_UNDER_LOAD).unwrap();
    assert_eq!(lat.probes["read"].ios, 100);
    assert!(lat.probes["write"].lat_ns.p99_9 >= 20_000);
    let run = r.run.as_ref().unwrap();
    assert_eq!(run.precondition_bytes, CAP);
    assert_eq!(run.reset, "model reset");
}

#[test]
fn a_stop_keeps_the_steps_so_far() {
    let stop = Arc::new(AtomicBool::new(false));
    // Job 1 is the preconditioning, jobs 2.. the rounds of seq_read: stop in its third.
    let mut t = target(Some((4, stop.clone())));
    let r = run(&mut t, &options(), stop, &Silent).unwrap();
    assert!(r.partial);
    let names: Vec<_> = r.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, [steps::SEQ_READ]);
    assert_eq!(r.steps[0].series.len(), 3);
}

#[test]
fn an_error_keeps_the_steps_so_far_and_says_what_ended_the_run() {
    let mut t = target(None);
    // Job 1 is the preconditioning; seq_read runs 5+ rounds; fail in the step after it.
    t.0.fail_at = Some(12);
    let r = run_to_end(&mut t);
    assert!(r.partial);
    assert_eq!(r.steps[0].name, steps::SEQ_READ);
    assert!(r.steps.len() < 7, "{}", r.steps.len());
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("step "), "{err}");
    assert!(err.contains("pwrite at offset 4096"), "{err}");
}

#[test]
fn an_io_error_in_a_round_is_an_error_not_an_interruption() {
    let mut t = target(None);
    // ENOSPC in the third round of seq_read (jobs 2.. are its rounds).
    t.0.io_error_at = Some((4, 28));
    let r = run_to_end(&mut t);
    assert!(r.partial);
    assert!(r.steps.is_empty(), "seq_read failed: no step finished");
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("step seq_read: "), "{err}");
    assert!(err.contains("ENOSPC"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

#[test]
fn an_io_error_after_finished_steps_keeps_them() {
    let mut t = target(None);
    t.0.io_error_at = Some((12, 5));
    let r = run_to_end(&mut t);
    assert!(r.partial);
    assert_eq!(r.steps[0].name, steps::SEQ_READ);
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.contains("EIO"), "{err}");
}

#[test]
fn an_io_error_in_the_preconditioning_still_gives_a_result() {
    let mut t = target(None);
    t.0.io_error_at = Some((1, 28));
    let r = run_to_end(&mut t);
    assert!(r.partial);
    assert!(r.steps.is_empty());
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("precondition: "), "{err}");
    assert!(err.contains("ENOSPC"), "{err}");
    // The hard failure of the engine itself is kept as well.
    let mut t = target(None);
    t.0.fail_at = Some(1);
    let r = run_to_end(&mut t);
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("precondition: "), "{err}");
}
