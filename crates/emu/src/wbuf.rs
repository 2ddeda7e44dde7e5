//! The power-loss-protected DRAM write buffer: a FIFO of logical pages waiting to be
//! programmed, and the writes waiting for room in it.
//!
//! Invariants:
//! - `used` counts host slots: FIFO entries still to program plus pages taken out for a
//!   program still in progress; a slot is freed when its program ends ([`WriteBuf::release`]).
//!   Relocated GC data waiting for or in a program holds slots of the same DRAM (`held`, the
//!   drive's count): a write enters only if `used + held + pages <= cap`, or into a buffer
//!   holding nothing (so a write larger than the buffer cannot deadlock).
//! - Every FIFO entry is programmed, in arrival order: a page trimmed while buffered keeps its
//!   entry and slot and is programmed as a void page ([`Entry::Void`]), as a drive that placed
//!   the write in its program unit when it accepted it does (NVMeVirt's `conv_write` maps each
//!   page to its physical page on arrival). So trims never shift the pages after them against
//!   the erase blocks, which is what makes a zone written after a trimmed one start where it
//!   would have (SSD-iq's GC-unit inference, `ssdiq study gc-unit`).
//! - `bits[lpn]` is set iff data of `lpn` is buffered and not yet taken for a program; `extra`
//!   counts further copies of such a page; `dead[lpn]` counts entries of `lpn` trimmed while
//!   buffered (all older than any entry of a set page). `live` counts FIFO entries, void ones
//!   included.
//! - Rewrite absorption is scaled with the capacity: a rewrite of a buffered page updates it in
//!   place (no new slot) only if the page is among the last `window` distinct pages inserted
//!   (`recent`, in insertion order in `ring`); otherwise it takes a slot as a copy of its own.
//!   On a drive of capacity C standing for one of capacity F, a page here stands for F/C pages
//!   there: a rewrite that finds its page buffered hits the same page of the full-size drive
//!   only with probability C/F, which is what a window of C/F of the buffer gives for
//!   piecewise-uniform traffic. The full buffer still holds data for timing (room, drain).
//! - Two bits per logical page: the buffer adds 1/4 byte per page to the FTL's ~9.
//! - Writes that found no room wait in `parked`, admitted strictly in arrival order.

use std::collections::HashMap;

use std::collections::VecDeque;

use crate::bits::{bitmap, flip, get as bit};

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
    bits: Vec<u64>,
    live: u64,
    /// Copies of a set page beyond the first (rewrites outside the window).
    extra: HashMap<u32, u32>,
    /// Entries of a page trimmed while buffered, to be programmed void.
    dead: HashMap<u32, u32>,
    /// Rewrite-absorption window: the last `window` distinct pages inserted.
    window: u64,
    recent: Vec<u64>,
    ring: VecDeque<u32>,
    parked: VecDeque<Parked>,
}

impl WriteBuf {
    /// A buffer of `cap_pages` slots for a drive of `pages` logical pages, absorbing rewrites
    /// of the last `window` distinct pages inserted (`window >= cap_pages`: all of them).
    pub fn new(cap_pages: u64, pages: u64, window: u64) -> Self {
        let window = window.min(cap_pages.max(1));
        WriteBuf {
            cap: cap_pages.max(1),
            used: 0,
            fifo: VecDeque::with_capacity(cap_pages.min(1 << 20) as usize),
            bits: bitmap(pages),
            live: 0,
            extra: HashMap::new(),
            dead: HashMap::new(),
            window,
            recent: bitmap(pages),
            ring: VecDeque::with_capacity(window.min(1 << 20) as usize),
            parked: VecDeque::new(),
        }
    }

    #[inline]
    fn bit(&self, lpn: u64) -> bool {
        bit(&self.bits, lpn)
    }
    #[inline]
    fn flip(&mut self, lpn: u64) {
        flip(&mut self.bits, lpn);
    }

    /// `lpn` was inserted as a new copy: it enters the absorption window.
    #[inline]
    fn remember(&mut self, lpn: u64) {
        if self.window == 0 || bit(&self.recent, lpn) {
            return;
        }
        flip(&mut self.recent, lpn);
        self.ring.push_back(lpn as u32);
        if self.ring.len() as u64 > self.window {
            let old = self.ring.pop_front().expect("ring is not empty") as u64;
            flip(&mut self.recent, old);
        }
    }

    pub fn used(&self) -> u64 {
        self.used
    }
    /// Buffered pages not yet taken for a program.
    #[inline]
    pub fn live(&self) -> u64 {
        self.live
    }
    #[inline]
    pub fn contains(&self, lpn: u64) -> bool {
        self.live > 0 && self.bit(lpn)
    }
    pub fn parked(&self) -> usize {
        self.parked.len()
    }

    /// True if a write of `pages` may enter now (and nobody is waiting before it), with
    /// `held` slots taken by relocated GC data.
    #[inline]
    pub fn fits(&self, pages: u64, held: u64) -> bool {
        self.parked.is_empty() && self.room(pages, held)
    }

    #[inline]
    fn room(&self, pages: u64, held: u64) -> bool {
        let used = self.used + held;
        used + pages <= self.cap || used == 0
    }

