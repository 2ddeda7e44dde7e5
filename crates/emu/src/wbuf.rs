//! The power-loss-protected DRAM write buffer: a FIFO of logical pages waiting to be
//! programmed, and the writes waiting for room in it.
//!
//! Invariants:
//! - `used` counts slots: live buffered pages plus pages taken out for a program still in
//!   progress; a slot is freed when its program ends ([`WriteBuf::release`]) or its page is
//!   trimmed. Stale FIFO entries (trimmed pages) hold no slot, so trims can never leave the
//!   buffer full of nothing. `used <= cap` except for one oversized write admitted into an
//!   empty buffer (so a write larger than the buffer cannot deadlock).
//! - `bits[lpn]` is set iff data of `lpn` is buffered and not yet taken for a program; `extra`
//!   counts further copies of such a page; `live` counts copies. A trimmed page's FIFO entries
//!   are stale and dropped when reached. Each FIFO entry of a set page takes one copy, so a page
//!   is programmed once per copy.
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
    /// Rewrite-absorption window: the last `window` distinct pages inserted.
    window: u64,
    recent: Vec<u64>,
    ring: VecDeque<u32>,
    parked: VecDeque<Parked>,
}

#[inline]
fn bit(bits: &[u64], lpn: u64) -> bool {
    bits[(lpn >> 6) as usize] & (1 << (lpn & 63)) != 0
}
#[inline]
fn flip(bits: &mut [u64], lpn: u64) {
    bits[(lpn >> 6) as usize] ^= 1 << (lpn & 63);
}

impl WriteBuf {
    /// A buffer of `cap_pages` slots for a drive of `pages` logical pages, absorbing rewrites
    /// of the last `window` distinct pages inserted (`window >= cap_pages`: all of them).
    pub fn new(cap_pages: u64, pages: u64, window: u64) -> Self {
        let words = pages.div_ceil(64) as usize;
        let window = window.min(cap_pages.max(1));
        WriteBuf {
            cap: cap_pages.max(1),
            used: 0,
            fifo: VecDeque::with_capacity(cap_pages.min(1 << 20) as usize),
            bits: vec![0; words],
            live: 0,
            extra: HashMap::new(),
            window,
            recent: vec![0; words],
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

    /// True if a write of `pages` may enter now (and nobody is waiting before it).
    #[inline]
    pub fn fits(&self, pages: u64) -> bool {
        self.parked.is_empty() && (self.used + pages <= self.cap || self.used == 0)
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

    /// The page `k` entries behind the FIFO head, if any (to prefetch its mapping).
    #[inline]
    pub fn peek(&self, k: usize) -> Option<u64> {
        self.fifo.get(k).map(|&l| l as u64)
    }

    /// Takes the oldest live page out for programming (its slot stays used until
    /// [`WriteBuf::release`]); stale entries on the way are dropped.
    #[inline]
    pub fn pop_live(&mut self) -> Option<u64> {
        while let Some(lpn) = self.fifo.pop_front() {
            let l = lpn as u64;
            if self.bit(l) {
                if let Some(n) = self.extra.get_mut(&lpn) {
                    *n -= 1;
                    if *n == 0 {
                        self.extra.remove(&lpn);
                    }
                } else {
                    self.flip(l);
                }
                self.live -= 1;
                return Some(l);
            }
        }
        None
    }

    /// A program of `pages` buffered pages ended: their slots are free.
    #[inline]
    pub fn release(&mut self, pages: u64) {
        self.used -= pages;
    }

    /// Drops the buffered copy of `lpn` (trim), freeing its slot; its FIFO entry is stale.
    pub fn discard(&mut self, lpn: u64) {
        if self.contains(lpn) {
            let copies = 1 + self.extra.remove(&(lpn as u32)).unwrap_or(0) as u64;
            self.flip(lpn);
            self.live -= copies;
            self.used -= copies;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_with_stale_copies_and_parking() {
        let mut b = WriteBuf::new(4, 100, 4);
        assert!(b.fits(3));
        b.insert(10, 3); // 10, 11, 12
        b.insert(11, 1); // 11 again: updated in place
        assert_eq!((b.used(), b.live()), (3, 3));
        b.discard(11); // trimmed: its entry is stale, its slot free
        assert_eq!(b.used(), 2);
        b.insert(13, 2);
        assert!(!b.fits(1));
        b.park(7, 20, 2, 100);
        assert_eq!(b.pop_live(), Some(10));
        assert_eq!(b.pop_live(), Some(12)); // stale 11 skipped
        assert_eq!(b.used(), 4);
        let mut out = Vec::new();
        b.admit(50, 10, &mut out);
        assert!(out.is_empty());
        b.release(2);
        b.admit(60, 10, &mut out);
        assert_eq!(out, vec![(7, 110)]);
        assert!(!b.contains(11) && b.contains(13));
        assert_eq!(b.pop_live(), Some(13));
        assert_eq!(b.pop_live(), Some(14));
        assert_eq!(b.pop_live(), Some(20));
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
        assert_eq!(b.pop_live(), Some(1));
        assert!(b.contains(1), "the second copy is still buffered");
        assert_eq!(b.pop_live(), Some(2));
        assert_eq!(b.pop_live(), Some(3));
        assert_eq!(b.pop_live(), Some(1));
        assert!(!b.contains(1));
        assert_eq!(b.pop_live(), None);
        // Trim drops every copy.
        b.release(4);
        b.insert(5, 1);
        b.insert(6, 2);
        b.insert(5, 1);
        assert_eq!((b.used(), b.live()), (4, 4));
        b.discard(5);
        assert_eq!((b.used(), b.live()), (2, 2));
        assert_eq!(b.pop_live(), Some(6));
        assert_eq!(b.pop_live(), Some(7));
        assert_eq!(b.pop_live(), None);
    }
}
