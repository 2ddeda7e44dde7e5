//! One flash die's timeline: host reads are reserved at once, background operations
//! (programs, GC reads, erases) start only when the die has no read pending.
//!
//! Invariants:
//! - A die does one operation at a time. `read_free` is when the last reserved host read ends;
//!   a background operation starts only at a time `>= read_free`, so reads go ahead of queued
//!   programs and wait only for the operation in progress (or suspend it).
//! - `ev` is the die's next event: the end of its background operation (`kind != Idle`), a
//!   wake-up to start one once reads drain (`kind == Idle`, `ev < MAX`), or `MAX` (idle).
//! - A read arriving during a suspendable program waits for the program to reach its next
//!   suspend point, or for its end if that comes sooner. Suspend points lie every
//!   `2 * program_ns` of the program's own progress (a program is a series of ISPP loops and
//!   stops only between them: Wu & He, FAST'12; US patent 6,930,925 "advance to the next break
//!   point"), so a read arriving at a random moment waits `program_ns` on average (MQSim's
//!   constant) and up to twice that. The program keeps programming until the point, so it is
//!   extended only by the reads it lets through. `origin` is where its points are counted
//!   from, moved by each extension.
//! - A read arriving during a suspendable erase waits `erase_ns` for it to be suspended (or for
//!   its end if that comes sooner); the erase is extended by that wait plus the reads it let
//!   through (the die spends the wait suspending). Erases are scaled down with the block (see `profile`), so an erase's
//!   remaining time is read at full size (`erase_stretch` times the scaled one): a read then
//!   waits what it would on the full-size drive, and when that outlasts the scaled erase the
//!   die idles until the read (the one place die time is added, at the rate reads meet
//!   erases).
//! - The die's page register keeps the last read unit a host read sensed (`sensed`), until
//!   the die starts a background operation or senses another unit: a host read of the same
//!   unit meanwhile needs no tR, only its transfer (what makes 4 KiB sequential reads of a
//!   16 KiB flash page cheaper than random ones). A read that suspended a program or erase
//!   leaves nothing in the register (the resumed operation uses it).

pub const NEVER: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Idle,
    /// A native program of host and relocated pages.
    Program,
    GcRead,
    Erase,
    /// Host pages programmed into the SLC cache.
    SlcProgram,
    /// SLC-cached pages read for folding.
    FoldRead,
    /// Folded pages programmed natively.
    FoldProgram,
}

