//! 2R (Kang, Choi, Oh, Lee, "2R: Efficiently Isolating Cold Pages in Flash Storages", PVLDB
//! 13(11) 2020) with the semantics of SSD-iq's reference simulator (`sim/TwoR.hpp`), so that
//! `2r-greedy` and `2r-fifo` measure what the paper's figures show.
//!
//! The algorithm:
//! - Host writes fill blocks from a queue of writable blocks (initially the free pool). A block
//!   the host fills joins the *normal* region and the back of the FIFO of full blocks.
//! - GC runs when the host needs a block and the queue is empty. It gathers victims until their
//!   invalid pages add up to at least one block:
//!   - `2r-greedy` first picks a region: cold if the cold region holds a block's worth of
//!     invalid pages and (the normal region does not, or its fullest-of-garbage block has no
//!     fewer valid pages than the cold one's); then takes that region's greedy victims.
//!   - `2r-fifo` scans the FIFO from a persistent cursor and takes blocks whose valid fraction
//!     is below a threshold: 0.5 for the very first GC, 0.7 after; each time the scan has
//!     passed 70% of the FIFO since it last restarted, it restarts at the head with the
//!     threshold raised by 0.05.
//! - The victims are merged as a chain, from the last to the first: each block keeps its own
//!   remaining valid pages (moved to its front) and takes the first valid pages of the previous
//!   victim until it is full. The first victim ends empty. Victims that end full are *cold*
//!   (and go to the back of the FIFO); the others, partly filled with GC data or empty, go to
//!   the back of the host queue, so host writes continue after the relocated pages.
//!
//! Merging is modelled in place, as the reference does: physically that is copying through
//! one spare block (the FTL's reserve) and renaming, which changes nothing but block numbers.
//! Every valid page of a victim is programmed once; every victim costs one erase.
//!
//! Deliberate differences from `TwoR.hpp`: among blocks with equally many valid pages greedy
//! takes the one that reached that count first (the reference: the one that joined its region
//! first); a FIFO scan that reaches the end of the list before finding enough garbage wraps to
//! the head (the reference would stop short and fail its own checks); once the threshold
//! exceeds 1 a pass covers the whole FIFO (on a FIFO of a few blocks the reference's passes
//! over its first 70% could find too little garbage forever).
//!
//! Invariants (checked by `Ftl::check_invariants`): under `2r-greedy` every full block is in
//! exactly one region, in the bucket of its valid count, and `invalid[r]` is the sum of the
//! region's invalid pages; blocks in `queue` are in state `QUEUED` with their write position.

use std::collections::VecDeque;

use crate::counters::GcEffect;
use crate::ftl::{Ftl, FULL, QUEUED};
use crate::lists::{BlockLists, NIL};
use crate::policy::GcPolicy;

pub(crate) const NONE: u8 = 0;
pub(crate) const NORMAL: u8 = 1;
pub(crate) const COLD: u8 = 2;

/// `2r-fifo`'s threshold for its very first GC, then after every GC; the scan depth and step.
const FIRST_UTIL: f64 = 0.5;
const UTIL: f64 = 0.7;
const SCAN_DEPTH: f64 = 0.7;
const STEP: f64 = 0.05;

pub(crate) struct TwoR {
    /// Victims from the FIFO (`2r-fifo`) rather than by region and greedy (`2r-greedy`).
    fifo_victims: bool,
    /// Region of each full block (`2r-greedy` only; NONE otherwise).
    pub(crate) region: Vec<u8>,
    /// Full blocks of region r with v valid pages: list (r - 1) * (ppb + 1) + v.
    pub(crate) buckets: BlockLists,
    /// Lower bounds on each region's smallest non-empty bucket.
    min_bucket: [u32; 2],
    /// Invalid pages in each region's blocks (`2r-greedy`).
    pub(crate) invalid: [u64; 2],
    /// Invalid pages in all full blocks.
    pub(crate) garbage: u64,
    /// Blocks the host takes next, with their write position.
    pub(crate) queue: VecDeque<(u32, u32)>,
    /// `2r-fifo`: the utilisation threshold and the steps since the scan last restarted.
    util: f64,
    steps: usize,
    victims: Vec<u32>,
    /// Valid pages of two victims at a time (the merge's scratch space).
    own: Vec<u32>,
    prev: Vec<u32>,
    /// Pages each victim holds after the merge.
    fill: Vec<u32>,
}

