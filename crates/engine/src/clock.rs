//! The wall clock of the real executor: CLOCK_MONOTONIC (via `Instant`, a vDSO read, no
//! syscall), as nanoseconds since the measured job started.

use std::time::Instant;

#[derive(Clone, Copy, Debug)]
pub struct WallClock {
    start: Instant,
}

impl WallClock {
    pub fn start() -> Self {
        WallClock {
            start: Instant::now(),
        }
    }

    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }
}