/// Suspension settings of the drive.
#[derive(Clone, Copy, Debug)]
pub struct Suspend {
    pub enabled: bool,
    /// A read's mean wait for a program to reach its next suspend point (half their spacing).
    pub program_ns: u64,
    /// Time for a read to get an erase suspended.
    pub erase_ns: u64,
    /// Full-size erase time / scaled erase time (>= 1).
    pub erase_stretch: f64,
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
    /// Start of the operation in progress, moved by the time it was suspended: its suspend
    /// points lie every `2 * Suspend::program_ns` from here.
    origin: u64,
    /// The read unit in the page register (`NEVER`: none) and when its sensing ends.
    sensed: u64,
    sensed_ready: u64,
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
            origin: now,
            sensed: NEVER,
            sensed_ready: 0,
        }
    }

    /// When the data of read unit `unit` is in the page register already, the time it is
    /// (its sensing may still be under way); the read needs no die time then.
    #[inline]
    pub fn registered(&self, unit: u64, t: u64) -> Option<u64> {
        (unit != NEVER && self.sensed == unit).then(|| self.sensed_ready.max(t))
    }

    /// True if the die has nothing in progress and no wake-up pending.
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.ev == NEVER
    }

    /// Reserves a host read arriving at `t` that occupies the die for `dur`; returns its end.
    #[inline]
    pub fn read(&mut self, t: u64, dur: u64, s: Suspend, unit: u64) -> u64 {
        let busy = self.kind != Kind::Idle && self.ev > t;
        if !busy {
            let end = t.max(self.read_free) + dur;
            self.read_free = end;
            self.sensed = unit;
            self.sensed_ready = end;
            return end;
        }
        self.sensed = NEVER;
        // Time until the operation in progress ends, at full size.
        let remaining = match self.kind {
            Kind::Erase => ((self.ev - t) as f64 * s.erase_stretch) as u64,
            _ => self.ev - t,
        };
        let latency = match self.kind {
            Kind::Program | Kind::SlcProgram | Kind::FoldProgram => {
                let spacing = 2 * s.program_ns;
                if spacing == 0 {
                    0
                } else {
                    spacing - (t - self.origin) % spacing
                }
            }
            Kind::Erase => s.erase_ns,
            _ => u64::MAX,
        };
        // An erase spends the wait suspending; a program goes on to its suspend point.
        let lost = if self.kind == Kind::Erase { latency } else { 0 };
        let suspendable = latency != u64::MAX && s.enabled && self.read_free <= self.ev;
        if suspendable && self.read_free > t {
            // Reads already let through by this suspension queue behind each other.
            let end = self.read_free + dur;
            self.ev += dur;
            self.origin += dur;
            self.read_free = end;
            return end;
        }
        if suspendable && self.suspends < s.max_per_op && latency < remaining {
            self.suspends += 1;
            let end = t + latency + dur;
            self.ev += lost + dur;
            self.origin += lost + dur;
            self.read_free = end;
            return end;
        }
        // Wait for the operation to end (at full size), then go before anything queued.
        let end = (t + remaining).max(self.read_free) + dur;
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
        self.origin = t;
        self.sensed = NEVER;
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
        program_ns: 30,
        erase_ns: 200,
        erase_stretch: 10.0,
        max_per_op: 2,
    };
    const OFF: Suspend = Suspend {
        enabled: false,
        ..ON
    };

    #[test]
    fn reads_wait_for_the_program_without_suspension() {
        let mut d = Die::new(0);
        d.start(0, Kind::Program, 2000, 48, 48);
        assert_eq!(d.read(100, 50, OFF, NEVER), 2050);
        assert_eq!(d.ev, 2000);
        // A second read queues behind the first.
        assert_eq!(d.read(200, 50, OFF, NEVER), 2100);
    }

    #[test]
    fn suspension_lets_reads_through_and_extends_the_program() {
        // Suspend points every 60 (2 x 30) of the program's progress.
        let mut d = Die::new(0);
        d.start(0, Kind::Program, 2000, 48, 48);
        // At 100 the next point is 120: the read runs 120-170 and the program ends 50 later.
        assert_eq!(d.read(100, 50, ON, NEVER), 170);
        assert_eq!(d.ev, 2050);
        // Queued behind the first read, no second suspension.
        assert_eq!(d.read(120, 50, ON, NEVER), 220);
        assert_eq!(d.ev, 2100);
        // The points moved with the 100 the program was suspended: 460, 520, ...
        assert_eq!(d.read(500, 50, ON, NEVER), 570);
        assert_eq!(d.ev, 2150);
        // Third separate suspension exceeds max_per_op = 2: waits for the end.
        assert_eq!(d.read(1000, 50, ON, NEVER), 2150 + 50);
        // Near its end a program is not suspended: the read waits for it.
        let mut d = Die::new(0);
        d.start(0, Kind::Program, 2000, 48, 48);
        assert_eq!(d.read(1990, 50, ON, NEVER), 2050);
        assert_eq!(d.ev, 2000);
    }

    #[test]
    fn a_read_waits_for_the_next_suspend_point_up_to_twice_the_mean() {
        let wait = |at: u64| {
            let mut d = Die::new(0);
            d.start(0, Kind::Program, 2000, 48, 48);
            d.read(at, 50, ON, NEVER) - 50 - at
        };
        assert_eq!(wait(59), 1);
        assert_eq!(wait(60), 60);
        assert_eq!(wait(61), 59);
        let mean = (1..=600).map(wait).sum::<u64>() as f64 / 600.0;
        assert!((mean - 30.5).abs() < 1e-9, "mean wait {mean}");
    }

    #[test]
    fn erases_are_waited_for_at_full_size() {
        // A scaled erase of 100 stands for 1000 at full size.
        let mut d = Die::new(0);
        d.start(0, Kind::Erase, 100, 0, 0);
        // 90 left = 900 at full size > 200: suspended after 200.
        assert_eq!(d.read(10, 50, ON, NEVER), 260);
        assert_eq!(d.ev, 350);
        let mut d = Die::new(0);
        d.start(0, Kind::Erase, 100, 0, 0);
        // 15 left = 150 at full size < 200: the read waits for the full-size end.
        assert_eq!(d.read(85, 50, ON, NEVER), 85 + 150 + 50);
        assert_eq!(d.ev, 100);
        assert_eq!(d.read_free, 285);
        // Without suspension: the whole full-size remainder.
        let mut d = Die::new(0);
        d.start(0, Kind::Erase, 100, 0, 0);
        assert_eq!(d.read(10, 50, OFF, NEVER), 10 + 900 + 50);
    }

    #[test]
    fn idle_die_reads_back_to_back() {
        let mut d = Die::new(0);
        assert_eq!(d.read(10, 50, ON, NEVER), 60);
        assert_eq!(d.read(20, 50, ON, NEVER), 110);
        assert!(d.is_idle());
    }

    #[test]
    fn the_page_register_serves_the_unit_last_sensed_until_the_die_does_something_else() {
        let mut d = Die::new(0);
        assert_eq!(d.read(100, 50, OFF, 7), 150);
        assert_eq!(d.registered(7, 120), Some(150), "sensing still under way");
        assert_eq!(d.registered(7, 400), Some(400));
        assert_eq!(d.registered(8, 400), None);
        d.read(400, 50, OFF, 8);
        assert_eq!(d.registered(7, 500), None, "another unit sensed");
        d.start(600, Kind::Program, 100, 4, 4);
        assert_eq!(d.registered(8, 800), None, "a program used the register");
        assert_eq!(d.registered(NEVER, 800), None);
    }
}
