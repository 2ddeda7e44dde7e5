//! Workloads that drive the store, and the loop that runs them.
//!
//! - YCSB-A: 50% reads, 50% updates of one record; records `0..R` (R = pages x records per
//!   page, record r on page r / records-per-page) drawn by Zipf(theta) over ranks, *not*
//!   scrambled: the hottest keys are adjacent, as in LeanStore's YCSB (hot keys share pages).
//! - Page level: any pattern of the workload crate over the pages; each operation reads or
//!   updates one random record of the drawn page.
//!
//! Time: on a device with a virtual clock (the emulated SSD) the loop runs `workers`
//! concurrent workers in virtual time: each has one operation in flight; an operation takes
//! `op_cpu_ns` of its worker plus the time of the I/O it waits for (reads, and writes that
//! find the drive's buffer full). The store's logic runs to completion at the operation's
//! start, one operation at a time, so results are deterministic. On real devices one thread
//! runs the operations back to back in wall time.
//!
//! Invariant: the same configuration and seed give the same sequence of operations.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use ssdiq_workload::rng::derive_seed;
use ssdiq_workload::{Draw, PageStream, Pattern, SeededRng, StreamConfig, ZipfSampler};

use crate::device::Wait;
use crate::store::{Store, StoreError};
use crate::DeviceError;
pub use ssdiq_schema::store::Workload;

/// One operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read(u64),
    Update(u64, u32),
}

/// An endless, seeded stream of operations.
pub struct OpStream {
    rng: SeededRng,
    kind: StreamKind,
    read_fraction: f64,
    rpp: u64,
}

enum StreamKind {
    Ycsb(ZipfSampler),
    Pages(Box<PageStream>),
}

impl OpStream {
    pub fn new(w: &Workload, pages: u64, rpp: u32, seed: u64) -> Result<OpStream, String> {
        let rng = SeededRng::new(derive_seed(seed, 0x0b5));
        let (kind, rf) = match w {
            Workload::Ycsb {
                theta,
                read_fraction,
            } => {
                if !(*theta > 0.0 && theta.is_finite()) {
                    return Err(format!("invalid zipf theta {theta}: expected a number > 0"));
                }
                (
                    StreamKind::Ycsb(ZipfSampler::new(pages * rpp as u64, *theta)),
                    *read_fraction,
                )
            }
            Workload::Pages {
                pattern,
                read_fraction,
            } => {
                let p = Pattern::parse(pattern).map_err(|e| e.to_string())?;
                let s = PageStream::new(&p, StreamConfig::single(pages, 4096, seed))
                    .map_err(|e| e.to_string())?;
                (StreamKind::Pages(Box::new(s)), *read_fraction)
            }
        };
        if !(0.0..=1.0).contains(&rf) {
            return Err(format!("invalid read fraction {rf}: expected 0 to 1"));
        }
        Ok(OpStream {
            rng,
            kind,
            read_fraction: rf,
            rpp: rpp as u64,
        })
    }

    #[inline]
    pub fn next_op(&mut self) -> Op {
        let (pid, slot) = match &mut self.kind {
            StreamKind::Ycsb(z) => {
                let r = z.sample(&mut self.rng) - 1;
                (r / self.rpp, (r % self.rpp) as u32)
            }
            StreamKind::Pages(s) => loop {
                if let Draw::Page(p) = s.next_draw() {
                    break (p, self.rng.below(self.rpp) as u32);
                }
            },
        };
        if self.rng.unit_f64() < self.read_fraction {
            Op::Read(pid)
        } else {
            Op::Update(pid, slot)
        }
    }
}

/// When to stop a phase.
#[derive(Clone, Copy, Debug)]
pub struct Until {
    /// Operations (None: no limit).
    pub ops: Option<u64>,
    /// Bytes the store writes to the device (user + double-write + GC), None: no limit.
    pub db_bytes: Option<u64>,
}

/// Operations a phase bounded by bytes runs before its pace is judged.
const PACE_AFTER_OPS: u64 = 1 << 24;
/// Most operations such a phase may take, at its pace so far: hours of work.
const MAX_PHASE_OPS: f64 = 1e11;

/// A phase bounded by the bytes the store writes must write them: with updates so skewed
/// that they all hit pages the buffer pool keeps (a Zipf theta of 1.5 or more), it writes
/// nothing and would run for ever. Refused, with what it did, once it has run long enough
/// to tell.
fn check_pace(done_ops: u64, written: u64, target: u64) -> Result<(), StoreError> {
    if done_ops < PACE_AFTER_OPS {
        return Ok(());
    }
    let projected = target as f64 * done_ops as f64 / written.max(1) as f64;
    if projected <= MAX_PHASE_OPS {
        return Ok(());
    }
    Err(StoreError::NoProgress(format!(
        "the workload writes {written} bytes to the device in {done_ops} operations, of the {target} its phase must write: the updates hit pages the buffer pool keeps (lower --theta, or lower --read-fraction), or it would take about {projected:.1e} operations"
    )))
}

/// Time and progress of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    /// Virtual nanoseconds (emulated device) or wall nanoseconds.
    pub ns: u64,
    pub ops: u64,
}

