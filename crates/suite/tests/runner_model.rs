//! The runner against a model drive whose throughput and WAF are known functions of the
//! random drive writes since its reset: checks the protocol's passes, the reference values,
//! steady-state reporting and `--until-steady`, `--fill`, `--repeat`, the figures, the device
//! log, and the partial result of a stopped or failed run, in milliseconds.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ssdiq_engine::SeriesSink;
use ssdiq_engine::StreamId;
use ssdiq_engine::{
    Clock, DeviceHealth, DeviceSample, EngineError, Executor, Job, Recorder, RunControl, Stats,
    WriteCounters,
};
use ssdiq_schema::TargetInfo;
use ssdiq_schema::{figures as keys, steps, RunResult};
use ssdiq_suite::plan::{Plan, PlanOptions};
use ssdiq_suite::SteadyCriteria;
use ssdiq_suite::{run, RunOptions, Silent, SuiteError, SuiteTarget};
use ssdiq_workload::Op;

const CAP: u64 = 64 << 20;
/// Steady-state random-write WAF of the model and its flash write bandwidth (bytes/s).
const WAF: f64 = 4.0;
const FLASH: f64 = 1e9;

/// Random small writes get slower and amplify more as the drive fills with invalid pages,
/// settling after about `settle` drive writes of them; large and sequential I/O runs at the
/// flash bandwidth with no amplification.
struct Model {
    random_written: f64,
    settle: f64,
    /// Throughput falls linearly for `settle` drive writes instead of exponentially.
    linear: bool,
    host: u64,
    media: f64,
    jobs: u32,
    ranges: Vec<u64>,
    stop_after: Option<(u32, Arc<AtomicBool>)>,
    /// The job number that fails like a drive returning EIO.
    fail_at: Option<u32>,
    /// The job number whose I/O fails with this errno the way the engine reports it: the
    /// job drains and returns its statistics, partial, with the failure counted.
    io_error_at: Option<(u32, i32)>,
}

impl Model {
    fn waf_at(&self, random_written: f64) -> f64 {
        let x = random_written / CAP as f64 / self.settle;
        if self.linear {
            // Throughput (1 / WAF) falls linearly to an eighth.
            1.0 / (1.0 - 0.875 * x.min(1.0))
        } else {
            1.0 + (WAF - 1.0) * (1.0 - (-x).exp())
        }
    }
}

impl Executor for Model {
    fn run(&mut self, job: &Job, ctl: &RunControl<'_>) -> Result<Stats, EngineError> {
        self.jobs += 1;
        self.ranges.push(job.range_bytes);
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
        let op = if job.mix.writes() {
            Op::Write
        } else {
            Op::Read
        };
        let amplifies = op == Op::Write && !job.pattern.is_sequential() && job.bs < 65536;
        // Each I/O takes at least 50 us: QD1 steps do not write at the flash bandwidth.
        let mut bw = FLASH.min(job.threads as f64 * job.qd as f64 * job.bs as f64 / 50e-6);
        if let Some(r) = job.rate {
            bw = bw.min(match r {
                ssdiq_workload::units::Rate::IoPerSec(i) => i * job.bs as f64,
                ssdiq_workload::units::Rate::BytesPerSec(b) => b,
            });
        }
        let ios = match (job.bound.bytes, job.bound.time_ns) {
            (Some(b), _) => b / job.bs,
            (None, Some(t)) => {
                // Simulate in small slices: throughput falls as the WAF grows.
                let mut done = 0u64;
                let mut t_ns = 0.0;
                let mut rw = self.random_written;
                while t_ns < t as f64 {
                    let waf = if amplifies { self.waf_at(rw) } else { 1.0 };
                    t_ns += job.bs as f64 / (bw / waf) * 1e9;
                    if amplifies {
                        rw += job.bs as f64;
                    }
                    done += 1;
                }
                done
            }
            _ => unreachable!(),
        }
        .max(1);
        let sink = Arc::new(SeriesSink::with_interval(1, job.series_interval_ns));
        let mut streams = vec![StreamId::main(op)];
        for p in &job.probes {
            streams.extend(p.ops().into_iter().map(StreamId::probe));
        }
        let mut rec =
            Recorder::new(sink.clone(), 0, &streams).with_probe_intervals(job.probe_interval_ns);
        let mut t = 0.0f64;
        let mut log = Vec::new();
        let mut next_log = 0u64;
        let (mut host, mut media) = (self.host, self.media);
        for _ in 0..ios {
            let waf = if amplifies {
                self.waf_at(self.random_written)
            } else {
                1.0
            };
            if let Some(every) = job.device_log_ns {
                while t as u64 >= next_log {
                    log.push(DeviceSample {
                        t_ns: next_log,
                        health: DeviceHealth {
                            host_bytes: Some(host),
                            media_bytes: Some(media as u64),
                            free_blocks_pct: Some(5.0),
                            ..Default::default()
                        },
                    });
                    next_log += every;
                }
            }
            t += job.bs as f64 / (bw / waf) * 1e9;
            rec.record(StreamId::main(op), t as u64, 50_000, job.bs);
            if op == Op::Write {
                host += job.bs;
                media += job.bs as f64 * waf;
                if amplifies {
                    self.random_written += job.bs as f64;
                }
            }
        }
        let elapsed = t as u64;
        for p in &job.probes {
            for o in p.ops() {
                for i in 0..100u64 {
                    rec.record(
                        StreamId::probe(o),
                        elapsed * i / 100,
                        20_000 + i * 100,
                        4096,
                    );
                }
            }
        }
        self.host = host;
        self.media = media;
        if job.device_log_ns.is_some() {
            log.push(DeviceSample {
                t_ns: elapsed,
                health: DeviceHealth {
                    host_bytes: Some(host),
                    media_bytes: Some(media as u64),
                    ..Default::default()
                },
            });
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
        stats.device_log = log;
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
            emulated: false,
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
            buffered_bytes: None,
        })
    }
    fn logs_device(&self) -> bool {
        true
    }
    fn health(&mut self) -> Option<DeviceHealth> {
        Some(DeviceHealth {
            host_bytes: Some(self.0.host),
            media_bytes: Some(self.0.media as u64),
            ..Default::default()
        })
    }
    fn idle(&mut self, ns: u64, _every: u64, _ctl: &RunControl<'_>) -> Vec<DeviceSample> {
        let h = self.health().unwrap();
        vec![
            DeviceSample { t_ns: 0, health: h },
            DeviceSample {
                t_ns: ns,
                health: h,
            },
        ]
    }
    fn executor(&mut self) -> &mut dyn Executor {
        &mut self.0
    }
}

