//! Garbage-collection work in flight: what GC still has to read, program and erase, per die.
//!
//! Invariants:
//! - A victim's valid pages are spread evenly over all dies (a superblock stripes over all of
//!   them), rotating which dies get the remainder so no die is favoured; every victim costs one
//!   erase on every die.
//! - A victim is done (physically free) when its erase has finished on every die; per-die
//!   erases run in victim order, so `done` = the smallest per-die erase count.
//! - `read_pages_total` is the sum of `read_pages`; `ready` pages have been read and wait for
//!   a program unit.

#[derive(Clone, Debug)]
pub struct Gc {
    /// Per die: relocated pages still to read.
    pub read_pages: Vec<u64>,
    pub read_pages_total: u64,
    pub reads_inflight: u32,
    /// Per die: erases pending / done.
    pub erases: Vec<u32>,
    erased: Vec<u64>,
    /// Victims started / fully erased.
    pub started: u64,
    pub done: u64,
    /// Relocated pages read and waiting for a program.
    pub ready: u64,
    cursor: usize,
}

impl Gc {
    pub fn new(dies: usize) -> Self {
        Gc {
            read_pages: vec![0; dies],
            read_pages_total: 0,
            reads_inflight: 0,
            erases: vec![0; dies],
            erased: vec![0; dies],
            started: 0,
            done: 0,
            ready: 0,
            cursor: 0,
        }
    }

    /// Victims collected but not yet erased everywhere.
    #[inline]
    pub fn active(&self) -> u64 {
        self.started - self.done
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
        self.started += victims;
    }

    /// An erase ended on die `d`; true if that completed a victim.
    pub fn erased_on(&mut self, d: usize) -> bool {
        self.erased[d] += 1;
        let m = *self.erased.iter().min().expect("at least one die");
        let more = m > self.done;
        self.done = m;
        more
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_spreads_evenly_and_victims_finish_on_the_last_die() {
        let mut g = Gc::new(4);
        g.add(6, 1);
        g.add(6, 1);
        assert_eq!(g.read_pages, vec![3, 3, 3, 3]);
        assert_eq!(g.erases, vec![2, 2, 2, 2]);
        assert_eq!(g.active(), 2);
        for d in 0..3 {
            assert!(!g.erased_on(d));
        }
        assert!(g.erased_on(3));
        assert_eq!(g.active(), 1);
    }
}
