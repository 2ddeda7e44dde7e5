//! Victim selection, one function per GC policy. Only full blocks are candidates.
//!
//! Costs: greedy O(1) amortised (valid-count buckets with a lower-bound pointer that only
//! moves up when a bucket empties), fifo O(1), random O(1), dchoices O(D), fifo-scan O(scan),
//! cost-benefit O(full blocks). The 2R policies choose groups of victims (`two_r.rs`).

use crate::ftl::Ftl;
use crate::lists::NIL;
use ssdiq_schema::GcPolicy;

/// fifo-scan: a block is collected only if its valid fraction is below this (Kang et al.'s
/// selective merge threshold, as SSD-iq's TwoR uses after its first collection).
const SCAN_UTIL: f64 = 0.7;
/// fifo-scan: after scanning this fraction of the FIFO without a victim, restart at the head
/// with a threshold raised by `SCAN_STEP` ("second chance").
const SCAN_DEPTH: f64 = 0.7;
const SCAN_STEP: f64 = 0.05;

/// Wear levelling moves at most this many blocks in a row, then the policy picks one. Moved in
/// runs, cold blocks fill GC frontier blocks with cold data alone (one move between every two
/// policy victims mixes it with their survivors again, which keeps it in blocks GC never
/// picks); the policy's victims keep the pool from starving behind a run of full blocks.
const WEAR_LEVEL_RUN: u32 = 16;

impl Ftl {
    pub(crate) fn pick_victim(&mut self) -> Option<u32> {
        if self.full_set.is_empty() {
            return None;
        }
        if let Some(b) = self.wear_level_victim() {
            return Some(b);
        }
        self.wear_levelled_run = 0;
        Some(match self.policy {
            GcPolicy::Greedy => self.greedy_victim(),
            GcPolicy::Fifo => self.fifo.head(0),
            GcPolicy::Random => {
                let i = self.rng.below(self.full_set.len() as u64) as usize;
                self.full_set[i]
            }
            GcPolicy::DChoices(d) => {
                let n = self.full_set.len() as u64;
                let mut best = self.full_set[self.rng.below(n) as usize];
                for _ in 1..d {
                    let c = self.full_set[self.rng.below(n) as usize];
                    if self.valid[c as usize] < self.valid[best as usize] {
                        best = c;
                    }
                }
                best
            }
            GcPolicy::CostBenefit => self.cost_benefit_victim(),
            GcPolicy::FifoScan => self.fifo_scan_victim(),
            GcPolicy::TwoRGreedy | GcPolicy::TwoRFifo => {
                unreachable!("2R chooses groups of victims (two_r.rs)")
            }
            GcPolicy::SeparatedModel => unreachable!("the separated model is never simulated"),
        })
    }

    /// Static wear levelling (module docs of `ftl`): the full block of fewest erases, if
    /// that count lags the mean by more than the gap and fewer than [`WEAR_LEVEL_RUN`]
    /// victims in a row were wear levelling's.
    fn wear_level_victim(&mut self) -> Option<u32> {
        let &(erases, least) = self.by_erases.as_ref()?.first()?;
        if self.wear_levelled_run >= WEAR_LEVEL_RUN {
            return None;
        }
        let mean = self.counters.erases / self.erase_count.len() as u64;
        if mean.saturating_sub(u64::from(erases)) <= u64::from(self.wear_level_gap) {
            return None;
        }
        self.wear_levelled_run += 1;
        self.counters.wear_level_victims += 1;
        Some(least)
    }

    fn greedy_victim(&mut self) -> u32 {
        while self.buckets.is_empty(self.min_bucket) {
            self.min_bucket += 1;
            debug_assert!(self.min_bucket <= self.ppb, "buckets empty but blocks full");
        }
        self.buckets.head(self.min_bucket)
    }

    /// LFS cost-benefit: maximise (1 - u) * age / (1 + u), age in host page programs since
    /// the block was closed. A block without valid pages is taken first: reclaiming it costs
    /// no read and no program (LFS's cost 1 + u counts reading the whole segment, which an
    /// SSD does not do for an empty block; the SSD form age * (1 - u) / 2u of FEMU and WiscSim
    /// is infinite there), so cost-benefit never moves data while a free win exists.
    fn cost_benefit_victim(&self) -> u32 {
        let now = self.counters.host_programs;
        let ppb = self.ppb as f64;
        let mut best = self.full_set[0];
        let mut best_score = f64::NEG_INFINITY;
        for &b in &self.full_set {
            if self.valid[b as usize] == 0 {
                return b;
            }
            let u = self.valid[b as usize] as f64 / ppb;
            let age = (now - self.closed_at[b as usize]) as f64 + 1.0;
            let score = (1.0 - u) * age / (1.0 + u);
            if score > best_score {
                best_score = score;
                best = b;
            }
        }
        best
    }

    /// Scan the FIFO of closed blocks from the persistent cursor for the first block below
    /// the utilisation threshold; young hot blocks get time to die, cold blocks that GC just
    /// wrote are not rewritten at once. The cursor stays on the victim; removing the victim
    /// moves it to the next block.
    fn fifo_scan_victim(&mut self) -> u32 {
        let n = self.fifo.len(0) as usize;
        let depth = ((SCAN_DEPTH * n as f64) as usize).max(1);
        let mut limit = SCAN_UTIL * self.ppb as f64;
        let mut cur = self.fifo_cursor;
        let mut steps = 0usize;
        loop {
            if cur == NIL {
                cur = self.fifo.head(0);
            }
            if (self.valid[cur as usize] as f64) < limit {
                self.fifo_cursor = cur;
                return cur;
            }
            cur = self.fifo.next(cur);
            steps += 1;
            if steps >= depth {
                cur = self.fifo.head(0);
                steps = 0;
                limit += SCAN_STEP * self.ppb as f64;
            }
        }
    }
}