fn target(settle: f64) -> ModelTarget {
    ModelTarget(Model {
        random_written: 0.0,
        settle,
        linear: false,
        host: 0,
        media: 0.0,
        jobs: 0,
        ranges: Vec::new(),
        stop_after: None,
        fail_at: None,
        io_error_at: None,
    })
}

/// The quick protocol: the reference shape at 1/1000 of its time, 1/3 of its drive writes.
fn options() -> RunOptions {
    RunOptions {
        plan: Plan::ssd_iq(PlanOptions { repeat: 1 }),
        spec: None,
        seed: 1,
        quick: true,
        fill: 1.0,
        until_steady: false,
        time_scale: None,
    }
}

fn run_with(t: &mut ModelTarget, o: &RunOptions) -> RunResult {
    run(t, o, Arc::new(AtomicBool::new(false)), &Silent).unwrap()
}

#[test]
fn three_passes_reference_values_and_figures() {
    let mut t = target(1.0 / 3.0);
    let r = run_with(&mut t, &options());
    assert!(!r.partial);
    // Per pass: 5 steps before, the workload, 5 after, latency under load; then the write
    // burst and the map reads, once; last the heavy-skew pass's one step.
    let map_reads = steps::MAP_READS.len();
    assert_eq!(r.steps.len(), 3 * 12 + 1 + map_reads + 1);
    assert_eq!(
        r.steps[r.steps.len() - 2 - map_reads].name,
        steps::WRITE_BURST
    );
    assert_eq!(r.steps[r.steps.len() - 2].name, "map_read_1/1");
    assert_eq!(r.steps.last().unwrap().name, steps::RAND_WRITE_ZIPF_HEAVY);
    assert!(r.figure("map_read_us.1/256").is_some());
    let workloads: Vec<(&str, Option<u32>)> = r
        .steps
        .iter()
        .filter(|s| s.name.starts_with("rand_write"))
        .map(|s| (s.name.as_str(), s.pass))
        .collect();
    assert_eq!(
        workloads,
        [
            (steps::RAND_WRITE_UNIFORM, Some(1)),
            (steps::RAND_WRITE_TWOZONE, Some(2)),
            (steps::RAND_WRITE_ZIPF, Some(3)),
            (steps::RAND_WRITE_ZIPF_HEAVY, Some(4))
        ]
    );
    let u = r.step(steps::RAND_WRITE_UNIFORM).unwrap();
    let v = u.value.as_ref().unwrap();
    assert!(v.used > 10 && v.note.is_none(), "{v:?}");
    // The window is 60-99% of the run (after the write-latency step's random writes), where
    // the model's WAF is 3.7 to 3.9.
    let m = u.waf_measured.unwrap();
    assert!(m > 3.6 && m < 4.0, "{m}");
    // Implied from the measured large-block writes (WAF 1 on this model) equals measured.
    let i = u.waf_implied.unwrap();
    assert!((i / m - 1.0).abs() < 0.02, "implied {i} vs measured {m}");
    assert!(r
        .derived
        .implied_basis
        .as_deref()
        .unwrap()
        .contains("measured sequential write"));
    // Figures: every Table 2/3 key, with the sample counts of one repetition.
    for (k, n) in [
        (keys::SEQ_READ_MB_S, 6),
        (keys::RAND_READ_KIOPS, 6),
        (keys::SEQ_WRITE_MB_S, 6),
        (keys::READ_LAT_IDLE_US, 6),
        (keys::WRITE_LAT_IDLE_US, 6),
        (keys::READ_LAT_LOAD_AVG_US, 3),
        (keys::WRITE_LAT_LOAD_P999_US, 3),
        ("rand_write_kiops.uniform", 1),
        ("waf_measured.zipf", 1),
        ("waf_implied.twozone", 1),
        (keys::OP_ESTIMATE, 1),
    ] {
        let f = r.figure(k).unwrap_or_else(|| panic!("figure {k}"));
        assert_eq!(f.samples.len(), n, "{k}");
        assert!(f.min <= f.median && f.median <= f.max);
    }
    let f = r.derived.op_estimate_formula.unwrap();
    assert!((f - 1.0 / (2.0 * m)).abs() < 1e-12);
    // No spec: the load is 25% of the measured uniform IOPS, the probe's writes included.
    let kiops = r.figure("rand_write_kiops.uniform").unwrap().median;
    let load = r.derived.load_mb_s.unwrap();
    assert!((load - 0.25 * kiops * 1e3 * 4096.0 / 1e6).abs() < 1e-6);
    assert!(r.derived.load_basis.as_ref().unwrap().contains("measured"));
    let lat = r.step(steps::LATENCY_UNDER_LOAD).unwrap();
    assert_eq!(lat.probes["read"].ios, 100);
    assert!(!lat.probe_intervals.is_empty());
    let pv = &lat.value.as_ref().unwrap().probes;
    assert!(pv["read"].p99_9_ns >= 20_000.0 && pv["write"].mean_ns > 0.0);
    // The device log spans the run, with WAF over time.
    assert!(r.device_log.len() > 100);
    assert!(r.device_log.windows(2).all(|w| w[0].t_s <= w[1].t_s));
    assert!(r.device_log.iter().any(|p| p.waf.is_some_and(|w| w > 3.0)));
    let run = r.run.as_ref().unwrap();
    assert_eq!(run.precondition_bytes, CAP);
    assert_eq!(run.reset, "model reset");
    assert_eq!(run.protocol.as_deref(), Some("ssd-iq"));
}

