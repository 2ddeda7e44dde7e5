//! What each executing thread issues next, and when the job is over.
//!
//! Invariants:
//! - [`Feed::next`] turns the workload's page requests into byte ranges: offset
//!   `page * offset_align`, length `pages * bs`, always inside the job's range.
//! - The byte bound is shared by all main streams through one atomic counter: an I/O is issued
//!   only if the bytes issued before it are below the bound, so the job issues the bound
//!   rounded up to at most one request per thread, never more.
//! - Probes are unbounded by bytes; they stop when the main streams are done.
//! - Every feed draws its arrival gaps (Poisson schedules) from its own seeded stream, so the
//!   emulated executor, which claims in a fixed order, gives the same schedule for a seed.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use ssdiq_workload::{Op, Pattern, RequestStream, RwMix, SeededRng, StreamConfig};

use crate::job::{Arrivals, Job, OnError, Probe};
use crate::rate::{RateLimiter, Schedule};
use crate::replay::{Replay, Speed};
use crate::series::StreamId;

/// One I/O to issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Io {
    pub stream: StreamId,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
}

/// State shared by all threads of one job.
pub struct Shared<'a> {
    issued: AtomicU64,
    bound_bytes: u64,
    deadline_ns: u64,
    /// Set by the caller (the CLI's signal handlers): stop submitting, drain, report partial.
    pub stop: &'a AtomicBool,
    /// Set on an I/O error under `--on-error stop`.
    pub halt: AtomicBool,
    /// Set when every main stream has finished; probes stop then.
    pub main_done: AtomicBool,
    pub rate: Option<RateLimiter>,
    /// One limiter per probe stream (`Job::probe_rate`), indexed like `Job::probes`.
    pub probe_rates: Vec<RateLimiter>,
    pub on_error: OnError,
}

impl<'a> Shared<'a> {
    pub fn new(job: &Job, stop: &'a AtomicBool) -> Self {
        Shared {
            issued: AtomicU64::new(0),
            bound_bytes: job.bound.bytes.unwrap_or(u64::MAX),
            deadline_ns: job.bound.time_ns.unwrap_or(u64::MAX),
            stop,
            halt: AtomicBool::new(false),
            main_done: AtomicBool::new(false),
            rate: job.rate.map(|r| {
                RateLimiter::with_schedule(
                    r,
                    match job.arrivals {
                        Arrivals::Paced => Schedule::Paced,
                        Arrivals::Poisson => Schedule::OpenPoisson,
                    },
                )
            }),
            probe_rates: match job.probe_rate {
                Some(r) => job
                    .probes
                    .iter()
                    .map(|_| {
                        let schedule = if job.probe_open_loop {
                            Schedule::OpenEven
                        } else {
                            Schedule::Paced
                        };
                        RateLimiter::with_schedule(r, schedule)
                    })
                    .collect(),
                None => Vec::new(),
            },
            on_error: job.on_error,
        }
    }

    /// The limiter `feed` claims its start times from: the job's shared one for main streams,
    /// the probe's own one (if paced) for a probe.
    #[inline]
    pub fn rate_for(&self, feed: &Feed) -> Option<&RateLimiter> {
        match feed.probe_index {
            Some(i) => self.probe_rates.get(i as usize),
            None => self.rate.as_ref(),
        }
    }

    /// Bytes the main streams have issued so far.
    pub fn issued(&self) -> u64 {
        self.issued.load(Ordering::Relaxed).min(self.bound_bytes)
    }

    /// True once the job must stop submitting (signal, error, or time bound).
    #[inline]
    pub fn interrupted(&self, now_ns: u64) -> bool {
        now_ns >= self.deadline_ns
            || self.stop.load(Ordering::Relaxed)
            || self.halt.load(Ordering::Relaxed)
    }

    /// True once `feed` must stop: the job is interrupted, or it is a probe and the main
    /// streams are done.
    #[inline]
    pub fn must_stop(&self, feed: &Feed, now_ns: u64) -> bool {
        self.interrupted(now_ns) || (feed.is_probe() && self.main_done.load(Ordering::Relaxed))
    }

    /// The end of the job's time bound (`u64::MAX` without one), ns since the job started.
    pub fn deadline_ns(&self) -> u64 {
        self.deadline_ns
    }

    /// Waits for a rate-limited start time `at_ns` on `now`. Returns `false`, without waiting
    /// for it, if the start falls after the time bound, and stops waiting (returns `false`)
    /// at a stop request: a slow rate never holds the job past `--time` or a Ctrl-C.
    pub fn wait_for_start(&self, feed: &Feed, at_ns: u64, now: impl Fn() -> u64) -> bool {
        if at_ns >= self.deadline_ns {
            let end = self.deadline_ns;
            crate::rate::wait_until(end, &now, |n| self.must_stop(feed, n));
            return false;
        }
        crate::rate::wait_until(at_ns, &now, |n| self.must_stop(feed, n))
            && !self.must_stop(feed, now())
    }

    /// Called for a failed I/O: under `--on-error stop` the whole job stops submitting.
    pub fn on_failure(&self) {
        if self.on_error == OnError::Stop {
            self.halt.store(true, Ordering::Relaxed);
        }
    }
}

/// Everything a worker thread shares with the others of its job.
pub struct WorkerCtx<'a> {
    pub target: &'a crate::job_target::Target,
    pub data: &'a crate::data::WriteData,
    pub shared: &'a Shared<'a>,
    pub clock: &'a crate::clock::WallClock,
    pub bs: u64,
}

