//! The real executor: a job on a file or block device, in wall time.
//!
//! Order of events: validate the job and the target (nothing written yet) -> open (files are
//! created/extended) -> optional fill -> device counters "before" -> main threads and probe
//! threads run while this thread samples counters and reports progress -> join -> counters
//! "after" -> merged [`Stats`]. Safety checks for block devices are the caller's business
//! (`ssdiq_nvme::safety`) and must pass before `run` is called.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::WallClock;
use crate::control::RunControl;
use crate::counters::{CounterSample, DeviceCounters};
use crate::data::WriteData;
use crate::error::EngineError;
use crate::executor::Executor;
use crate::feed::{Feed, Shared, WorkerCtx};
use crate::fill::fill_seq;
use crate::job::{EngineKind, Job};
use crate::series::SeriesSink;
use crate::stats::{Clock, Recorder, Stats, StreamId};
use crate::target::Target;

#[derive(Default)]
pub struct RealExecutor {
    /// Device counters, if the target can report them (NVMe SMART/OCP).
    pub counters: Option<Box<dyn DeviceCounters>>,
}

impl RealExecutor {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_counters(counters: Box<dyn DeviceCounters>) -> Self {
        RealExecutor {
            counters: Some(counters),
        }
    }
}

/// Streams a main thread may record: the mix's ops, and trims for patterns that discard.
fn main_streams(job: &Job) -> Vec<StreamId> {
    let mut v: Vec<StreamId> = job.mix.ops().into_iter().map(StreamId::main).collect();
    if matches!(job.pattern, ssdiq_workload::Pattern::Zns { .. }) {
        v.push(StreamId::main(ssdiq_workload::Op::Trim));
    }
    v
}

impl Executor for RealExecutor {
    fn run(&mut self, job: &Job, ctl: &RunControl<'_>) -> Result<Stats, EngineError> {
        job.validate()?;
        let target = Target::open(job)?;
        let fill = match job.fill {
            Some(_) => {
                let f = fill_seq(&target, job, ctl)?;
                if !job.direct {
                    target
                        .file
                        .sync_data()
                        .map_err(|e| EngineError::io("fill: sync", e))?;
                }
                Some(f)
            }
            None => None,
        };

        let mut log = crate::counters::CounterLog::default();
        if let Some(c) = self.counters.as_mut() {
            log.before = c.snapshot();
        }
        let writers = job.threads as usize + job.probes.len();
        let sink = Arc::new(SeriesSink::new(writers));
        let shared = Shared::new(job, &ctl.stop);
        let data = WriteData::new(job.data, job.seed);
        let clock = WallClock::start();
        let main_left = std::sync::atomic::AtomicUsize::new(job.threads as usize);
        let interrupted_by_fill = ctl.stopped();
        let ctx = WorkerCtx {
            target: &target,
            data: &data,
            shared: &shared,
            clock: &clock,
            bs: job.bs,
        };

        let (totals, first_err, elapsed) = std::thread::scope(|scope| {
            let mut handles = Vec::with_capacity(writers);
            for t in 0..job.threads {
                let mut rec = Recorder::new(sink.clone(), t as usize, &main_streams(job));
                let (ctx, shared, main_left) = (&ctx, &shared, &main_left);
                // Built here, in thread order: consecutive substreams cost one jump each.
                let mut feed = Feed::main(job, t);
                handles.push(scope.spawn(move || {
                    let r = run_one(job.engine, ctx, &mut feed, job.qd, &mut rec);
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
            for (i, &op) in job.probes.iter().enumerate() {
                let w = job.threads as usize + i;
                let mut rec = Recorder::new(sink.clone(), w, &[StreamId::probe(op)]);
                let ctx = &ctx;
                handles.push(scope.spawn(move || {
                    let mut feed = Feed::probe(job, op, i as u32);
                    let r = run_one(job.engine, ctx, &mut feed, 1, &mut rec);
                    (rec.finish(), r)
                }));
            }
            // Coordinator: counters and progress, until the workers are done.
            let mut next_sample = job.counter_interval_ns;
            while !handles.iter().all(|h| h.is_finished()) {
                // Rare wake-ups: this thread must not disturb the measuring ones.
                std::thread::sleep(Duration::from_millis(100));
                let now = clock.now_ns();
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
        }
        let mut stats = Stats::collect(Clock::Wall, elapsed, totals, &sink);
        stats.partial = interrupted_by_fill || ctl.stopped() || shared.halt.load(Ordering::Relaxed);
        stats.counters = log;
        stats.fill = fill;
        Ok(stats)
    }
}

fn run_one(
    engine: EngineKind,
    ctx: &WorkerCtx<'_>,
    feed: &mut Feed,
    qd: u32,
    rec: &mut Recorder,
) -> Result<(), EngineError> {
    match engine {
        EngineKind::IoUring => crate::uring::run_thread(ctx, feed, qd, rec),
        EngineKind::Psync => crate::psync::run_thread(ctx, feed, rec),
    }
}
