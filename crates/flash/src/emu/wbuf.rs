//! The power-loss-protected DRAM write buffer: a FIFO of logical pages waiting to be
//! programmed, and the writes waiting for room in it.
//!
//! Invariants:
//! - `used` counts slots: pages in the FIFO (live or stale) plus pages taken out for a program
//!   still in progress; a slot is freed when its program ends ([`WriteBuf::release`]) or when a
//!   stale entry is dropped. `used <= cap` except for one oversized write admitted into an
//!   empty buffer (so a write larger than the buffer cannot deadlock).
//! - `live` maps each buffered logical page to the FIFO index of its newest copy: an older copy
//!   of a page rewritten (or trimmed) while buffered is stale and never programmed.
//! - Writes that found no room wait in `parked`, admitted strictly in arrival order.

use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;

use crate::buffer::PageHasher;

/// A write waiting for buffer room.
#[derive(Clone, Copy, Debug)]
struct Parked {
    tag: u64,
    lpn: u64,
    pages: u32,
    /// When its data is in the controller (after the host link).
    ready: u64,
}

pub struct WriteBuf {
    cap: u64,
    used: u64,
    fifo: VecDeque<u32>,
    /// FIFO index of `fifo[0]`.
    head: u64,
    live: HashMap<u64, u64, BuildHasherDefault<PageHasher>>,
    parked: VecDeque<Parked>,
}

impl WriteBuf {
    pub fn new(cap_pages: u64) -> Self {
        WriteBuf {
            cap: cap_pages.max(1),
            used: 0,
            fifo: VecDeque::with_capacity(cap_pages.min(1 << 20) as usize),
            head: 0,
            live: HashMap::with_capacity_and_hasher(
                cap_pages.min(1 << 20) as usize,
                Default::default(),
            ),
            parked: VecDeque::new(),
        }
    }

    pub fn used(&self) -> u64 {
        self.used
    }
    /// Buffered pages not yet taken for a program.
    #[inline]
    pub fn live(&self) -> u64 {
        self.live.len() as u64
    }
    #[inline]
    pub fn contains(&self, lpn: u64) -> bool {
        !self.live.is_empty() && self.live.contains_key(&lpn)
    }
    pub fn parked(&self) -> usize {
        self.parked.len()
    }

    /// True if a write of `pages` may enter now (and nobody is waiting before it).
    #[inline]
    pub fn fits(&self, pages: u64) -> bool {
        self.parked.is_empty() && (self.used + pages <= self.cap || self.used == 0)
    }

    /// Buffers pages `lpn..lpn + pages` (the caller checked [`WriteBuf::fits`]).
    #[inline]
    pub fn insert(&mut self, lpn: u64, pages: u64) {
        for p in lpn..lpn + pages {
            let idx = self.head + self.fifo.len() as u64;
            self.fifo.push_back(p as u32);
            self.live.insert(p, idx);
        }
        self.used += pages;
    }

    /// Queues a write that did not fit.
    pub fn park(&mut self, tag: u64, lpn: u64, pages: u64, ready: u64) {
        self.parked.push_back(Parked {
            tag,
            lpn,
            pages: pages as u32,
            ready,
        });
    }

    /// Admits waiting writes that now fit, at time `t`: each completes `ack_ns` after both
    /// `t` and its data being ready. Pushes `(tag, completion)` to `out`.
    pub fn admit(&mut self, t: u64, ack_ns: u64, out: &mut Vec<(u64, u64)>) {
        while let Some(p) = self.parked.front().copied() {
            if self.used + p.pages as u64 > self.cap && self.used != 0 {
                break;
            }
            self.parked.pop_front();
            self.insert(p.lpn, p.pages as u64);
            out.push((p.tag, t.max(p.ready) + ack_ns));
        }
    }

    /// Takes the oldest live page out for programming (its slot stays used until
    /// [`WriteBuf::release`]); stale entries on the way are dropped and free their slots.
    #[inline]
    pub fn pop_live(&mut self) -> Option<u64> {
        while let Some(lpn) = self.fifo.pop_front() {
            let idx = self.head;
            self.head += 1;
            let lpn = lpn as u64;
            if self.live.get(&lpn) == Some(&idx) {
                self.live.remove(&lpn);
                return Some(lpn);
            }
            self.used -= 1;
        }
        None
    }

    /// A program of `pages` buffered pages ended: their slots are free.
    #[inline]
    pub fn release(&mut self, pages: u64) {
        self.used -= pages;
    }

    /// Drops the buffered copy of `lpn` (trim). It stays in the FIFO as a stale entry.
    pub fn discard(&mut self, lpn: u64) {
        if !self.live.is_empty() {
            self.live.remove(&lpn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_with_stale_copies_and_parking() {
        let mut b = WriteBuf::new(4);
        assert!(b.fits(3));
        b.insert(10, 3); // 10, 11, 12
        b.insert(11, 1); // 11 again: the first copy is stale
        assert_eq!((b.used(), b.live()), (4, 3));
        assert!(!b.fits(1));
        b.park(7, 20, 2, 100);
        assert_eq!(b.pop_live(), Some(10));
        assert_eq!(b.pop_live(), Some(12)); // stale 11 dropped, its slot freed
        assert_eq!(b.used(), 3);
        let mut out = Vec::new();
        b.admit(50, 10, &mut out);
        assert!(out.is_empty());
        b.release(2);
        b.admit(60, 10, &mut out);
        assert_eq!(out, vec![(7, 110)]);
        b.discard(11);
        assert!(!b.contains(11));
        assert_eq!(b.pop_live(), Some(20));
    }
}