impl TwoR {
    pub(crate) fn new(policy: GcPolicy, blocks: usize, ppb: u32) -> Self {
        let fifo_victims = policy == GcPolicy::TwoRFifo;
        let lists = if fifo_victims {
            0
        } else {
            2 * (ppb as usize + 1)
        };
        TwoR {
            fifo_victims,
            region: vec![NONE; if fifo_victims { 0 } else { blocks }],
            buckets: BlockLists::new(lists.max(1), if fifo_victims { 0 } else { blocks }),
            min_bucket: [0; 2],
            invalid: [0; 2],
            garbage: 0,
            queue: VecDeque::new(),
            util: FIRST_UTIL,
            steps: 0,
            victims: Vec::new(),
            own: Vec::new(),
            prev: Vec::new(),
            fill: Vec::new(),
        }
    }

    #[inline]
    fn list(ppb: u32, r: u8, v: u32) -> u32 {
        (r as u32 - 1) * (ppb + 1) + v
    }

    /// Block `b` with `v` valid pages is full now and joins region `r` (`2r-greedy`).
    pub(crate) fn join(&mut self, b: u32, r: u8, v: u32, ppb: u32) {
        self.garbage += (ppb - v) as u64;
        if self.fifo_victims {
            return;
        }
        self.region[b as usize] = r;
        self.buckets.push_back(Self::list(ppb, r, v), b);
        let i = r as usize - 1;
        self.invalid[i] += (ppb - v) as u64;
        self.min_bucket[i] = self.min_bucket[i].min(v);
    }

    /// Block `b` (now with `v` valid pages) leaves its region, if any.
    fn leave_region(&mut self, b: u32, v: u32, ppb: u32) {
        if self.fifo_victims {
            return;
        }
        let r = self.region[b as usize];
        if r != NONE {
            self.buckets.remove(b);
            self.invalid[r as usize - 1] -= (ppb - v) as u64;
            self.region[b as usize] = NONE;
        }
    }

    /// A page of block `b` (`full` or not) became invalid; `v` valid pages are left.
    #[inline]
    pub(crate) fn invalidated(&mut self, b: u32, v: u32, full: bool, ppb: u32) {
        self.garbage += u64::from(full);
        if self.fifo_victims {
            return;
        }
        let r = self.region[b as usize];
        if r != NONE {
            self.buckets.move_to(b, Self::list(ppb, r, v));
            let i = r as usize - 1;
            self.invalid[i] += 1;
            self.min_bucket[i] = self.min_bucket[i].min(v);
        }
    }

    /// The head of region r's smallest non-empty bucket (NIL if the region is empty).
    fn min_block(&mut self, r: u8, ppb: u32) -> u32 {
        let i = r as usize - 1;
        while self.min_bucket[i] <= ppb {
            let h = self.buckets.head(Self::list(ppb, r, self.min_bucket[i]));
            if h != NIL {
                return h;
            }
            self.min_bucket[i] += 1;
        }
        self.min_bucket[i] = ppb + 1;
        NIL
    }
}

impl Ftl {
    /// The host queue's next block for frontier `f`, collecting first if it is empty and the
    /// free pool is at the reserve.
    pub(crate) fn two_r_open(&mut self, f: usize, eff: &mut crate::WriteEffect) {
        loop {
            let t = self.two_r.as_deref_mut().expect("2R state");
            if let Some((b, next)) = t.queue.pop_front() {
                self.state[b as usize] = crate::ftl::OPEN;
                self.owner[b as usize] = f as u16;
                self.frontiers[f] = crate::ftl::Frontier { block: b, next };
                return;
            }
            if self.free.len() > self.geo.reserve_blocks as usize {
                self.take_free(f);
                return;
            }
            let g = self
                .two_r_collect()
                .expect("2R found no victims although every block is full");
            eff.relocations += g.relocations;
            eff.erases += g.erases;
        }
    }

