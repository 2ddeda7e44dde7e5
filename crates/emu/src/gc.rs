//! Garbage-collection work in flight: what GC still has to read, program and erase, per die,
//! and how much of it the host's programs still owe.
//!
//! Invariants:
//! - A victim's valid pages are spread evenly over all dies (a superblock stripes over all of
//!   them), rotating which dies get the remainder so no die is favoured; every victim costs one
//!   erase on every die.
//! - `read_pages_total` is the sum of `read_pages`; `ready` pages have been read and wait for
//!   a program unit; `owed` = pages still to read + being read + `ready`: the relocation the
//!   program units still have to carry (the pacing rule's numerator, see `drive`).
//! - Victims are read in the order they were collected (reads are issued from per-die counts
//!   that only grow at the back): a batch of victims is read once `read_done` reaches the
//!   page count up to and including it (`batches`). Its superblock is then physically free
//!   but for its erase, which waits on each die for that die's reads and goes before any
//!   program there.
//! - A victim is erased when its erase has finished on every die; per-die erases run in
//!   victim order, so `erased` = the smallest per-die erase count.

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Gc {
    /// Per die: relocated pages still to read.
    pub read_pages: Vec<u64>,
    pub read_pages_total: u64,
    pub reads_inflight: u32,
    /// Per die: erases pending.
    pub erases: Vec<u32>,
    erased_per_die: Vec<u64>,
    /// Victims fully erased (every die).
    pub erased: u64,
    /// Relocated pages read and waiting for a program.
    pub ready: u64,
    /// Relocated pages not yet taken into a program unit.
    pub owed: u64,
    /// Relocated pages in a program in progress.
    programming: u64,
    /// Pages read by GC since the start.
    read_done: u64,
    /// Pages collected since the start (the end of the last batch).
    collected: u64,
    /// Batches of victims whose pages are not all read: (pages collected up to and including
    /// the batch, victims in it).
    batches: VecDeque<(u64, u64)>,
    unread: u64,
    cursor: usize,
}

impl Gc {
    pub fn new(dies: usize) -> Self {
        Gc {
            read_pages: vec![0; dies],
            read_pages_total: 0,
            reads_inflight: 0,
            erases: vec![0; dies],
            erased_per_die: vec![0; dies],
            erased: 0,
            ready: 0,
            owed: 0,
            programming: 0,
            read_done: 0,
            collected: 0,
            batches: VecDeque::new(),
            unread: 0,
            cursor: 0,
        }
    }

    /// Victims collected whose valid pages are not all read yet: the superblocks GC has taken
    /// from the free pool and not yet given back.
    #[inline]
    pub fn unread(&self) -> u64 {
        self.unread
    }

    /// Adds the work of `victims` victims holding `pages` valid pages in all.
    pub fn add(&mut self, pages: u64, victims: u64) {
        let nd = self.read_pages.len();
        let base = pages / nd as u64;
        let rem = (pages % nd as u64) as usize;
        for i in 0..nd {
            let d = (self.cursor + i) % nd;
            self.read_pages[d] += base + u64::from(i < rem);
            self.erases[d] += victims as u32;
        }
        self.cursor = (self.cursor + rem) % nd;
        self.read_pages_total += pages;
        self.owed += pages;
        self.collected += pages;
        if pages == 0 {
            // Nothing to read: free at once (its erase still runs on every die).
            return;
        }
        self.batches.push_back((self.collected, victims));
        self.unread += victims;
    }

    /// A GC read of `pages` pages ended.
    pub fn read_ended(&mut self, pages: u64) {
        self.reads_inflight -= 1;
        self.ready += pages;
        self.read_done += pages;
        while let Some(&(end, victims)) = self.batches.front() {
            if end > self.read_done {
                break;
            }
            self.batches.pop_front();
            self.unread -= victims;
        }
    }

    /// `pages` relocated pages were taken into a program unit.
    pub fn programmed(&mut self, pages: u64) {
        self.ready -= pages;
        self.owed -= pages;
        self.programming += pages;
    }

    /// A program holding `pages` relocated pages ended.
    pub fn program_ended(&mut self, pages: u64) {
        self.programming -= pages;
    }

    /// Write-buffer slots relocated data holds: read and waiting, or being programmed.
    #[inline]
    pub fn held(&self) -> u64 {
        self.ready + self.programming
    }

    /// An erase ended on die `d`.
    pub fn erased_on(&mut self, d: usize) {
        self.erased_per_die[d] += 1;
        self.erased = *self.erased_per_die.iter().min().expect("at least one die");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_spreads_evenly_and_victims_free_when_read() {
        let mut g = Gc::new(4);
        g.add(6, 1);
        g.add(6, 1);
        assert_eq!(g.read_pages, vec![3, 3, 3, 3]);
        assert_eq!(g.erases, vec![2, 2, 2, 2]);
        assert_eq!((g.unread(), g.owed), (2, 12));
        for _ in 0..3 {
            g.reads_inflight += 1;
            g.read_ended(2);
        }
        assert_eq!(g.unread(), 1, "the first victim's six pages are read");
        g.reads_inflight += 1;
        g.read_ended(6);
        assert_eq!((g.unread(), g.ready), (0, 12));
        g.programmed(12);
        assert_eq!(g.owed, 0);
        g.add(0, 1);
        assert_eq!(
            g.unread(),
            0,
            "a victim without valid pages is free at once"
        );
        for d in 0..3 {
            g.erased_on(d);
        }
        assert_eq!(g.erased, 0);
        g.erased_on(3);
        assert_eq!(g.erased, 1);
    }
}
