//! The map of a DRAM-less drive: which parts of the logical-to-physical map the controller
//! holds (in SRAM or the host memory buffer), and which it must read from flash first.
//!
//! The model is DFTL's (Gupta, Kim, Urgaonkar, ASPLOS 2009): the page-level map lives in
//! flash as map pages (a flash page of 4-byte entries), and a small cache holds the most
//! recently used ones. A request whose map page is not cached waits for it: a flash read,
//! and first, when the page it evicts was changed, that page's write back (a program).
//!
//! Sequentially written data maps compactly: a map segment (the logical pages one map page
//! covers) written in order from its start is a few extents, which the controller keeps
//! always (issue 33: this is what makes write order matter on DRAM-less drives, the FTL
//! thesis §5.2). Only segments written out of order need their map page cached.
//!
//! Invariants:
//! - A segment is `EMPTY` (nothing written since a reset or a whole-segment trim), compact
//!   (written in order from offset 0 up to `next`), or fragmented. A fragmented segment
//!   becomes compact again when a rewrite in order from offset 0 covers all of it.
//! - The cache holds at most `capacity` fragmented segments' map pages, in LRU order; a page
//!   is dirty from the host write that changed it until it is written back on eviction.
//! - The cache decides nothing about time: the drive asks what a request needs
//!   ([`MapCache::touch`]) and times the flash work itself.

use ssdiq_flash::{BlockLists, NIL};

/// A segment with nothing written.
const EMPTY: u32 = u32::MAX;
/// Set in a fragmented segment's state; the rest is the next offset of a rewrite in order
/// from 0 (`NO_RUN`: none under way; not all ones, which is `EMPTY`).
const FRAGMENTED: u32 = 1 << 31;
const NO_RUN: u32 = FRAGMENTED - 2;

/// What a request must do before its map entries are at hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapMiss {
    /// The segment whose changed map page must be written back first, if any.
    pub write_back: Option<u32>,
    /// The segment whose map page must be read from flash (none for a new map page).
    pub read: Option<u32>,
}

pub struct MapCache {
    /// Logical pages per segment (entries per map page).
    seg_pages: u64,
    capacity: u32,
    state: Vec<u32>,
    /// The cached segments in one list, least recently used first.
    lru: BlockLists,
    dirty: Vec<bool>,
}

impl MapCache {
    /// A cache of `capacity` map pages (at least 1) over `logical` pages, `seg_pages` per map
    /// page.
    pub fn new(logical: u64, seg_pages: u64, capacity: u32) -> MapCache {
        let segs = logical.div_ceil(seg_pages) as usize;
        MapCache {
            seg_pages,
            capacity: capacity.max(1),
            state: vec![EMPTY; segs],
            lru: BlockLists::new(1, segs),
            dirty: vec![false; segs],
        }
    }

    /// The same cache, emptied (a reset drive).
    pub fn emptied(&self) -> MapCache {
        MapCache::new(
            self.state.len() as u64 * self.seg_pages,
            self.seg_pages,
            self.capacity,
        )
    }

    pub fn segment(&self, lpn: u64) -> u32 {
        (lpn / self.seg_pages) as u32
    }

    /// Heap bytes of a cache over `logical` pages (state, list links and owner, and a flag
    /// per segment), for the memory estimate.
    pub fn heap_bytes(logical: u64, seg_pages: u64) -> u64 {
        logical.div_ceil(seg_pages) * 17
    }

    /// True if reading `lpn` needs its segment's map page (the segment is fragmented).
    #[inline]
    pub fn needs_page(&self, lpn: u64) -> bool {
        let s = self.state[self.segment(lpn) as usize];
        s != EMPTY && s & FRAGMENTED != 0
    }

    /// A host write of `pages` pages from `lpn` within one segment, in arrival order: updates
    /// the segment's order and says what its map page costs.
    pub fn write(&mut self, lpn: u64, pages: u64) -> MapMiss {
        let seg = self.segment(lpn);
        let off = (lpn % self.seg_pages) as u32;
        let end = off + pages as u32;
        let full = self.seg_pages as u32;
        let s = &mut self.state[seg as usize];
        let was_fragmented = *s != EMPTY && *s & FRAGMENTED != 0;
        *s = match *s {
            EMPTY if off == 0 => end,
            EMPTY => FRAGMENTED | NO_RUN,
            c if c & FRAGMENTED == 0 && off == c => end,
            c if c & FRAGMENTED == 0 && off == 0 && c == full => end,
            // A rewrite from 0 (or a run continued) that covers the segment: compact.
            f if end == full && (off == 0 || f == FRAGMENTED | off) => full,
            _ if off == 0 => FRAGMENTED | end,
            f if f == FRAGMENTED | off => FRAGMENTED | end,
            _ => FRAGMENTED | NO_RUN,
        };
        let fragmented = *s & FRAGMENTED != 0;
        if !fragmented {
            if was_fragmented {
                // Compact again: its map page is no longer needed (a written-back copy
                // remains on flash, unread).
                self.drop_page(seg);
            }
            return MapMiss::default();
        }
        // The first out-of-order write of a compact segment builds its map page from the
        // extents (no read); a fragmented one's page is read if not cached.
        let miss = self.touch(seg, was_fragmented);
        self.dirty[seg as usize] = true;
        miss
    }

