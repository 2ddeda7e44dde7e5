//! Rate schedules shared by all threads of a stream: a throttle (paced) or an open-loop
//! arrival process (evenly spaced or Poisson).
//!
//! One atomic schedule: every I/O claims the next start time and advances the schedule by its
//! cost (1/IOPS, or bytes/bandwidth; for Poisson arrivals an exponential multiple of it, from a
//! uniform variate the claiming feed draws from its own seeded stream). Invariants:
//! - Start times are spaced by exactly their costs, whichever thread claims them, so the rate
//!   holds across threads and there are no bursts at interval boundaries. Exponential gaps
//!   claimed in any order still sum to a Poisson process: the gaps are independent.
//! - Paced: if the schedule falls behind the clock (the device is slower than the rate, or the
//!   job was idle), it restarts from `now - SLACK`: at most `SLACK` of credit is ever banked,
//!   so a slow phase is never followed by a burst larger than that.
//! - Open loop: the schedule never restarts. An I/O that could not be issued at its due time
//!   (every slot busy while the target stalls) is issued late, and its latency is timed from
//!   the due time ([`RateLimiter::open_loop`]), so a stall is measured, not skipped.
//! - Times are in 1/256 ns fixed point, so rates like 3 IOPS or 7 GB/s keep their precision.

use std::sync::atomic::{AtomicU64, Ordering};

use ssdiq_workload::units::Rate;

const FRAC: u32 = 8;
/// Credit the schedule may lag behind the clock: absorbs timer and scheduling jitter (a thread
/// descheduled for a few milliseconds on a busy machine catches up afterwards) while a burst
/// stays below 10 ms worth of the rate, invisible at the per-second scale of the series.
pub const SLACK_NS: u64 = 10_000_000;

/// How a schedule treats time it falls behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Throttle: at most [`SLACK_NS`] of credit; latency from submission.
    Paced,
    /// Open loop, evenly spaced due times; latency from the due time.
    OpenEven,
    /// Open loop, exponential gaps (Poisson arrivals); latency from the due time.
    OpenPoisson,
}

pub struct RateLimiter {
    /// Next free start time, ns << FRAC, relative to the job start.
    next: AtomicU64,
    ns_per_io: f64,
    ns_per_byte: f64,
    schedule: Schedule,
}

impl RateLimiter {
    /// A paced throttle.
    pub fn new(rate: Rate) -> Self {
        Self::with_schedule(rate, Schedule::Paced)
    }

    pub fn with_schedule(rate: Rate, schedule: Schedule) -> Self {
        let (ns_per_io, ns_per_byte) = match rate {
            Rate::IoPerSec(i) => (1e9 / i, 0.0),
            Rate::BytesPerSec(b) => (0.0, 1e9 / b),
        };
        RateLimiter {
            next: AtomicU64::new(0),
            ns_per_io,
            ns_per_byte,
            schedule,
        }
    }

    /// True when latencies are timed from the due time (open-loop arrivals).
    #[inline]
    pub fn open_loop(&self) -> bool {
        self.schedule != Schedule::Paced
    }

    /// Claims a start time (ns since job start) for an I/O of `bytes`, given the clock `now_ns`
    /// and, for Poisson arrivals, a uniform variate `u` in [0, 1) (ignored otherwise).
    #[inline]
    pub fn claim(&self, bytes: u64, now_ns: u64, u: f64) -> u64 {
        let mut mean = self.ns_per_io + self.ns_per_byte * bytes as f64;
        if self.schedule == Schedule::OpenPoisson {
            // Inverse transform: 1 - u is in (0, 1], so the log is finite.
            mean *= -(1.0 - u).ln();
        }
        // `as` saturates: an absurd rate (1e-300 IOPS) costs "forever", never wraps around.
        let cost = (mean * (1u64 << FRAC) as f64) as u64;
        let floor = match self.schedule {
            Schedule::Paced => now_ns.saturating_sub(SLACK_NS).saturating_mul(1 << FRAC),
            Schedule::OpenEven | Schedule::OpenPoisson => 0,
        };
        let mut cur = self.next.load(Ordering::Relaxed);
        loop {
            let start = cur.max(floor);
            match self.next.compare_exchange_weak(
                cur,
                start.saturating_add(cost),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return start >> FRAC,
                Err(c) => cur = c,
            }
        }
    }
}

/// Longest sleep between two looks at `give_up`: how late a stop request may be noticed.
pub const POLL_NS: u64 = 50_000_000;