#[test]
fn quick_never_calls_a_step_steady_that_did_not_meet_the_rule() {
    for settle in [0.05, 0.3, 2.0] {
        let mut t = target(settle);
        let r = run_with(&mut t, &options());
        for s in &r.steps {
            let Some(c) = &s.convergence else { continue };
            if c.converged {
                let first = c.window_first.unwrap() as usize;
                let w: Vec<f64> = s.series[first..first + 5].iter().map(|p| p.mb_s).collect();
                assert!(
                    SteadyCriteria::default().check(first, &w).steady,
                    "{}",
                    s.name
                );
            }
            if c.within_reference == Some(true) {
                assert!(c.converged);
            }
        }
    }
}

#[test]
fn until_steady_extends_a_workload_that_was_not_steady() {
    let mut o = options();
    // Throughput falling steeply over 1.25 drive writes: never flat within quick's one.
    let lin = || {
        let mut t = target(1.25);
        t.0.linear = true;
        t
    };
    let mut t = lin();
    let plain = run_with(&mut t, &o);
    let c = plain
        .step(steps::RAND_WRITE_UNIFORM)
        .unwrap()
        .convergence
        .clone()
        .unwrap();
    assert!(!c.converged, "{c:?}");
    assert_eq!(c.extended_to_drive_writes, None);
    assert_eq!(c.within_reference, Some(false));
    o.until_steady = true;
    let mut t = lin();
    let ext = run_with(&mut t, &o);
    let c = ext
        .step(steps::RAND_WRITE_UNIFORM)
        .unwrap()
        .convergence
        .clone()
        .unwrap();
    assert!(c.converged, "{c:?}");
    assert_eq!(c.within_reference, Some(false));
    let to = c.extended_to_drive_writes.unwrap();
    assert!(to > 1.0 && to <= 3.0 + 1e-9, "{to}");
}

