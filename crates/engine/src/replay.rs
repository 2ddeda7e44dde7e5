//! Replaying a recorded request stream (a trace) open-loop: each request starts at the time
//! the recording issued it, divided by the speed-up, or as soon as a slot is free when the
//! replay runs as fast as possible.
//!
//! Invariants:
//! - One source per job, shared by its threads behind a lock: requests leave in the
//!   recording's order, whichever thread takes them.
//! - Schedule lag is measured when a thread takes a request: how far the clock is past the
//!   request's start time. A lagging replay is not the recording any more (the device, or
//!   `threads` x `qd`, could not keep up), so the lag is reported beside the latencies.
//! - Latency is measured from submission, as for every other job; lag says how late the
//!   submission was.

use std::sync::Mutex;

use hdrhistogram::Histogram;
use ssdiq_workload::{Request, TimedSource};

pub use ssdiq_schema::io::{ReplaySummary, Speed};

/// Lag above this counts as late.
const LATE_NS: u64 = 1_000_000;

struct State {
    source: Box<dyn TimedSource>,
    lag: Histogram<u64>,
    lag_sum_ns: u128,
    late: u64,
    requests: u64,
}

/// A recording being replayed, shared by the threads of one job.
pub struct Replay {
    state: Mutex<State>,
    pub speed: Speed,
    /// Bytes of the largest request (executors size their buffers by it).
    pub max_request_bytes: u64,
    /// Whether the recording writes or trims (the block-device safety check needs to know).
    pub writes: bool,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("speed", &self.speed)
            .field("max_request_bytes", &self.max_request_bytes)
            .field("writes", &self.writes)
            .finish()
    }
}

impl Replay {
    pub fn new(
        source: Box<dyn TimedSource>,
        speed: Speed,
        max_request_bytes: u64,
        writes: bool,
    ) -> Replay {
        Replay {
            state: Mutex::new(State {
                source,
                lag: crate::hist::new_histogram(),
                lag_sum_ns: 0,
                late: 0,
                requests: 0,
            }),
            speed,
            max_request_bytes,
            writes,
        }
    }

    /// The next request and its start time (ns since the job started), taken at `now_ns`.
    #[inline]
    pub(crate) fn next(&self, now_ns: u64) -> Option<(Request, u64)> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let t = st.source.next_timed()?;
        let at = match self.speed {
            Speed::Max => 0,
            Speed::Scale(f) => (t.at_ns as f64 / f) as u64,
        };
        st.requests += 1;
        if self.speed != Speed::Max {
            let lag = now_ns.saturating_sub(at);
            st.lag.saturating_record(lag.max(1));
            st.lag_sum_ns += lag as u128;
            st.late += (lag > LATE_NS) as u64;
        }
        Some((t.request, at))
    }

    pub fn summary(&self) -> ReplaySummary {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let timed = self.speed != Speed::Max && st.requests > 0;
        let us = |ns: u64| if timed { ns as f64 / 1e3 } else { 0.0 };
        ReplaySummary {
            speed: self.speed,
            requests: st.requests,
            late: st.late,
            lag_mean_us: if timed {
                st.lag_sum_ns as f64 / st.requests as f64 / 1e3
            } else {
                0.0
            },
            lag_p99_us: us(st.lag.value_at_quantile(0.99)),
            lag_max_us: us(st.lag.max()),
            error: st.source.error(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdiq_workload::{Op, TimedRequest};

    struct Fixed(Vec<TimedRequest>);
    impl TimedSource for Fixed {
        fn next_timed(&mut self) -> Option<TimedRequest> {
            if self.0.is_empty() {
                None
            } else {
                Some(self.0.remove(0))
            }
        }
    }

    fn req(at_ns: u64) -> TimedRequest {
        TimedRequest {
            at_ns,
            request: Request {
                op: Op::Write,
                page: 0,
                pages: 1,
            },
        }
    }

    #[test]
    fn speed_scales_times_and_lag_is_counted() {
        let r = Replay::new(
            Box::new(Fixed(vec![req(0), req(4_000_000), req(10_000_000)])),
            Speed::parse("2x").unwrap(),
            4096,
            true,
        );
        assert_eq!(r.next(0).unwrap().1, 0);
        assert_eq!(r.next(0).unwrap().1, 2_000_000);
        // Taken 3 ms after its start time of 5 ms: late.
        assert_eq!(r.next(8_000_000).unwrap().1, 5_000_000);
        assert!(r.next(9_000_000).is_none());
        let s = r.summary();
        assert_eq!((s.requests, s.late), (3, 1));
        assert!((s.lag_max_us - 3000.0).abs() < 3.0, "{s:?}");
        assert_eq!(Speed::parse("max"), Ok(Speed::Max));
        assert!(Speed::parse("0").is_err() && Speed::parse("fast").is_err());
    }
}