/// Waits until `at_ns` on a clock read by `now`: sleeps for the bulk, spins the last stretch,
/// because sleeps overshoot by tens of microseconds. Every [`POLL_NS`] it asks
/// `give_up(now)` (a stop request, the end of the job) and returns `false` if told to;
/// `true` once `at_ns` is reached.
pub fn wait_until(at_ns: u64, now: impl Fn() -> u64, give_up: impl Fn(u64) -> bool) -> bool {
    const SPIN_NS: u64 = 60_000;
    loop {
        let n = now();
        if n >= at_ns {
            return true;
        }
        if give_up(n) {
            return false;
        }
        let left = at_ns - n;
        if left > SPIN_NS {
            let nap = (left - SPIN_NS).min(POLL_NS);
            std::thread::sleep(std::time::Duration::from_nanos(nap));
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iops_schedule_is_evenly_spaced() {
        let r = RateLimiter::new(Rate::IoPerSec(25_000.0));
        let starts: Vec<u64> = (0..1000).map(|_| r.claim(4096, 0, 0.0)).collect();
        for w in starts.windows(2) {
            assert_eq!(w[1] - w[0], 40_000);
        }
        // 1000 I/Os at 25k IOPS take 40 ms: the last starts at 39.96 ms.
        assert_eq!(*starts.last().unwrap(), 39_960_000);
    }

    #[test]
    fn bandwidth_schedule_costs_bytes() {
        let r = RateLimiter::new(Rate::BytesPerSec(100e6));
        let a = r.claim(4096, 0, 0.0);
        let b = r.claim(1 << 20, 0, 0.0);
        let c = r.claim(4096, 0, 0.0);
        assert_eq!(b - a, 40_960);
        assert_eq!(c - b, 10_485_760);
    }

    #[test]
    fn idle_time_banks_at_most_the_slack() {
        let r = RateLimiter::new(Rate::IoPerSec(1000.0));
        assert_eq!(r.claim(1, 0, 0.0), 0);
        // Idle for 10 s: the next start is not 1 ms but now - SLACK, and later ones are spaced.
        let t = 10_000_000_000;
        let a = r.claim(1, t, 0.0);
        assert_eq!(a, t - SLACK_NS);
        assert_eq!(r.claim(1, t, 0.0), a + 1_000_000);
    }

    #[test]
    fn open_loop_never_skips_ahead() {
        let r = RateLimiter::with_schedule(Rate::IoPerSec(1000.0), Schedule::OpenEven);
        assert!(r.open_loop());
        assert_eq!(r.claim(1, 0, 0.0), 0);
        // 10 s later the due times are still 1 ms apart from the start: the backlog is kept.
        assert_eq!(r.claim(1, 10_000_000_000, 0.0), 1_000_000);
        assert_eq!(r.claim(1, 10_000_000_000, 0.0), 2_000_000);
    }

    #[test]
    fn poisson_gaps_are_exponential_with_the_rate_as_mean() {
        let r = RateLimiter::with_schedule(Rate::IoPerSec(10_000.0), Schedule::OpenPoisson);
        let mut rng = ssdiq_workload::SeededRng::new(7);
        let n = 200_000;
        let starts: Vec<u64> = (0..n).map(|_| r.claim(4096, 0, rng.unit_f64())).collect();
        let gaps: Vec<f64> = starts.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        // Mean gap 100 us within 1% (the standard error is 100 us / sqrt(n) = 0.22 us).
        assert!((mean / 100_000.0 - 1.0).abs() < 0.01, "{mean}");
        // Exponential: P(gap > mean) = 1/e, and the coefficient of variation is 1.
        let over = gaps.iter().filter(|&&g| g > 100_000.0).count() as f64 / gaps.len() as f64;
        assert!((over - (-1.0f64).exp()).abs() < 0.005, "{over}");
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((var.sqrt() / mean - 1.0).abs() < 0.02);
        // Evenly spaced arrivals have no spread at all.
        let e = RateLimiter::with_schedule(Rate::IoPerSec(10_000.0), Schedule::OpenEven);
        let a = e.claim(1, 0, 0.3);
        assert_eq!(e.claim(1, 0, 0.9) - a, 100_000);
    }

    #[test]
    fn absurd_costs_saturate_instead_of_wrapping() {
        let r = RateLimiter::new(Rate::IoPerSec(1e-300));
        assert_eq!(r.claim(4096, 0, 0.0), 0);
        let second = r.claim(4096, 0, 0.0);
        assert_eq!(second, u64::MAX >> FRAC, "the next start is 'never'");
        assert_eq!(r.claim(4096, 5_000_000_000, 0.0), second);
    }

    #[test]
    fn a_wait_gives_up_when_told() {
        let t = std::cell::Cell::new(0u64);
        let now = || {
            t.set(t.get() + 1_000);
            t.get()
        };
        assert!(!wait_until(u64::MAX, now, |n| n > 10_000));
        assert!(wait_until(5_000, || 6_000, |_| true));
    }

    #[test]
    fn shared_across_threads_without_duplicates() {
        let r = RateLimiter::new(Rate::IoPerSec(1e6));
        let mut all: Vec<u64> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        (0..10_000)
                            .map(|_| r.claim(512, 0, 0.0))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        all.sort_unstable();
        for (i, w) in all.windows(2).enumerate() {
            assert_eq!(w[1] - w[0], 1000, "at {i}");
        }
    }
}
