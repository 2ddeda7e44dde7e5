//! The SLC cache of a consumer drive: host data programmed in SLC mode (one bit per cell, a
//! short program) into free flash, and folded into the native (TLC) blocks later: when the host
//! is idle, or in the foreground when the free space the cache borrows runs short.
//!
//! Invariants:
//! - `ring` holds the cache's pages in program order; `used` counts them (stale ones too:
//!   their flash is freed only when folding passes them). An SLC page of host data occupies
//!   `bits` native pages' worth of free flash, so the cache holds at most
//!   `min(max_pages, room / bits)` pages, `room` being the FTL's free space above its GC
//!   reserve: the cache shrinks as the drive fills, and is gone on a full drive.
//! - `live[lpn]` is set iff the newest durable copy of `lpn` is in the cache. A rewrite
//!   programmed natively, a trim or a fold clears it; an older ring entry of a page whose bit
//!   is set again is folded as the page (the emulator keeps no data, only places and times),
//!   and the newer entry is skipped then.
//! - Folding reads pages from the ring's head (stale ones cost nothing), then programs them
//!   natively in whole program units through the FTL; a page rewritten between its fold read
//!   and its program is dropped from the unit.
//! - One bit per logical page plus 4 bytes per cached page.

use std::collections::VecDeque;

use crate::bits::{bitmap, get, set};

const STALE: u32 = u32::MAX;

pub struct Slc {
    /// Most pages the cache holds (its share of the logical pages).
    pub max_pages: u64,
    /// Native pages of free flash one SLC page takes (bits per cell).
    bits: u64,
    ring: VecDeque<u32>,
    live: Vec<u64>,
    /// Pages taken from the ring whose fold read is under way, and read ones waiting for a
    /// native program (`fold_queue` holds both, read ones first).
    pub reading: u64,
    pub ready: u64,
    fold_queue: VecDeque<u32>,
    /// The host went idle: fold everything.
    pub idle_fold: bool,
    /// SLC pages freed by folding since the last SLC erase was charged.
    freed: u64,
}

/// Most pages a cache of `share` of `logical_pages` holds.
pub fn max_pages(share: f64, logical_pages: u64) -> u64 {
    (share * logical_pages as f64).round() as u64
}

/// The heap of a cache of `max_pages` on a drive of `logical_pages`: its bitmap and its ring.
pub fn heap_bytes(max_pages: u64, logical_pages: u64) -> u64 {
    logical_pages.div_ceil(64) * 8 + 4 * max_pages
}

impl Slc {
    pub fn new(max_pages: u64, bits: u64, logical_pages: u64) -> Self {
        Slc {
            max_pages,
            bits: bits.max(1),
            ring: VecDeque::with_capacity(max_pages as usize),
            live: bitmap(logical_pages),
            reading: 0,
            ready: 0,
            fold_queue: VecDeque::new(),
            idle_fold: false,
            freed: 0,
        }
    }

    /// The same cache, empty (a sanitized drive).
    pub fn emptied(&self) -> Slc {
        Slc::new(self.max_pages, self.bits, self.live.len() as u64 * 64)
    }

    /// Pages in the cache (stale ones included).
    #[inline]
    pub fn used(&self) -> u64 {
        self.ring.len() as u64
    }

    #[inline]
    pub fn is_live(&self, lpn: u64) -> bool {
        get(&self.live, lpn)
    }

    /// Pages the cache can still take, given `room` native pages of free flash above the
    /// FTL's reserve.
    #[inline]
    pub fn room(&self, room: u64) -> u64 {
        let cap = self.max_pages.min(room / self.bits);
        cap.saturating_sub(self.used())
    }

    /// The cache holds more flash than the free space lends it: fold in the foreground.
    #[inline]
    pub fn over(&self, room: u64) -> bool {
        self.used() * self.bits > room
    }

    /// Host page `lpn` is programmed into the cache (`None`: a void page, trimmed while
    /// buffered, which takes its slot and holds nothing).
    pub fn push(&mut self, lpn: Option<u64>) {
        match lpn {
            Some(l) => {
                set(&mut self.live, l, true);
                self.ring.push_back(l as u32);
            }
            None => self.ring.push_back(STALE),
        }
    }

    /// `lpn`'s newest copy is no longer in the cache (rewritten natively, or trimmed).
    #[inline]
    pub fn forget(&mut self, lpn: u64) {
        set(&mut self.live, lpn, false);
    }

    /// Takes up to `n` pages from the ring's head for a fold read; returns the live pages
    /// among them (0: only stale pages, nothing to read).
    pub fn take_for_read(&mut self, n: u64) -> u64 {
        let (mut live, mut taken) = (0, 0);
        while taken < n {
            let Some(l) = self.ring.pop_front() else {
                break;
            };
            taken += 1;
            if l != STALE && self.is_live(l as u64) {
                // Later in the queue than the pages already read.
                self.fold_queue.push_back(l);
                live += 1;
            }
        }
        self.reading += live;
        self.freed += taken;
        live
    }

    /// A fold read of `pages` ended.
    pub fn read_ended(&mut self, pages: u64) {
        self.reading -= pages;
        self.ready += pages;
    }

    /// Takes up to `n` read pages for a native program: the pages still live (each is
    /// forgotten here: its newest copy is about to be the native one).
    pub fn take_for_program(&mut self, n: u64, out: &mut Vec<u64>) {
        let n = n.min(self.ready);
        self.ready -= n;
        for _ in 0..n {
            let l = self.fold_queue.pop_front().expect("ready pages are queued") as u64;
            if self.is_live(l) {
                self.forget(l);
                out.push(l);
            }
        }
    }

    /// Pages still to fold: in the ring, being read, or read.
    #[inline]
    pub fn pending(&self) -> u64 {
        self.used() + self.reading + self.ready
    }

    /// Whole SLC blocks (of `block_pages` SLC pages) freed by folding since the last call:
    /// each costs an erase.
    pub fn erases_due(&mut self, block_pages: u64) -> u64 {
        let n = self.freed / block_pages.max(1);
        self.freed -= n * block_pages.max(1);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_shrinks_with_the_free_space_and_folds_the_newest_copy_once() {
        let mut s = Slc::new(100, 3, 1000);
        assert_eq!(s.room(3000), 100, "capped by its share");
        assert_eq!(s.room(150), 50, "an SLC page takes three native pages");
        for l in 0..10 {
            s.push(Some(l));
        }
        s.push(None);
        s.push(Some(3)); // a rewrite of page 3 into the cache: two ring entries
        assert_eq!(s.used(), 12);
        assert!(!s.over(36) && s.over(35));
        s.forget(5); // rewritten natively
        let live = s.take_for_read(12);
        assert_eq!(s.used(), 0, "all 12 taken");
        // 0..10 less 5, and the second copy of 3 (its bit is the first entry's): 9 + 1.
        assert_eq!(live, 10);
        s.read_ended(live);
        let mut out = Vec::new();
        s.take_for_program(10, &mut out);
        assert_eq!(
            out,
            vec![0, 1, 2, 3, 4, 6, 7, 8, 9],
            "3 folded once, 5 not at all"
        );
        assert_eq!(s.pending(), 0);
        assert_eq!(s.erases_due(5), 2);
        assert_eq!(s.erases_due(5), 0);
    }
}