    /// One 2R GC: choose victims, merge them, sort the results into cold blocks and the host
    /// queue. `None` if the full blocks hold less than a block of invalid pages (a merge
    /// would gain no block).
    pub(crate) fn two_r_collect(&mut self) -> Option<GcEffect> {
        let mut t = self.two_r.take().expect("2R state");
        if t.garbage < self.ppb as u64 {
            self.two_r = Some(t);
            return None;
        }
        t.victims.clear();
        if t.fifo_victims {
            self.fifo_victims(&mut t);
        } else {
            self.greedy_victims(&mut t);
        }
        let eff = self.merge(&mut t);
        self.two_r = Some(t);
        Some(eff)
    }

    /// `2r-greedy`: pick the region, then its greedy victims until they hold a block of
    /// garbage. Victims leave their region here.
    fn greedy_victims(&mut self, t: &mut TwoR) {
        let ppb = self.ppb;
        let [normal_inv, cold_inv] = t.invalid;
        let cold = if cold_inv < ppb as u64 {
            false
        } else if normal_inv < ppb as u64 {
            true
        } else {
            let hot = t.min_block(NORMAL, ppb);
            let cold = t.min_block(COLD, ppb);
            self.valid[hot as usize] >= self.valid[cold as usize]
        };
        let r = if cold { COLD } else { NORMAL };
        let mut inv = 0u64;
        while inv < ppb as u64 {
            let b = t.min_block(r, ppb);
            if b == NIL {
                break;
            }
            let v = self.valid[b as usize];
            t.leave_region(b, v, ppb);
            t.victims.push(b);
            inv += (ppb - v) as u64;
        }
        debug_assert!(inv >= ppb as u64, "2r-greedy: region {r} short of garbage");
    }

    /// `2r-fifo`: scan the FIFO from the persistent cursor for blocks under the threshold.
    fn fifo_victims(&mut self, t: &mut TwoR) {
        let ppb = self.ppb;
        let n = self.fifo.len(0) as usize;
        if self.fifo_cursor == NIL {
            self.fifo_cursor = self.fifo.head(0);
            t.steps = 0;
        }
        let threshold = (SCAN_DEPTH * n as f64) as usize;
        let mut inv = 0u64;
        while inv < ppb as u64 && t.victims.len() < n {
            let b = self.fifo_cursor;
            if b == NIL {
                self.fifo_cursor = self.fifo.head(0);
                continue;
            }
            let v = self.valid[b as usize];
            if (v as f64 / ppb as f64) < t.util && !t.victims.contains(&b) {
                t.victims.push(b);
                inv += (ppb - v) as u64;
            }
            self.fifo_cursor = self.fifo.next(b);
            t.steps += 1;
            // Once every block qualifies, a pass covers the whole FIFO: on a short FIFO the
            // first 70% may hold too little garbage (the reference would loop forever).
            let depth = if t.util > 1.0 { n } else { threshold };
            if t.steps >= depth {
                self.fifo_cursor = self.fifo.head(0);
                t.steps = 0;
                t.util += STEP;
            }
        }
        t.util = UTIL;
    }

    /// Merges `t.victims` as a chain (module docs), then files each victim: full ones at the
    /// back of the FIFO (and, for 2r-greedy, into the cold region), the others at the back of
    /// the host queue.
    fn merge(&mut self, t: &mut TwoR) -> GcEffect {
        let ppb = self.ppb;
        let n = t.victims.len();
        t.fill.clear();
        t.fill.resize(n, 0);
        // Two victims' pages at a time: `own` holds victim i's valid pages in block order, of
        // which the first `given` went to victim i + 1; `prev` victim i - 1's, gathered before
        // victim i - 1 is rewritten.
        let mut own = std::mem::take(&mut t.own);
        let mut prev = std::mem::take(&mut t.prev);
        let mut moved = self.gather(t.victims[n - 1], &mut own);
        let mut given = 0usize;
        for i in (0..n).rev() {
            let b = t.victims[i];
            prev.clear();
            if i > 0 {
                moved += self.gather(t.victims[i - 1], &mut prev);
            }
            let mut len = 0u32;
            for &lpn in &own[given..] {
                self.place(b, len, lpn);
                len += 1;
            }
            let take = ((ppb - len) as usize).min(prev.len());
            for &lpn in &prev[..take] {
                self.place(b, len, lpn);
                len += 1;
            }
            self.valid[b as usize] = len;
            t.fill[i] = len;
            given = take;
            std::mem::swap(&mut own, &mut prev);
        }
        t.own = own;
        t.prev = prev;
        t.garbage -= n as u64 * ppb as u64 - moved as u64;
        debug_assert_eq!(t.fill[0], 0, "the first victim ends empty");
        self.counters.gc_programs += moved as u64;
        self.counters.erases += n as u64;
        for i in 0..n {
            let b = t.victims[i];
            let len = t.fill[i];
            if len == ppb {
                // Still full: to the back of the FIFO (the cursor, if on it, moves to its
                // next block, which is itself when it was last), and cold.
                if self.fifo_cursor == b {
                    let nx = self.fifo.next(b);
                    self.fifo_cursor = if nx == NIL { b } else { nx };
                }
                self.fifo.remove(b);
                self.fifo.push_back(0, b);
                self.closed_at[b as usize] = self.counters.host_programs;
                t.join(b, COLD, len, ppb);
            } else {
                self.remove_full(b);
                self.state[b as usize] = QUEUED;
                t.queue.push_back((b, len));
            }
        }
        GcEffect {
            victim: t.victims[0],
            relocations: moved,
            erases: n as u32,
        }
    }