#[test]
fn fill_and_repeat() {
    let mut o = options();
    o.fill = 0.5;
    o.plan = Plan::ssd_iq(PlanOptions { repeat: 2 });
    let mut t = target(1.0 / 3.0);
    let r = run_with(&mut t, &o);
    // Every job addresses the used half, but the map reads the first 1/k of it (the
    // heavy-skew pass after them the used half again).
    let map_reads = steps::MAP_READS.len();
    let spans: Vec<u64> = steps::MAP_READS
        .iter()
        .map(|&(_, k)| CAP / 2 / k as u64)
        .collect();
    let r0 = t.0.ranges.iter().position(|&b| b == spans[0]).unwrap();
    let (before, rest) = t.0.ranges.split_at(r0);
    let (map, after) = rest.split_at(map_reads);
    assert_eq!(map, spans.as_slice());
    assert!(!after.is_empty());
    assert!(
        before.iter().chain(after).all(|&b| b == CAP / 2),
        "{:?}",
        t.0.ranges
    );
    assert_eq!(r.steps.len(), 2 * 3 * 12 + 1 + map_reads + 1);
    assert_eq!(r.figure(keys::SEQ_READ_MB_S).unwrap().samples.len(), 12);
    assert_eq!(
        r.figure("rand_write_kiops.uniform").unwrap().samples.len(),
        2
    );
    assert_eq!(r.run.as_ref().unwrap().fill, Some(0.5));
    // Drive writes count the whole capacity, as the reference does.
    let u = r.step(steps::RAND_WRITE_UNIFORM).unwrap();
    let written = u.ops["write"].bytes as f64;
    assert!((written / CAP as f64 - 1.0).abs() < 0.01, "{written}");
}

#[test]
fn a_stop_keeps_the_steps_so_far() {
    let stop = Arc::new(AtomicBool::new(false));
    // Job 1 is the init, jobs 2.. the steps: stop in the third step (rand_read).
    let mut t = target(0.3);
    t.0.stop_after = Some((4, stop.clone()));
    let seen = Reports::default();
    let r = run(&mut t, &options(), stop, &seen).unwrap();
    assert!(r.partial);
    let names: Vec<_> = r.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [steps::SEQ_READ, steps::READ_LATENCY, steps::RAND_READ]
    );
    // The step the stop cut short says so, in the result and to the terminal.
    let stopped: Vec<bool> = r.steps.iter().map(|s| s.stopped).collect();
    assert_eq!(stopped, [false, false, true]);
    let reports = seen.0.lock().unwrap();
    let told: Vec<bool> = reports.iter().map(|r| r.stopped).collect();
    assert_eq!(told, [false, false, true]);
}

/// Keeps every step report.
#[derive(Default)]
struct Reports(std::sync::Mutex<Vec<ssdiq_suite::observe::StepReport>>);
impl ssdiq_suite::observe::Observer for Reports {
    fn step(&self, r: &ssdiq_suite::observe::StepReport) {
        self.0.lock().unwrap().push(r.clone());
    }
}

#[test]
fn an_error_keeps_the_steps_so_far_and_says_what_ended_the_run() {
    let mut t = target(0.3);
    t.0.fail_at = Some(5);
    let r = run_with(&mut t, &options());
    assert!(r.partial);
    assert_eq!(r.steps.len(), 3);
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("step seq_write"), "{err}");
    assert!(err.contains("pwrite at offset 4096"), "{err}");
    // The root cause, the errno's text, is kept in the string.
    assert!(err.contains("Input/output error"), "{err}");
}

#[test]
fn an_io_error_in_a_step_is_an_error_not_an_interruption() {
    let mut t = target(0.3);
    // Job 1 is the init, job 2 the first step (seq_read).
    t.0.io_error_at = Some((2, 28));
    let r = run_with(&mut t, &options());
    assert!(r.partial);
    assert!(r.steps.is_empty(), "seq_read failed: no step finished");
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("step seq_read: "), "{err}");
    assert!(err.contains("ENOSPC"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

#[test]
fn an_io_error_after_finished_steps_keeps_them() {
    let mut t = target(0.3);
    t.0.io_error_at = Some((5, 5));
    let r = run_with(&mut t, &options());
    assert!(r.partial);
    assert_eq!(r.steps.len(), 3);
    assert_eq!(r.steps[0].name, steps::SEQ_READ);
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("step seq_write"), "{err}");
    assert!(err.contains("EIO"), "{err}");
}

#[test]
fn an_io_error_in_the_init_still_gives_a_result() {
    let mut t = target(0.3);
    t.0.io_error_at = Some((1, 28));
    let r = run_with(&mut t, &options());
    assert!(r.partial);
    assert!(r.steps.is_empty());
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("init: "), "{err}");
    assert!(err.contains("ENOSPC"), "{err}");
    // The hard failure of the engine itself is kept as well.
    let mut t = target(0.3);
    t.0.fail_at = Some(1);
    let r = run_with(&mut t, &options());
    let err = r.run.as_ref().unwrap().error.as_deref().unwrap();
    assert!(err.starts_with("init: "), "{err}");
}
