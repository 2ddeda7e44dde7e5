//! An LRU write buffer in front of the FTL (SSD-iq §4.3: 0.02% of capacity). A write to a
//! buffered page replaces it in DRAM and costs no flash program; a write to any other page
//! evicts the least recently written page to flash once the buffer is full.
//!
//! Invariants: `map` and the slot list hold the same pages; at most `capacity` pages are
//! buffered; slots form one doubly linked list, most recently written at the head.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const NIL: u32 = u32::MAX;

/// Multiplicative hashing of page numbers: std's SipHash costs more than the rest of a
/// buffered write.
#[derive(Default)]
pub struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01B3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// What one write did to the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffered {
    /// The page was already buffered: the write is absorbed.
    Hit,
    /// Buffered; nothing left for flash yet.
    Stored,
    /// Buffered, and this older page must now be written to flash.
    Evict(u64),
}

pub struct WriteBuffer {
    capacity: usize,
    map: HashMap<u64, u32, BuildHasherDefault<PageHasher>>,
    page: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    free: Vec<u32>,
}

impl WriteBuffer {
    /// A buffer of `capacity` pages (0 disables it).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            map: HashMap::with_capacity_and_hasher(capacity, Default::default()),
            page: vec![0; capacity],
            prev: vec![NIL; capacity],
            next: vec![NIL; capacity],
            head: NIL,
            tail: NIL,
            free: (0..capacity as u32).rev().collect(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
    pub fn len(&self) -> usize {
        self.map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NIL;
        self.next[s as usize] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = s;
        } else {
            self.tail = s;
        }
        self.head = s;
    }

    /// A host write of `lpn`.
    #[inline]
    pub fn write(&mut self, lpn: u64) -> Buffered {
        if self.capacity == 0 {
            return Buffered::Evict(lpn);
        }
        if let Some(&s) = self.map.get(&lpn) {
            self.unlink(s);
            self.push_front(s);
            return Buffered::Hit;
        }
        let (slot, out) = match self.free.pop() {
            Some(s) => (s, Buffered::Stored),
            None => {
                let s = self.tail;
                self.unlink(s);
                let old = self.page[s as usize];
                self.map.remove(&old);
                (s, Buffered::Evict(old))
            }
        };
        self.page[slot as usize] = lpn;
        self.map.insert(lpn, slot);
        self.push_front(slot);
        out
    }

    /// Drops `lpn` if buffered (trim). Returns whether it was.
    pub fn discard(&mut self, lpn: u64) -> bool {
        match self.map.remove(&lpn) {
            Some(s) => {
                self.unlink(s);
                self.free.push(s);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_order_and_hits() {
        let mut b = WriteBuffer::new(2);
        assert_eq!(b.write(1), Buffered::Stored);
        assert_eq!(b.write(2), Buffered::Stored);
        assert_eq!(b.write(1), Buffered::Hit);
        // 2 is now least recently written.
        assert_eq!(b.write(3), Buffered::Evict(2));
        assert_eq!(b.write(4), Buffered::Evict(1));
        assert!(b.discard(3));
        assert!(!b.discard(3));
        assert_eq!(b.write(5), Buffered::Stored);
        assert_eq!(b.len(), 2);
        let mut none = WriteBuffer::new(0);
        assert_eq!(none.write(7), Buffered::Evict(7));
    }
}