    /// The valid pages of victim `b` in block order, into `out`; counts the victim. Returns
    /// how many there are.
    fn gather(&mut self, b: u32, out: &mut Vec<u32>) -> u32 {
        out.clear();
        let base = b * self.ppb;
        for ppn in base..base + self.ppb {
            let lpn = self.p2l[ppn as usize];
            if lpn != NIL && self.l2p[lpn as usize] == ppn {
                out.push(lpn);
            }
        }
        let v = out.len() as u32;
        debug_assert_eq!(v, self.valid[b as usize]);
        self.counters.victim_valid[v as usize] += 1;
        v
    }

    /// Maps `lpn` to page `pos` of block `b`.
    #[inline]
    fn place(&mut self, b: u32, pos: u32, lpn: u32) {
        let ppn = b * self.ppb + pos;
        self.p2l[ppn as usize] = lpn;
        self.l2p[lpn as usize] = ppn;
    }

    /// 2R bookkeeping when the host closes block `b`: it joins the normal region.
    #[inline]
    pub(crate) fn two_r_closed(&mut self, b: u32) {
        let v = self.valid[b as usize];
        let ppb = self.ppb;
        if let Some(t) = self.two_r.as_deref_mut() {
            t.join(b, NORMAL, v, ppb);
        }
    }

    /// Checks the 2R invariants of the module docs.
    pub(crate) fn check_two_r(&self) -> Result<(), String> {
        let Some(t) = self.two_r.as_deref() else {
            return Ok(());
        };
        for &(b, next) in &t.queue {
            if self.state[b as usize] != QUEUED {
                return Err(format!(
                    "queued block {b} in state {}",
                    self.state[b as usize]
                ));
            }
            if self.valid[b as usize] > next || next >= self.ppb {
                return Err(format!(
                    "queued block {b}: {next} written, {} valid",
                    self.valid[b as usize]
                ));
            }
        }
        let queued = self.state.iter().filter(|&&s| s == QUEUED).count();
        if queued != t.queue.len() {
            return Err(format!(
                "{queued} blocks queued, queue holds {}",
                t.queue.len()
            ));
        }
        let garbage: u64 = (0..self.state.len())
            .filter(|&b| self.state[b] == FULL)
            .map(|b| (self.ppb - self.valid[b]) as u64)
            .sum();
        if garbage != t.garbage {
            return Err(format!("garbage {} vs counted {garbage}", t.garbage));
        }
        if t.fifo_victims {
            return Ok(());
        }
        let mut inv = [0u64; 2];
        for (b, &s) in self.state.iter().enumerate() {
            let r = t.region[b];
            if (s == FULL) != (r != NONE) {
                return Err(format!("block {b} in state {s} has region {r}"));
            }
            if r != NONE {
                let v = self.valid[b];
                if t.buckets.owner(b as u32) != TwoR::list(self.ppb, r, v) {
                    return Err(format!("block {b} in the wrong bucket"));
                }
                inv[r as usize - 1] += (self.ppb - v) as u64;
            }
        }
        if inv != t.invalid {
            return Err(format!(
                "region garbage {:?} vs counted {:?}",
                t.invalid, inv
            ));
        }
        Ok(())
    }
}
