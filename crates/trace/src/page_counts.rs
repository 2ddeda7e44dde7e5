//! Reads and writes per page key, in memory that grows with the number of requests, never
//! with a request's size.
//!
//! Invariants:
//! - A request of at most [`PER_PAGE_MAX`] pages adds one hash entry per page (the common
//!   case, and the fast one); a longer request adds at most three disjoint ranges, so one
//!   write of 2^40 bytes costs a few entries instead of 2^28.
//! - The ranges never overlap: an added range splits the ones it meets and increments the
//!   overlapping pieces.
//! - A page's counts are its hash entry's plus those of the range holding it.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

/// Requests of up to this many pages are counted page by page.
pub const PER_PAGE_MAX: u64 = 64;

/// Counts of one page, or of every page of a range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub writes: u64,
    pub reads: u64,
}

impl Counts {
    fn add(self, o: Counts) -> Counts {
        Counts {
            writes: self.writes.saturating_add(o.writes),
            reads: self.reads.saturating_add(o.reads),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Range {
    /// One past the last key.
    end: u64,
    counts: Counts,
}

/// Per-page read and write counts over page keys.
#[derive(Debug, Default)]
pub struct PageCounts {
    /// Key -> writes (low 32 bits) and reads (high 32 bits), each saturating: 16 bytes an
    /// entry, the bulk of a trace's footprint.
    pages: FxHashMap<u64, u64>,
    /// Start key -> range.
    ranges: BTreeMap<u64, Range>,
}

impl PageCounts {
    /// Counts one access of every key in `first..=last`.
    pub fn add(&mut self, first: u64, last: u64, write: bool) {
        if last - first < PER_PAGE_MAX {
            let (shift, one) = if write { (0, 1u64) } else { (32, 1u64 << 32) };
            for k in first..=last {
                let v = self.pages.entry(k).or_insert(0);
                if (*v >> shift) & 0xffff_ffff < 0xffff_ffff {
                    *v += one;
                }
            }
        } else {
            let inc = Counts {
                writes: u64::from(write),
                reads: u64::from(!write),
            };
            self.add_range(first, last.saturating_add(1), inc);
        }
    }

    fn add_range(&mut self, start: u64, end: u64, inc: Counts) {
        // Split the range that straddles `start`, and the one that straddles `end`.
        self.split_at(start);
        self.split_at(end);
        let inside: Vec<(u64, Range)> = self
            .ranges
            .range(start..end)
            .map(|(&s, &r)| (s, r))
            .collect();
        let mut at = start;
        for (s, r) in inside {
            if s > at {
                self.ranges.insert(
                    at,
                    Range {
                        end: s,
                        counts: inc,
                    },
                );
            }
            self.ranges.insert(
                s,
                Range {
                    end: r.end,
                    counts: r.counts.add(inc),
                },
            );
            at = r.end;
        }
        if at < end {
            self.ranges.insert(at, Range { end, counts: inc });
        }
    }

    /// Makes `key` the start of a range if a range holds it.
    fn split_at(&mut self, key: u64) {
        let Some((&s, &r)) = self.ranges.range(..key).next_back() else {
            return;
        };
        if r.end > key {
            self.ranges.insert(
                s,
                Range {
                    end: key,
                    counts: r.counts,
                },
            );
            self.ranges.insert(key, r);
        }
    }

    /// Every distinct page's counts, as (counts, how many pages have them): hash entries one
    /// by one, then what each range holds beyond them.
    pub fn for_each(&self, mut f: impl FnMut(Counts, u64)) {
        let unpack = |v: u64| Counts {
            writes: v & 0xffff_ffff,
            reads: v >> 32,
        };
        if self.ranges.is_empty() {
            for &v in self.pages.values() {
                f(unpack(v), 1);
            }
            return;
        }
        let mut overlapped: FxHashMap<u64, u64> = FxHashMap::default();
        for (&k, &v) in &self.pages {
            let c = unpack(v);
            match self.ranges.range(..=k).next_back() {
                Some((&s, r)) if r.end > k => {
                    *overlapped.entry(s).or_default() += 1;
                    f(c.add(r.counts), 1);
                }
                _ => f(c, 1),
            }
        }
        for (s, r) in &self.ranges {
            let rest = r.end - s - overlapped.get(s).copied().unwrap_or(0);
            if rest > 0 {
                f(r.counts, rest);
            }
        }
    }

    /// Entries held: hash entries plus ranges (what memory grows with).
    #[cfg(test)]
    pub fn entries(&self) -> usize {
        self.pages.len() + self.ranges.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn expand(p: &PageCounts) -> BTreeMap<(u64, u64), u64> {
        let mut m = BTreeMap::new();
        p.for_each(|c, n| *m.entry((c.writes, c.reads)).or_default() += n);
        m
    }

    #[test]
    fn one_huge_request_is_a_few_entries() {
        let mut p = PageCounts::default();
        p.add(0, (1 << 28) - 1, true);
        p.add(5, 5, true);
        p.add(1 << 27, (1 << 27) + 1000, false);
        assert!(p.entries() <= 5, "{}", p.entries());
        let m = expand(&p);
        assert_eq!(m[&(2, 0)], 1);
        assert_eq!(m[&(1, 1)], 1001);
        assert_eq!(m[&(1, 0)], (1 << 28) - 1002);
    }

    proptest! {
        /// The counts equal a plain per-page tally for any mix of short and long requests.
        #[test]
        fn equals_a_per_page_tally(reqs in prop::collection::vec((0u64..400, 0u64..200, any::<bool>()), 1..40)) {
            let mut p = PageCounts::default();
            let mut plain: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
            for &(first, len, w) in &reqs {
                p.add(first, first + len, w);
                for k in first..=first + len {
                    let e = plain.entry(k).or_default();
                    if w { e.0 += 1 } else { e.1 += 1 }
                }
            }
            let mut want: BTreeMap<(u64, u64), u64> = BTreeMap::new();
            for &c in plain.values() {
                *want.entry(c).or_default() += 1;
            }
            prop_assert_eq!(expand(&p), want);
        }
    }
}