    /// A host read of `lpn`'s segment, which needs its map page: what loading it costs.
    pub fn read(&mut self, lpn: u64) -> MapMiss {
        self.touch(self.segment(lpn), true)
    }

    /// `pages` pages from `lpn` were trimmed: every segment trimmed whole maps nothing now
    /// (a partly trimmed one keeps its state).
    pub fn trim(&mut self, lpn: u64, pages: u64) {
        for seg in lpn.div_ceil(self.seg_pages)..(lpn + pages) / self.seg_pages {
            self.state[seg as usize] = EMPTY;
            self.drop_page(seg as u32);
        }
    }

    /// Makes `seg`'s map page the most recent; on a miss, evicts the least recent (`read`:
    /// the page exists on flash and must be read).
    fn touch(&mut self, seg: u32, read: bool) -> MapMiss {
        if self.lru.owner(seg) != NIL {
            self.lru.remove(seg);
            self.lru.push_back(0, seg);
            return MapMiss::default();
        }
        let mut miss = MapMiss {
            write_back: None,
            read: read.then_some(seg),
        };
        if self.lru.len(0) == self.capacity {
            let victim = self.lru.head(0);
            if self.dirty[victim as usize] {
                miss.write_back = Some(victim);
            }
            self.drop_page(victim);
        }
        self.lru.push_back(0, seg);
        miss
    }

    fn drop_page(&mut self, seg: u32) {
        if self.lru.owner(seg) != NIL {
            self.lru.remove(seg);
            self.dirty[seg as usize] = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_written_in_order_needs_no_map_page() {
        let mut m = MapCache::new(64, 16, 2);
        for lpn in (0..64).step_by(4) {
            assert_eq!(m.write(lpn, 4), MapMiss::default());
        }
        assert!((0..64).all(|p| !m.needs_page(p)));
        // A sequential rewrite of a whole segment keeps it compact.
        assert_eq!(m.write(16, 16), MapMiss::default());
        assert!(!m.needs_page(20));
    }

    #[test]
    fn out_of_order_writes_fragment_a_segment_until_it_is_rewritten_in_order() {
        let mut m = MapCache::new(64, 16, 2);
        m.write(0, 8);
        // A jump: the page is built from the extents, not read.
        assert_eq!(
            m.write(12, 1),
            MapMiss {
                write_back: None,
                read: None
            }
        );
        assert!(m.needs_page(3));
        // A rewrite in order from 0 over all of it makes it compact again.
        m.write(0, 10);
        assert!(m.needs_page(3));
        m.write(10, 6);
        assert!(!m.needs_page(3));
        // A random first write to an empty segment fragments it.
        m.write(37, 1);
        assert!(m.needs_page(32));
        assert!(!m.needs_page(50), "an empty segment maps nothing");
    }

    #[test]
    fn a_segment_written_in_a_random_order_stays_fragmented() {
        let mut m = MapCache::new(16, 16, 1);
        for lpn in [5, 15, 3, 0, 9, 1, 14, 2, 4, 6, 7, 8, 10, 11, 12, 13] {
            m.write(lpn, 1);
            assert!(m.needs_page(lpn), "after {lpn}");
        }
    }

    #[test]
    fn misses_evict_the_least_recent_page_and_write_back_changed_ones() {
        let mut m = MapCache::new(64, 16, 2);
        // Three fragmented segments, two cached: the third evicts the first, which changed.
        m.write(1, 1);
        m.write(17, 1);
        assert_eq!(
            m.write(33, 1),
            MapMiss {
                write_back: Some(0),
                read: None
            }
        );
        // Reading segment 0 again: its page is on flash now; segment 1 (dirty) goes.
        assert_eq!(
            m.read(2),
            MapMiss {
                write_back: Some(1),
                read: Some(0)
            }
        );
        // A hit moves nothing; a clean victim costs no write.
        assert_eq!(m.read(3), MapMiss::default());
        assert_eq!(
            m.read(18),
            MapMiss {
                write_back: Some(2),
                read: Some(1)
            }
        );
        assert_eq!(
            m.read(34),
            MapMiss {
                write_back: None,
                read: Some(2)
            }
        );
    }

    #[test]
    fn a_trimmed_segment_forgets_its_order_and_its_page() {
        let mut m = MapCache::new(32, 16, 1);
        m.write(5, 1);
        // Trimmed in part (pages 1 to 16): still fragmented.
        m.trim(1, 16);
        assert!(m.needs_page(5));
        m.trim(0, 16);
        assert!(!m.needs_page(5));
        assert_eq!(m.write(0, 16), MapMiss::default());
        // The trimmed page was dropped, not written back.
        assert_eq!(
            m.write(20, 1),
            MapMiss {
                write_back: None,
                read: None
            }
        );
    }
}
