//! The 2R policy's operations on the FTL ([`crate::two_r`] holds its state and the
//! algorithm's description): opening host blocks from its queue, collecting by region or
//! FIFO, merging victims as a chain, and checking its invariants.

use crate::counters::GcEffect;
use crate::lists::NIL;
use crate::two_r::{TwoR, COLD, NONE, NORMAL, SCAN_DEPTH, STEP, UTIL};

use super::{Ftl, FULL, QUEUED};

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
            self.erase_count[b as usize] += 1;
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
