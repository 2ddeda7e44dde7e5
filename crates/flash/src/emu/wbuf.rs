//! The power-loss-protected DRAM write buffer: a FIFO of logical pages waiting to be
//! programmed, and the writes waiting for room in it.
//!
//! Invariants:
//! - `used` counts slots: live buffered pages plus pages taken out for a program still in
//!   progress; a slot is freed when its program ends ([`WriteBuf::release`]) or its page is
//!   trimmed. Stale FIFO entries (trimmed pages) hold no slot, so trims can never leave the
//!   buffer full of nothing. `used <= cap` except for one oversized write admitted into an
//!   empty buffer (so a write larger than the buffer cannot deadlock).
//! - `bits[lpn]` is set iff the newest data of `lpn` is buffered and not yet taken for a
//!   program; `live` counts set bits. A rewrite of a buffered page updates it in place (no new
//!   slot); a trimmed page's FIFO entry is stale and dropped when reached. The first FIFO entry
//!   of a set page takes it, so a page is never programmed twice for one write.
//! - One bit per logical page: the buffer adds 1/8 byte per page to the FTL's ~9.
//! - Writes that found no room wait in `parked`, admitted strictly in arrival order.

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
    parked: VecDeque<Parked>,
}

impl WriteBuf {
    /// A buffer of `cap_pages` slots for a drive of `pages` logical pages.
    pub fn new(cap_pages: u64, pages: u64) -> Self {
        WriteBuf {
            cap: cap_pages.max(1),
            used: 0,
            fifo: VecDeque::with_capacity(cap_pages.min(1 << 20) as usize),
            bits: vec![0; pages.div_ceil(64) as usize],
            live: 0,
            parked: VecDeque::new(),
        }
    }

    #[inline]
    fn bit(&self, lpn: u64) -> bool {
        self.bits[(lpn >> 6) as usize] & (1 << (lpn & 63)) != 0
    }
    #[inline]
    fn flip(&mut self, lpn: u64) {
        self.bits[(lpn >> 6) as usize] ^= 1 << (lpn & 63);
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

    /// Buffers pages `lpn..lpn + pages` (the caller checked [`WriteBuf::fits`]).
    #[inline]
    pub fn insert(&mut self, lpn: u64, pages: u64) {
        for p in lpn..lpn + pages {
            if !self.bit(p) {
                self.flip(p);
                self.live += 1;
                self.fifo.push_back(p as u32);
                self.used += 1;
            }
        }
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
            let lpn = lpn as u64;
            if self.bit(lpn) {
                self.flip(lpn);
                self.live -= 1;
                return Some(lpn);
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
            self.flip(lpn);
            self.live -= 1;
            self.used -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_with_stale_copies_and_parking() {
        let mut b = WriteBuf::new(4, 100);
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
}
