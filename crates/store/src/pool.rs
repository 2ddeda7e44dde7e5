//! The buffer pool: fixed frames of 4 KiB, a page table, CLOCK replacement.
//!
//! Invariants:
//! - `table[pid] == f` iff frame `f` holds page `pid` (`owner[f] == pid`); a free frame has
//!   owner `NIL` and sits in `free`.
//! - CLOCK: an access sets the frame's reference bit; the hand clears set bits and takes
//!   frames whose bit is clear. Victims are chosen in batches ([`Pool::pick_victims`]) so the
//!   dirty ones can be written together, as LeanStore's page provider does.
//! - Memory: the frames plus 4 bytes per page of the table and 6 bytes per frame.

pub const NIL: u32 = u32::MAX;
use crate::page::PAGE;

pub struct Pool {
    frames: Vec<u8>,
    owner: Vec<u32>,
    dirty: Vec<bool>,
    referenced: Vec<bool>,
    table: Vec<u32>,
    free: Vec<u32>,
    hand: usize,
}

impl Pool {
    /// `frames` frames for a store of `pages` pages.
    pub fn new(frames: u32, pages: u64) -> Self {
        assert!(frames >= 2, "a pool needs at least two frames");
        Pool {
            frames: vec![0u8; frames as usize * PAGE],
            owner: vec![NIL; frames as usize],
            dirty: vec![false; frames as usize],
            referenced: vec![false; frames as usize],
            table: vec![NIL; pages as usize],
            free: (0..frames).rev().collect(),
            hand: 0,
        }
    }

    pub fn capacity(&self) -> u32 {
        self.owner.len() as u32
    }
    pub fn resident(&self) -> u32 {
        self.capacity() - self.free.len() as u32
    }

    #[inline]
    pub fn lookup(&self, pid: u64) -> Option<u32> {
        let f = self.table[pid as usize];
        (f != NIL).then_some(f)
    }

    /// Marks frame `f` accessed.
    #[inline]
    pub fn touch(&mut self, f: u32) {
        self.referenced[f as usize] = true;
    }

    pub fn frame(&self, f: u32) -> &[u8] {
        &self.frames[f as usize * PAGE..(f as usize + 1) * PAGE]
    }
    pub fn frame_mut(&mut self, f: u32) -> &mut [u8] {
        &mut self.frames[f as usize * PAGE..(f as usize + 1) * PAGE]
    }
    pub fn owner(&self, f: u32) -> u64 {
        self.owner[f as usize] as u64
    }
    pub fn is_dirty(&self, f: u32) -> bool {
        self.dirty[f as usize]
    }
    pub fn set_dirty(&mut self, f: u32, d: bool) {
        self.dirty[f as usize] = d;
    }
    pub fn has_free(&self) -> bool {
        !self.free.is_empty()
    }

    /// Takes a free frame for page `pid` (the caller fills it). None if no frame is free.
    pub fn install(&mut self, pid: u64) -> Option<u32> {
        let f = self.free.pop()?;
        debug_assert_eq!(self.table[pid as usize], NIL);
        self.owner[f as usize] = pid as u32;
        self.table[pid as usize] = f;
        self.dirty[f as usize] = false;
        self.referenced[f as usize] = true;
        Some(f)
    }

    /// Runs the CLOCK hand until it has `max` victims or `want_dirty` dirty ones among them
    /// (pushed to `out`; the frames stay resident until [`Pool::release`]).
    pub fn pick_victims(&mut self, want_dirty: usize, max: usize, out: &mut Vec<u32>) {
        let n = self.owner.len();
        let mut dirty = 0;
        let mut steps = 0;
        while out.len() < max && dirty < want_dirty && steps < 3 * n {
            let f = self.hand;
            self.hand = (self.hand + 1) % n;
            steps += 1;
            if self.owner[f] == NIL {
                continue;
            }
            if self.referenced[f] {
                self.referenced[f] = false;
                continue;
            }
            // Not picked twice in one sweep: mark it referenced-by-us via the ref bit.
            if out.contains(&(f as u32)) {
                continue;
            }
            out.push(f as u32);
            dirty += usize::from(self.dirty[f]);
        }
    }

    /// Frees frame `f` (its page must be clean or written).
    pub fn release(&mut self, f: u32) {
        let pid = self.owner[f as usize];
        debug_assert_ne!(pid, NIL);
        self.table[pid as usize] = NIL;
        self.owner[f as usize] = NIL;
        self.dirty[f as usize] = false;
        self.free.push(f);
    }

    /// Bytes of bookkeeping beyond the frames.
    pub fn metadata_bytes(&self) -> u64 {
        (self.table.len() * 4 + self.owner.len() * 6 + self.free.capacity() * 4) as u64
    }

    /// Frames holding dirty pages.
    pub fn dirty_frames(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.owner.len() as u32)
            .filter(|&f| self.owner[f as usize] != NIL && self.dirty[f as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_spares_referenced_frames() {
        let mut p = Pool::new(4, 100);
        for pid in 0..4 {
            let f = p.install(pid).unwrap();
            p.set_dirty(f, pid % 2 == 0);
        }
        assert!(p.install(9).is_none());
        // First sweep clears every bit; then frames go in hand order.
        let f2 = p.lookup(2).unwrap();
        let mut v = Vec::new();
        p.pick_victims(1, 4, &mut v);
        assert_eq!(v.len(), 1);
        assert_eq!(p.owner(v[0]), 0, "first unreferenced frame, dirty");
        p.touch(f2);
        let mut w = Vec::new();
        p.pick_victims(4, 3, &mut w);
        assert!(!w.contains(&f2), "a touched frame gets a second chance");
        for f in v {
            p.release(f);
        }
        assert!(p.lookup(0).is_none());
        assert!(p.install(9).is_some());
        assert_eq!(p.resident(), 4);
    }
}
