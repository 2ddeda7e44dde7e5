//! The wall clock of the real executor: CLOCK_MONOTONIC (via `Instant`, a vDSO read, no
//! syscall), as nanoseconds since the measured job started.
//!
//! A gated clock starts when the last of its workers has arrived (set up its ring and
//! buffers): pinning and filling 10 threads' buffers of 512 KiB requests takes longer than a
//! 150 ms job, which must not be spent before the first I/O. Before it starts it reads 0.

use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Instant;

#[derive(Debug)]
pub struct WallClock {
    start: OnceLock<Instant>,
    /// Workers yet to arrive.
    waiting: Mutex<usize>,
    started: Condvar,
}

impl WallClock {
    /// A clock that starts when `workers` have called [`WallClock::arrive`].
    pub fn gated(workers: usize) -> Self {
        let c = WallClock {
            start: OnceLock::new(),
            waiting: Mutex::new(workers),
            started: Condvar::new(),
        };
        if workers == 0 {
            let _ = c.start.set(Instant::now());
        }
        c
    }

    /// One worker is ready (or gave up); the last one starts the clock.
    pub fn arrive(&self) {
        let mut w = self.waiting.lock().expect("clock gate");
        *w = w.saturating_sub(1);
        if *w == 0 {
            let _ = self.start.set(Instant::now());
            self.started.notify_all();
        }
    }

    /// Blocks until the clock has started.
    pub fn wait_started(&self) {
        let mut w = self.waiting.lock().expect("clock gate");
        while self.start.get().is_none() {
            w = self.started.wait(w).expect("clock gate");
        }
    }

    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.start
            .get()
            .map_or(0, |s| s.elapsed().as_nanos() as u64)
    }
}

/// A worker's place at the gate: [`Ready::go`] after its setup; dropping it without going
/// (a setup that failed) still counts, so the others never wait for it.
pub struct Ready<'a> {
    clock: &'a WallClock,
    arrived: bool,
}

impl<'a> Ready<'a> {
    pub fn new(clock: &'a WallClock) -> Self {
        Ready {
            clock,
            arrived: false,
        }
    }

    pub fn go(&mut self) {
        if !self.arrived {
            self.arrived = true;
            self.clock.arrive();
        }
        self.clock.wait_started();
    }
}

impl Drop for Ready<'_> {
    fn drop(&mut self) {
        if !self.arrived {
            self.clock.arrive();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_when_the_last_worker_arrives() {
        let c = WallClock::gated(2);
        assert_eq!(c.now_ns(), 0);
        std::thread::scope(|s| {
            s.spawn(|| Ready::new(&c).go());
            // A worker whose setup failed: dropped without going.
            s.spawn(|| drop(Ready::new(&c)));
        });
        c.wait_started();
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(c.now_ns() >= 2_000_000);
    }
}