    /// Buffers pages `lpn..lpn + pages` (the caller checked [`WriteBuf::fits`]). Returns how
    /// many rewrites were absorbed in place.
    #[inline]
    pub fn insert(&mut self, lpn: u64, pages: u64) -> u64 {
        let mut absorbed = 0;
        for p in lpn..lpn + pages {
            if self.bit(p) {
                if bit(&self.recent, p) {
                    absorbed += 1;
                    continue;
                }
                *self.extra.entry(p as u32).or_insert(0) += 1;
            } else {
                self.flip(p);
            }
            self.live += 1;
            self.fifo.push_back(p as u32);
            self.used += 1;
            self.remember(p);
        }
        absorbed
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

    /// Admits waiting writes that now fit beside `held` slots of GC data, at time `t`: each
    /// completes `ack_ns` after both `t` and its data being ready. Pushes `(tag, completion)`
    /// to `out`.
    pub fn admit(&mut self, t: u64, ack_ns: u64, held: u64, out: &mut Vec<(u64, u64)>) {
        while let Some(p) = self.parked.front().copied() {
            if !self.room(p.pages as u64, held) {
                break;
            }
            self.parked.pop_front();
            self.insert(p.lpn, p.pages as u64);
            out.push((p.tag, t.max(p.ready) + ack_ns));
        }
    }

    /// The page `k` entries behind the FIFO head, if any (to prefetch its mapping).
    #[inline]
    pub fn peek(&self, k: usize) -> Option<u64> {
        self.fifo.get(k).map(|&l| l as u64)
    }

    /// Takes the oldest entry out for programming (its slot stays used until
    /// [`WriteBuf::release`]): a page, or the void left by a page trimmed while buffered.
    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let lpn = self.fifo.pop_front()?;
        self.live -= 1;
        if !self.dead.is_empty() {
            if let Some(n) = self.dead.get_mut(&lpn) {
                *n -= 1;
                if *n == 0 {
                    self.dead.remove(&lpn);
                }
                return Some(Entry::Void(lpn as u64));
            }
        }
        let l = lpn as u64;
        debug_assert!(self.bit(l), "a FIFO entry is live or dead");
        if let Some(n) = self.extra.get_mut(&lpn) {
            *n -= 1;
            if *n == 0 {
                self.extra.remove(&lpn);
            }
        } else {
            self.flip(l);
        }
        Some(Entry::Page(l))
    }

    /// A program of `pages` buffered pages ended: their slots are free.
    #[inline]
    pub fn release(&mut self, pages: u64) {
        self.used -= pages;
    }

    /// Trims the buffered copies of `lpn`: reads no longer find them, and their entries will
    /// be programmed void (they keep their slots and their place in the FIFO).
    pub fn discard(&mut self, lpn: u64) {
        if self.contains(lpn) {
            let copies = 1 + self.extra.remove(&(lpn as u32)).unwrap_or(0);
            self.flip(lpn);
            *self.dead.entry(lpn as u32).or_insert(0) += copies;
        }
    }
}

/// What a FIFO entry programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Page(u64),
    /// A page trimmed while buffered: its slot in the program unit holds nothing (the page
    /// it held, for its placement stream).
    Void(u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(l: u64) -> Option<Entry> {
        Some(Entry::Page(l))
    }

    #[test]
    fn fifo_with_trimmed_entries_and_parking() {
        let mut b = WriteBuf::new(4, 100, 4);
        assert!(b.fits(3, 0));
        b.insert(10, 3); // 10, 11, 12
        b.insert(11, 1); // 11 again: updated in place
        assert_eq!((b.used(), b.live()), (3, 3));
        b.discard(11); // trimmed: no longer readable, but its slot and entry stay
        assert!(!b.contains(11));
        assert_eq!((b.used(), b.live()), (3, 3));
        b.insert(13, 1);
        assert!(!b.fits(1, 0));
        b.park(7, 20, 2, 100);
        assert_eq!(b.pop(), page(10));
        assert_eq!(
            b.pop(),
            Some(Entry::Void(11)),
            "11 is programmed void, in its place"
        );
        assert_eq!(b.pop(), page(12));
        assert_eq!(b.used(), 4);
        let mut out = Vec::new();
        b.admit(50, 10, 0, &mut out);
        assert!(out.is_empty());
        b.release(3);
        b.admit(60, 10, 0, &mut out);
        assert_eq!(out, vec![(7, 110)]);
        assert!(b.contains(13) && b.contains(20));
        assert_eq!(b.pop(), page(13));
        assert_eq!(b.pop(), page(20));
        assert_eq!(b.pop(), page(21));
        assert_eq!(b.pop(), None);
    }

    #[test]
    fn a_page_trimmed_then_rewritten_programs_its_void_first() {
        let mut b = WriteBuf::new(8, 100, 0);
        b.insert(5, 1);
        b.insert(5, 1); // window 0: a copy of its own
        b.discard(5); // both copies void
        b.insert(5, 1); // new data after the trim
        assert!(b.contains(5));
        assert_eq!(b.live(), 3);
        assert_eq!(b.pop(), Some(Entry::Void(5)));
        assert_eq!(b.pop(), Some(Entry::Void(5)));
        assert_eq!(b.pop(), page(5));
        assert!(!b.contains(5));
        assert_eq!(b.pop(), None);
    }

    #[test]
    fn rewrites_outside_the_window_take_a_slot_and_a_program() {
        let mut b = WriteBuf::new(8, 100, 2);
        b.insert(1, 3); // 1, 2, 3: the window holds 2 and 3
        assert_eq!(b.insert(3, 1), 1, "3 is in the window: absorbed");
        assert_eq!(b.insert(1, 1), 0, "1 left the window: a copy of its own");
        assert_eq!((b.used(), b.live()), (4, 4));
        // 1 is in the window again (it was inserted as a new copy).
        assert_eq!(b.insert(1, 1), 1);
        assert_eq!(b.pop(), page(1));
        assert!(b.contains(1), "the second copy is still buffered");
        assert_eq!(b.pop(), page(2));
        assert_eq!(b.pop(), page(3));
        assert_eq!(b.pop(), page(1));
        assert!(!b.contains(1));
        assert_eq!(b.pop(), None);
    }
}
