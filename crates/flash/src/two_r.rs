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

use crate::lists::{BlockLists, NIL};
use ssdiq_schema::GcPolicy;

pub(crate) const NONE: u8 = 0;
pub(crate) const NORMAL: u8 = 1;
pub(crate) const COLD: u8 = 2;

/// `2r-fifo`'s threshold for its very first GC, then after every GC; the scan depth and step.
const FIRST_UTIL: f64 = 0.5;
pub(crate) const UTIL: f64 = 0.7;
pub(crate) const SCAN_DEPTH: f64 = 0.7;
pub(crate) const STEP: f64 = 0.05;

pub(crate) struct TwoR {
    /// Victims from the FIFO (`2r-fifo`) rather than by region and greedy (`2r-greedy`).
    pub(crate) fifo_victims: bool,
    /// Region of each full block (`2r-greedy` only; NONE otherwise).
    pub(crate) region: Vec<u8>,
    /// Full blocks of region r with v valid pages: list (r - 1) * (ppb + 1) + v.
    pub(crate) buckets: BlockLists,
    /// Lower bounds on each region's smallest non-empty bucket.
    pub(crate) min_bucket: [u32; 2],
    /// Invalid pages in each region's blocks (`2r-greedy`).
    pub(crate) invalid: [u64; 2],
    /// Invalid pages in all full blocks.
    pub(crate) garbage: u64,
    /// Blocks the host takes next, with their write position.
    pub(crate) queue: VecDeque<(u32, u32)>,
    /// `2r-fifo`: the utilisation threshold and the steps since the scan last restarted.
    pub(crate) util: f64,
    pub(crate) steps: usize,
    pub(crate) victims: Vec<u32>,
    /// Valid pages of two victims at a time (the merge's scratch space).
    pub(crate) own: Vec<u32>,
    pub(crate) prev: Vec<u32>,
    /// Pages each victim holds after the merge.
    pub(crate) fill: Vec<u32>,
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
    pub(crate) fn list(ppb: u32, r: u8, v: u32) -> u32 {
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
    pub(crate) fn leave_region(&mut self, b: u32, v: u32, ppb: u32) {
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
    pub(crate) fn min_block(&mut self, r: u8, ppb: u32) -> u32 {
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