/// Runs operations in virtual or wall time.
pub struct Runner {
    workers: u32,
    op_cpu_ns: u64,
    /// Virtual time: (ready time, worker).
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// Per worker: parked writes still outstanding and the latest completion seen.
    waiting: Vec<(u32, u64)>,
    woken: Vec<(u64, u64)>,
    /// Latest completion (virtual) so far.
    t_end: u64,
    started: Option<Instant>,
    pub clock: Clock,
}

impl Runner {
    pub fn new(workers: u32, op_cpu_ns: u64) -> Self {
        let workers = workers.max(1);
        Runner {
            workers,
            op_cpu_ns,
            heap: (0..workers).map(|w| Reverse((0, w))).collect(),
            waiting: vec![(0, 0); workers as usize],
            woken: Vec::new(),
            t_end: 0,
            started: None,
            clock: Clock::default(),
        }
    }

    /// DB-issued device bytes so far.
    pub fn db_bytes(store: &Store) -> u64 {
        let c = store.counters;
        c.user_bytes
            + c.dwb_bytes
            + store
                .space()
                .map_or(0, |s| s.counters.gc_slots * crate::page::PAGE as u64)
    }

    /// Runs operations from `ops` until `until`, or until `stop()` says so; `progress` is
    /// called every 65536 operations.
    pub fn run(
        &mut self,
        store: &mut Store,
        ops: &mut OpStream,
        until: Until,
        stop: &dyn Fn() -> bool,
        progress: &mut dyn FnMut(&Store, Clock, f64),
    ) -> Result<(), StoreError> {
        let virt = store.device_ref().info().virtual_time;
        let start_ops = self.clock.ops;
        let start_bytes = Self::db_bytes(store);
        if !virt && self.started.is_none() {
            self.started = Some(Instant::now());
        }
        // The share of the bound done: of its operations or of its bytes.
        let share = |store: &Store, done_ops: u64| {
            let by_ops = until.ops.map_or(0.0, |n| done_ops as f64 / n.max(1) as f64);
            let by_bytes = until.db_bytes.map_or(0.0, |b| {
                (Self::db_bytes(store) - start_bytes) as f64 / b.max(1) as f64
            });
            by_ops.max(by_bytes).min(1.0)
        };
        loop {
            let done_ops = self.clock.ops - start_ops;
            if until.ops.is_some_and(|n| done_ops >= n)
                || until
                    .db_bytes
                    .is_some_and(|b| Self::db_bytes(store) - start_bytes >= b)
            {
                break;
            }
            if done_ops.is_multiple_of(1 << 16) {
                if stop() {
                    break;
                }
                progress(store, self.clock, share(store, done_ops));
                if let Some(b) = until.db_bytes {
                    check_pace(done_ops, Self::db_bytes(store) - start_bytes, b)?;
                }
            }
            let op = ops.next_op();
            if virt {
                self.step_virtual(store, op)?;
            } else {
                Self::apply(store, op)?;
                self.clock.ns = self.started.expect("set above").elapsed().as_nanos() as u64;
            }
            self.clock.ops += 1;
        }
        progress(store, self.clock, share(store, self.clock.ops - start_ops));
        Ok(())
    }

    #[inline]
    fn apply(store: &mut Store, op: Op) -> Result<(), StoreError> {
        match op {
            Op::Read(p) => store.read(p),
            Op::Update(p, s) => store.update(p, s),
        }
    }

    /// One operation of the earliest ready worker, after the drive's internal events up to
    /// that time.
    fn step_virtual(&mut self, store: &mut Store, op: Op) -> Result<(), StoreError> {
        loop {
            let tw = self.heap.peek().map_or(u64::MAX, |r| r.0 .0);
            let vt = store
                .device()
                .virtual_time()
                .expect("a virtual-time device");
            let te = vt.next_event();
            if te <= tw && te != u64::MAX {
                // Every worker waits for a drive that can never take their writes: a fault
                // of the model, reported, never a hang.
                if tw == u64::MAX && vt.stuck() {
                    return Err(StoreError::Device(DeviceError::Io {
                        what: "every worker waits for buffer room the emulated drive can never free (an emulator fault: please report the target and flags)".into(),
                        source: std::io::Error::from(std::io::ErrorKind::TimedOut),
                    }));
                }
                self.woken.clear();
                vt.advance(te, &mut self.woken);
                for &(tok, t) in &self.woken {
                    let w = &mut self.waiting[tok as usize];
                    w.0 -= 1;
                    w.1 = w.1.max(t);
                    if w.0 == 0 {
                        self.heap.push(Reverse((w.1 + self.op_cpu_ns, tok as u32)));
                    }
                }
                continue;
            }
            assert!(
                tw != u64::MAX,
                "every worker waits and the drive has no event"
            );
            break;
        }
        let Reverse((t, w)) = self.heap.pop().expect("peeked");
        store
            .device()
            .virtual_time()
            .expect("virtual")
            .begin(t, w as u64);
        Self::apply(store, op)?;
        let wait = store.device().virtual_time().expect("virtual").finish();
        match wait {
            Wait::Until(d) => {
                self.t_end = self.t_end.max(d);
                self.heap.push(Reverse((d.max(t) + self.op_cpu_ns, w)));
            }
            Wait::Parked { parked, until } => {
                self.waiting[w as usize] = (parked, until);
            }
        }
        self.clock.ns = self.clock.ns.max(t);
        Ok(())
    }

    pub fn workers(&self) -> u32 {
        self.workers
    }
}
