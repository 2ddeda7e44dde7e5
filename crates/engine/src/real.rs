//! The real executor: a job on a file or block device, in wall time.
//!
//! Order of events: validate the job and the target (nothing written yet) -> open (files are
//! created/extended) -> optional fill, or the layout of a file's holes before a job that reads
//! (as fio lays out its files: reading a hole measures the page cache's zero page, not the
//! storage) -> device counters "before" -> main threads and probe threads run while this
//! thread samples counters (and the device log) and reports progress -> join -> counters
//! "after" -> merged [`Stats`]. Safety checks for block devices are the caller's business
//! (`ssdiq_nvme::safety`) and must pass before `run` is called.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Ready, WallClock};
use crate::control::RunControl;
use crate::counters::{CounterSample, DeviceCounters, DeviceSample};
use crate::data::WriteData;
use crate::error::EngineError;
use crate::executor::Executor;
use crate::feed::{Feed, Shared, WorkerCtx};
use crate::fill::{fill_holes, fill_seq};
use crate::job::{EngineKind, Job};
use crate::job_target::Target;
use crate::series::SeriesSink;
use crate::series::StreamId;
use crate::stats::{Clock, Recorder, Stats};
use crate::verify::Verifier;

#[derive(Default)]
pub struct RealExecutor {
    /// Device counters, if the target can report them (NVMe SMART/OCP).
    pub counters: Option<Box<dyn DeviceCounters>>,
}

impl RealExecutor {
    /// Bytes of I/O buffers this executor allocates for `job`: a read and a write buffer
    /// per slot, and per thread a ring and the rest (an upper bound).
    pub fn buffer_bytes(job: &Job) -> u64 {
        let per_thread = |qd: u64| (2 * qd).saturating_mul(job.bs).saturating_add(256 << 10);
        (job.threads as u64)
            .saturating_mul(per_thread(job.qd as u64))
            .saturating_add(job.probes.len() as u64 * per_thread(1))
    }

    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_counters(counters: Box<dyn DeviceCounters>) -> Self {
        RealExecutor {
            counters: Some(counters),
        }
    }
}

/// Streams a main thread may record.
fn main_streams(job: &Job) -> Vec<StreamId> {
    job.main_ops().into_iter().map(StreamId::main).collect()
}

