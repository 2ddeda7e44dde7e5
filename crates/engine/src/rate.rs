//! Smooth rate limiting shared by all threads of a job.
//!
//! One atomic schedule: every I/O claims the next start time and advances the schedule by its
//! cost (1/IOPS, or bytes/bandwidth). Invariants:
//! - Start times are spaced by exactly their costs, whichever thread claims them, so the rate
//!   holds across threads and there are no bursts at interval boundaries.
//! - If the schedule falls behind the clock (the device is slower than the rate, or the job
//!   was idle), it restarts from `now - SLACK`: at most `SLACK` of credit is ever banked, so a
//!   slow phase is never followed by a burst larger than that.
//! - Times are in 1/256 ns fixed point, so rates like 3 IOPS or 7 GB/s keep their precision.

use std::sync::atomic::{AtomicU64, Ordering};

use ssdiq_workload::units::Rate;

const FRAC: u32 = 8;
/// Credit the schedule may lag behind the clock: absorbs timer and scheduling jitter (a thread
/// descheduled for a few milliseconds on a busy machine catches up afterwards) while a burst
/// stays below 10 ms worth of the rate, invisible at the per-second scale of the series.
pub const SLACK_NS: u64 = 10_000_000;

pub struct RateLimiter {
    /// Next free start time, ns << FRAC, relative to the job start.
    next: AtomicU64,
    ns_per_io: f64,
    ns_per_byte: f64,
}

impl RateLimiter {
    pub fn new(rate: Rate) -> Self {
        let (ns_per_io, ns_per_byte) = match rate {
            Rate::IoPerSec(i) => (1e9 / i, 0.0),
            Rate::BytesPerSec(b) => (0.0, 1e9 / b),
        };
        RateLimiter {
            next: AtomicU64::new(0),
            ns_per_io,
            ns_per_byte,
        }
    }

    /// Claims a start time (ns since job start) for an I/O of `bytes`, given the clock `now_ns`.
    #[inline]
    pub fn claim(&self, bytes: u64, now_ns: u64) -> u64 {
        // `as` saturates: an absurd rate (1e-300 IOPS) costs "forever", never wraps around.
        let cost =
            ((self.ns_per_io + self.ns_per_byte * bytes as f64) * (1u64 << FRAC) as f64) as u64;
        let floor = now_ns.saturating_sub(SLACK_NS).saturating_mul(1 << FRAC);
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
        let starts: Vec<u64> = (0..1000).map(|_| r.claim(4096, 0)).collect();
        for w in starts.windows(2) {
            assert_eq!(w[1] - w[0], 40_000);
        }
        // 1000 I/Os at 25k IOPS take 40 ms: the last starts at 39.96 ms.
        assert_eq!(*starts.last().unwrap(), 39_960_000);
    }

    #[test]
    fn bandwidth_schedule_costs_bytes() {
        let r = RateLimiter::new(Rate::BytesPerSec(100e6));
        let a = r.claim(4096, 0);
        let b = r.claim(1 << 20, 0);
        let c = r.claim(4096, 0);
        assert_eq!(b - a, 40_960);
        assert_eq!(c - b, 10_485_760);
    }

    #[test]
    fn idle_time_banks_at_most_the_slack() {
        let r = RateLimiter::new(Rate::IoPerSec(1000.0));
        assert_eq!(r.claim(1, 0), 0);
        // Idle for 10 s: the next start is not 1 ms but now - SLACK, and later ones are spaced.
        let t = 10_000_000_000;
        let a = r.claim(1, t);
        assert_eq!(a, t - SLACK_NS);
        assert_eq!(r.claim(1, t), a + 1_000_000);
    }

    #[test]
    fn absurd_costs_saturate_instead_of_wrapping() {
        let r = RateLimiter::new(Rate::IoPerSec(1e-300));
        assert_eq!(r.claim(4096, 0), 0);
        let second = r.claim(4096, 0);
        assert_eq!(second, u64::MAX >> FRAC, "the next start is 'never'");
        assert_eq!(r.claim(4096, 5_000_000_000), second);
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
                .map(|_| s.spawn(|| (0..10_000).map(|_| r.claim(512, 0)).collect::<Vec<_>>()))
                .collect();
            hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        all.sort_unstable();
        for (i, w) in all.windows(2).enumerate() {
            assert_eq!(w[1] - w[0], 1000, "at {i}");
        }
    }
}