/// Request generator of one thread (a main worker or a probe).
pub struct Feed {
    stream: RequestStream,
    /// A main feed of a replay job takes its requests from the shared recording instead.
    replay: Option<Arc<Replay>>,
    probe: bool,
    probe_index: Option<u32>,
    unit: u64,
    bs: u64,
    /// The job's first byte, added to every offset.
    base: u64,
    /// Uniform variates for Poisson gaps.
    arrivals: SeededRng,
    /// Whether the feed issues reads, writes (for buffers).
    reads: bool,
    writes: bool,
}

/// Seed purposes of the arrival streams (main feeds by thread, probes by index).
const PURPOSE_ARRIVALS: u64 = 0xa771_0000;
const PURPOSE_PROBE_ARRIVALS: u64 = 0xa772_0000;

impl Feed {
    /// The feed of main worker `thread`.
    pub fn main(job: &Job, thread: u32) -> Feed {
        Feed {
            stream: RequestStream::new(&job.pattern, job.mix, job.stream_config(thread))
                .expect("validated by Job::validate"),
            replay: job.replay.clone(),
            probe: false,
            probe_index: None,
            unit: job.offset_align,
            bs: job.bs,
            base: job.offset_bytes,
            arrivals: SeededRng::substream(
                ssdiq_workload::rng::derive_seed(job.seed, PURPOSE_ARRIVALS),
                thread as u64,
            ),
            // A replay issues whatever its recording holds, not the job's mix.
            reads: job.replay.is_some() || job.mix.ops().contains(&Op::Read),
            writes: match &job.replay {
                Some(r) => r.writes,
                None => job.mix.ops().contains(&Op::Write),
            },
        }
    }

    /// The feed of the `index`-th probe: uniform random over the job's range, from its own
    /// seed so it never replays a main stream.
    pub fn probe(job: &Job, probe: Probe, index: u32) -> Feed {
        let mix = RwMix {
            read_percent: probe.read_percent as u32,
            only: None,
            random: true,
        };
        let cfg = StreamConfig {
            pages: job.slots(),
            page_bytes: job.bs,
            seed: ssdiq_workload::rng::derive_seed(job.seed, 0x9e0b_e000 + index as u64),
            layout_seed: 0,
            thread: 0,
            threads: 1,
            own_region: false,
            represents: 1.0,
        };
        Feed {
            stream: RequestStream::new(&Pattern::Uniform, mix, cfg)
                .expect("uniform over a non-empty range"),
            replay: None,
            probe: true,
            probe_index: Some(index),
            unit: job.offset_align,
            bs: job.bs,
            base: job.offset_bytes,
            arrivals: SeededRng::substream(
                ssdiq_workload::rng::derive_seed(job.seed, PURPOSE_PROBE_ARRIVALS),
                index as u64,
            ),
            reads: probe.read_percent > 0,
            writes: probe.read_percent < 100,
        }
    }

    pub fn is_probe(&self) -> bool {
        self.probe
    }

    /// Whether this feed issues (reads, writes).
    pub fn issues(&self) -> (bool, bool) {
        (self.reads, self.writes)
    }

    /// Claims the start (due) time of an I/O of `len` bytes on `rate` at clock `now_ns`.
    #[inline]
    pub fn claim(&mut self, rate: &RateLimiter, len: u64, now_ns: u64) -> u64 {
        rate.claim(len, now_ns, self.arrivals.unit_f64())
    }

    /// True when start times depend on the clock (a rate limit, or a replay at recorded
    /// timing): executors then read a fresh clock for each request.
    #[inline]
    pub fn is_timed(&self, shared: &Shared) -> bool {
        match &self.replay {
            Some(r) => r.speed != Speed::Max,
            None => shared.rate_for(self).is_some(),
        }
    }

    /// The next I/O and the time (ns since the job started) at which it may start: its
    /// rate-limited slot, its replayed time, or 0 (at once). `None` when this thread must
    /// stop submitting.
    #[inline]
    pub fn next_timed(&mut self, shared: &Shared, now_ns: u64) -> Option<(Io, u64)> {
        if let Some(replay) = &self.replay {
            if shared.interrupted(now_ns) {
                return None;
            }
            let (r, at) = replay.next(now_ns)?;
            let len = r.pages * self.bs;
            let io = Io {
                stream: StreamId::main(r.op),
                op: r.op,
                offset: self.base + r.page * self.bs,
                len,
            };
            let before = shared.issued.fetch_add(len, Ordering::Relaxed);
            return (before < shared.bound_bytes).then_some((io, at));
        }
        let io = self.next(shared, now_ns)?;
        let at = match shared.rate_for(self) {
            Some(r) => self.claim(r, io.len, now_ns),
            None => 0,
        };
        Some((io, at))
    }

    /// The next I/O, or `None` when this thread must stop submitting.
    #[inline]
    pub fn next(&mut self, shared: &Shared, now_ns: u64) -> Option<Io> {
        if shared.interrupted(now_ns) {
            return None;
        }
        let r = self.stream.next_request();
        let len = r.pages * self.bs;
        let io = Io {
            stream: if self.probe {
                StreamId::probe(r.op)
            } else {
                StreamId::main(r.op)
            },
            op: r.op,
            offset: self.base + r.page * self.unit,
            len,
        };
        if self.probe {
            if shared.main_done.load(Ordering::Relaxed) {
                return None;
            }
            return Some(io);
        }
        let before = shared.issued.fetch_add(len, Ordering::Relaxed);
        (before < shared.bound_bytes).then_some(io)
    }
}