impl Executor for RealExecutor {
    fn run(&mut self, job: &Job, ctl: &RunControl<'_>) -> Result<Stats, EngineError> {
        job.validate()?;
        if matches!(job.engine, EngineKind::IoUring | EngineKind::UringCmd) && job.uring.hipri {
            // A stripe's members each poll on their own device's queues.
            let members: Vec<&str> = match job.stripe {
                Some(_) => job.target.split(',').map(str::trim).collect(),
                None => vec![job.target.as_str()],
            };
            for m in members.into_iter().filter(|m| !m.is_empty()) {
                crate::poll::check_poll_queues(std::path::Path::new(m))
                    .map_err(EngineError::Invalid)?;
            }
        }
        let target = Target::open(job)?;
        let verifier = job.verify.then(|| {
            Arc::new(Verifier::new(
                job.seed,
                job.bs,
                job.offset_bytes + job.range_bytes,
                job.writes(),
            ))
        });
        let data = match &verifier {
            Some(v) => WriteData::new(job.data, job.seed).verified(v.clone()),
            None => WriteData::new(job.data, job.seed),
        };
        let fill = match job.fill {
            Some(_) => {
                let f = fill_seq(&target, job, ctl, &data)?;
                if !job.direct {
                    target
                        .sync_data()
                        .map_err(|e| EngineError::io("fill: sync", e))?;
                }
                Some(f)
            }
            None if job.reads() && target.is_file() => fill_holes(&target, job, ctl)?,
            None => None,
        };

        let mut log = crate::counters::CounterLog::default();
        let mut device_log = Vec::new();
        if let Some(c) = self.counters.as_mut() {
            log.before = c.snapshot();
        }
        let writers = job.threads as usize + job.probes.len();
        let sink = Arc::new(SeriesSink::with_interval(writers, job.series_interval_ns));
        let shared = Shared::new(job, &ctl.stop);
        // Starts when every worker has set up its ring and buffers.
        let clock = WallClock::gated(writers);
        let main_left = std::sync::atomic::AtomicUsize::new(job.threads as usize);
        let interrupted_by_fill = ctl.stopped();
        let ctx = WorkerCtx {
            target: &target,
            data: &data,
            shared: &shared,
            clock: &clock,
            bs: job.max_io_bytes(),
        };

        let (totals, first_err, elapsed) = std::thread::scope(|scope| {
            let mut handles = Vec::with_capacity(writers);
            for t in 0..job.threads {
                let mut rec = Recorder::new(sink.clone(), t as usize, &main_streams(job))
                    .with_probe_intervals(job.probe_interval_ns);
                let (ctx, shared, main_left) = (&ctx, &shared, &main_left);
                // Built here, in thread order: consecutive substreams cost one jump each.
                let mut feed = Feed::main(job, t);
                handles.push(scope.spawn(move || {
                    let mut ready = Ready::new(ctx.clock);
                    let r = run_one(job, ctx, &mut feed, job.qd, &mut rec, &mut ready);
                    if main_left.fetch_sub(1, Ordering::AcqRel) == 1 {
                        shared.main_done.store(true, Ordering::Release);
                    }
                    if r.is_err() {
                        // A failed thread ends the whole job; the others drain.
                        shared.halt.store(true, Ordering::Relaxed);
                    }
                    (rec.finish(), r)
                }));
            }
            for (i, &probe) in job.probes.iter().enumerate() {
                let w = job.threads as usize + i;
                let streams: Vec<StreamId> = probe.ops().into_iter().map(StreamId::probe).collect();
                let mut rec = Recorder::new(sink.clone(), w, &streams)
                    .with_probe_intervals(job.probe_interval_ns);
                let ctx = &ctx;
                handles.push(scope.spawn(move || {
                    let mut ready = Ready::new(ctx.clock);
                    let mut feed = Feed::probe(job, probe, i as u32);
                    let r = run_one(job, ctx, &mut feed, job.probe_qd, &mut rec, &mut ready);
                    (rec.finish(), r)
                }));
            }
            // Coordinator: counters, the device log and progress, until the workers are done.
            clock.wait_started();
            let mut next_sample = job.counter_interval_ns;
            let mut next_log = 0;
            while !handles.iter().all(|h| h.is_finished()) {
                let mut now = clock.now_ns();
                if let (Some(every), Some(c)) = (job.device_log_ns, self.counters.as_mut()) {
                    if now >= next_log {
                        if let Some(health) = c.health() {
                            device_log.push(DeviceSample { t_ns: now, health });
                        }
                        next_log = (now / every + 1) * every;
                    }
                }
                // Rare wake-ups: this thread must not disturb the measuring ones.
                let wake = match job.device_log_ns {
                    Some(_) => next_log.saturating_sub(now).clamp(1_000_000, 100_000_000),
                    None => 100_000_000,
                };
                std::thread::sleep(Duration::from_nanos(wake));
                now = clock.now_ns();
                ctl.progress.running(now, shared.issued());
                if now >= next_sample {
                    next_sample = now + job.counter_interval_ns;
                    if let Some(c) = self.counters.as_mut() {
                        if let Some(counters) = c.snapshot() {
                            log.samples.push(CounterSample {
                                t_ns: now,
                                counters,
                            });
                        }
                    }
                }
            }
            let elapsed = clock.now_ns();
            let mut totals = Vec::with_capacity(writers);
            let mut first_err = None;
            for h in handles {
                let (t, r) = h.join().expect("worker thread panicked");
                totals.push(t);
                if let Err(e) = r {
                    first_err.get_or_insert(e);
                }
            }
            (totals, first_err, elapsed)
        });
        if let Some(e) = first_err {
            return Err(e);
        }
        if let Some(c) = self.counters.as_mut() {
            log.after = c.snapshot();
            if job.device_log_ns.is_some() {
                if let Some(health) = c.health() {
                    device_log.push(DeviceSample {
                        t_ns: elapsed,
                        health,
                    });
                }
            }
        }
        let mut stats = Stats::collect(Clock::Wall, elapsed, totals, &sink);
        if target.is_striped() {
            let paths = target.member_paths();
            stats.targets.resize_with(paths.len(), Default::default);
            for (t, p) in stats.targets.iter_mut().zip(paths) {
                t.0 = p;
            }
        }
        stats.device_log = device_log;
        stats.partial = interrupted_by_fill || ctl.stopped() || shared.halt.load(Ordering::Relaxed);
        stats.counters = log;
        stats.fill = fill;
        // A write job with --verify reads back what it wrote (after the counters' last
        // sample, so the device's figures are the job's alone).
        if verifier.is_some() && job.writes() && !stats.partial {
            let rb = crate::verify::read_back(&target, job, &data, ctl)?;
            stats.verify.get_or_insert_with(Default::default).merge(&rb);
        }
        Ok(stats)
    }
}

fn run_one(
    job: &Job,
    ctx: &WorkerCtx<'_>,
    feed: &mut Feed,
    qd: u32,
    rec: &mut Recorder,
    ready: &mut Ready<'_>,
) -> Result<(), EngineError> {
    match job.engine {
        EngineKind::IoUring => crate::uring::run_thread(ctx, feed, qd, &job.uring, rec, ready),
        EngineKind::Libaio => crate::libaio::run_thread(ctx, feed, qd, rec, ready),
        EngineKind::Psync => crate::psync::run_thread(ctx, feed, rec, ready),
        EngineKind::UringCmd => {
            let placement = match &job.fdp {
                Some(p) => p
                    .resolve(job.offset_bytes, job.range_bytes, job.bs)
                    .map_err(EngineError::Invalid)?,
                None => Default::default(),
            };
            crate::uring_cmd::run_thread(ctx, feed, qd, &job.uring, placement, rec, ready)
        }
    }
}
