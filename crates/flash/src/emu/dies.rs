//! One flash die's timeline: host reads are reserved at once, background operations
//! (programs, GC reads, erases) start only when the die has no read pending.
//!
//! Invariants:
//! - A die does one operation at a time. `read_free` is when the last reserved host read ends;
//!   a background operation starts only at a time `>= read_free`, so reads go ahead of queued
//!   programs and wait only for the operation in progress (or suspend it).
//! - `ev` is the die's next event: the end of its background operation (`kind != Idle`), a
//!   wake-up to start one once reads drain (`kind == Idle`, `ev < MAX`), or `MAX` (idle).
//! - A suspended operation is extended by the suspend cost plus the reads it let through, so
//!   no flash time is lost or invented.

pub const NEVER: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Idle,
    Program,
    GcRead,
    Erase,
}

/// Suspension settings of the drive.
#[derive(Clone, Copy, Debug)]
pub struct Suspend {
    pub enabled: bool,
    pub cost_ns: u64,
    pub max_per_op: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct Die {
    pub ev: u64,
    pub kind: Kind,
    /// Pages of the operation in progress (programmed, or read by GC).
    pub pages: u32,
    /// Host pages of the program in progress (buffer slots freed when it ends).
    pub host_pages: u32,
    pub read_free: u64,
    suspends: u32,
}

impl Die {
    pub fn new(now: u64) -> Self {
        Die {
            ev: NEVER,
            kind: Kind::Idle,
            pages: 0,
            host_pages: 0,
            read_free: now,
            suspends: 0,
        }
    }

    /// True if the die has nothing in progress and no wake-up pending.
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.ev == NEVER
    }

    /// Reserves a host read arriving at `t` that occupies the die for `dur`; returns its end.
    #[inline]
    pub fn read(&mut self, t: u64, dur: u64, s: Suspend) -> u64 {
        let busy = self.kind != Kind::Idle && self.ev > t;
        if !busy {
            let end = t.max(self.read_free) + dur;
            self.read_free = end;
            return end;
        }
        let suspendable = matches!(self.kind, Kind::Program | Kind::Erase)
            && s.enabled
            && self.read_free <= self.ev;
        if suspendable && (self.read_free > t || self.suspends < s.max_per_op) {
            // Reads already let through by this suspension queue behind each other; the
            // first one pays the suspend cost.
            let base = t.max(self.read_free);
            let start = if self.read_free > t {
                self.read_free
            } else {
                self.suspends += 1;
                t + s.cost_ns
            };
            let end = start + dur;
            self.ev += end - base;
            self.read_free = end;
            return end;
        }
        // Wait for the operation in progress, then go before anything queued.
        let end = self.ev.max(self.read_free) + dur;
        self.read_free = end;
        end
    }

    /// Starts a background operation at `t` (`t >= read_free`).
    #[inline]
    pub fn start(&mut self, t: u64, kind: Kind, dur: u64, pages: u32, host_pages: u32) {
        debug_assert!(t >= self.read_free);
        self.kind = kind;
        self.ev = t + dur;
        self.pages = pages;
        self.host_pages = host_pages;
        self.suspends = 0;
    }

    /// Marks the die idle (no event).
    #[inline]
    pub fn rest(&mut self) {
        self.kind = Kind::Idle;
        self.ev = NEVER;
        self.pages = 0;
        self.host_pages = 0;
    }

    /// Marks the die to wake at `t` to start work (reads pending until then).
    #[inline]
    pub fn wake_at(&mut self, t: u64) {
        self.kind = Kind::Idle;
        self.ev = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ON: Suspend = Suspend {
        enabled: true,
        cost_ns: 30,
        max_per_op: 2,
    };
    const OFF: Suspend = Suspend {
        enabled: false,
        cost_ns: 30,
        max_per_op: 2,
    };

    #[test]
    fn reads_wait_for_the_program_without_suspension() {
        let mut d = Die::new(0);
        d.start(0, Kind::Program, 2000, 48, 48);
        assert_eq!(d.read(100, 50, OFF), 2050);
        assert_eq!(d.ev, 2000);
        // A second read queues behind the first.
        assert_eq!(d.read(200, 50, OFF), 2100);
    }

    #[test]
    fn suspension_lets_reads_through_and_extends_the_program() {
        let mut d = Die::new(0);
        d.start(0, Kind::Program, 2000, 48, 48);
        assert_eq!(d.read(100, 50, ON), 180);
        assert_eq!(d.ev, 2080);
        // Queued behind the first read, no second suspend cost.
        assert_eq!(d.read(120, 50, ON), 230);
        assert_eq!(d.ev, 2130);
        assert_eq!(d.read(500, 50, ON), 580);
        // Third separate suspension exceeds max_per_op = 2: waits for the end.
        assert_eq!(d.read(1000, 50, ON), 2210 + 50);
    }

    #[test]
    fn idle_die_reads_back_to_back() {
        let mut d = Die::new(0);
        assert_eq!(d.read(10, 50, ON), 60);
        assert_eq!(d.read(20, 50, ON), 110);
        assert!(d.is_idle());
    }
}
