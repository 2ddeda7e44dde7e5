//! A drive's internal readahead: when host reads run sequentially, the controller reads the
//! next chunk of logical pages into DRAM before the host asks, so the following reads are
//! served from DRAM (the io-access-patterns paper §4.4: the drive's readahead is what made
//! its sequential small reads fast, and disabling it made them as slow as random ones).
//!
//! Invariants:
//! - Up to [`STREAMS`] streams are followed at once. A read belongs to the stream it
//!   continues (it starts at the stream's end byte), else to one whose chunks hold it, else
//!   it takes over the least recently used stream (whose chunks go) as a candidate; a later
//!   read continuing it makes it sequential. So a random read between sequential ones does
//!   not end their chunks, and interleaved streams (several queues) keep their own.
//! - A stream holds at most two chunks, each `pages` long (or one read of the stream, if
//!   longer), back to back: the older one being read by the host, the newer one read ahead.
//!   A read that reaches the newer chunk reads the next one ahead and lets the older go
//!   (double buffering), so the host never waits for a chunk it reached after the chunk was
//!   read.
//! - A write or trim overlapping a stream's chunk drops both of its chunks (their data may be
//!   stale).
//! - The module decides what to read ahead; the drive times the flash reads.

/// A chunk of logical pages held in DRAM, and when its read ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Chunk {
    lo: u64,
    hi: u64,
    ready: u64,
}

/// Sequential streams followed at once (an assumption: enough for the studies' four queues;
/// a controller that followed one stream would let interleaved streams evict each other's
/// chunks, reading ahead for none of them).
pub const STREAMS: usize = 4;

/// One stream: where its next read would start, and its chunks (older, newer).
#[derive(Clone, Copy, Debug)]
struct Stream {
    next: u64,
    chunks: [Option<Chunk>; 2],
    /// When a read last used it (the read count), for replacing the least recently used.
    used: u64,
}

const IDLE: Stream = Stream {
    next: u64::MAX,
    chunks: [None, None],
    used: 0,
};

pub struct Readahead {
    pages: u64,
    /// Bytes per logical page (the map unit).
    page_bytes: u64,
    streams: [Stream; STREAMS],
    /// Reads so far.
    reads: u64,
    /// The stream of the last read (what [`Readahead::fetched`] fills).
    current: usize,
}

/// What a host read finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// When the read's pages are in DRAM, if all of them are read ahead.
    pub hit: Option<u64>,
    /// Pages to read ahead now (first page, count), if any.
    pub fetch: Option<(u64, u64)>,
}

impl Readahead {
    /// Readahead in chunks of `pages` logical pages of `page_bytes` each.
    pub fn new(pages: u64, page_bytes: u64) -> Readahead {
        Readahead {
            pages: pages.max(1),
            page_bytes,
            streams: [IDLE; STREAMS],
            reads: 0,
            current: 0,
        }
    }

    /// The same readahead with nothing read ahead (a reset drive).
    pub fn emptied(&self) -> Readahead {
        Readahead::new(self.pages, self.page_bytes)
    }

    /// A host read of `len` bytes from byte `offset`: whether it is a hit, and what to read
    /// ahead. Streams are followed in bytes, so reads of sectors smaller than a page run
    /// sequentially through it.
    pub fn read(&mut self, offset: u64, len: u64) -> Lookup {
        let lpn = offset / self.page_bytes;
        let n = (offset + len).div_ceil(self.page_bytes) - lpn;
        // The page holding the stream's next byte: the read's own last page if it ends
        // inside it.
        let after = (offset + len) / self.page_bytes;
        let holds = |c: &Option<Chunk>| c.filter(|c| c.lo <= lpn && lpn + n <= c.hi);
        // The read's stream: one it continues, else one whose chunks hold it, else the
        // least recently used, taken over (its chunks let go) as a candidate stream.
        let continued = self.streams.iter().position(|s| s.next == offset);
        let holding = || {
            self.streams
                .iter()
                .position(|s| holds(&s.chunks[0]).or(holds(&s.chunks[1])).is_some())
        };
        let (idx, fresh) = match continued.or_else(holding) {
            Some(i) => (i, false),
            None => {
                let lru = (0..STREAMS)
                    .min_by_key(|&i| self.streams[i].used)
                    .expect("streams exist");
                (lru, true)
            }
        };
        self.reads += 1;
        self.current = idx;
        let st = &mut self.streams[idx];
        if fresh {
            st.chunks = [None, None];
        }
        let sequential = offset == st.next;
        st.next = offset + len;
        st.used = self.reads;
        let hit = holds(&st.chunks[0]).or(holds(&st.chunks[1]));
        let in_newer = holds(&st.chunks[1]).is_some()
            || (st.chunks[1].is_none() && holds(&st.chunks[0]).is_some());
        // A chunk holds at least one read of the stream.
        let chunk = self.pages.max(n);
        let fetch = match (hit, sequential) {
            // Reached the newest chunk: read the next one ahead.
            (Some(_), _) if in_newer => {
                let newest = st.chunks[1].or(st.chunks[0]).expect("a hit has a chunk");
                Some((newest.hi, chunk))
            }
            (Some(_), _) => None,
            // A new stream (or one that outran its chunks): read ahead from its end.
            (None, true) => {
                st.chunks = [None, None];
                Some((after, chunk))
            }
            (None, false) => None,
        };
        Lookup {
            hit: hit.map(|c| c.ready),
            fetch,
        }
    }

    /// The read ahead of `fetch` (from [`Readahead::read`]) ends at `ready`.
    pub fn fetched(&mut self, fetch: (u64, u64), ready: u64) {
        let c = Chunk {
            lo: fetch.0,
            hi: fetch.0 + fetch.1,
            ready,
        };
        let st = &mut self.streams[self.current];
        st.chunks = match st.chunks {
            [None, None] => [Some(c), None],
            [Some(a), None] => [Some(a), Some(c)],
            [_, Some(b)] => [Some(b), Some(c)],
        };
    }

    /// Pages from `lpn` (`n` of them) were written or trimmed: drop stale chunks.
    pub fn invalidate(&mut self, lpn: u64, n: u64) {
        let overlaps = |c: &Option<Chunk>| c.is_some_and(|c| lpn < c.hi && c.lo < lpn + n);
        for st in &mut self.streams {
            if overlaps(&st.chunks[0]) || overlaps(&st.chunks[1]) {
                st.chunks = [None, None];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: u64 = 4096;

    /// A read of `n` whole pages from `lpn`.
    fn pages(r: &mut Readahead, lpn: u64, n: u64) -> Lookup {
        r.read(lpn * PAGE, n * PAGE)
    }

    #[test]
    fn a_sequential_stream_is_read_ahead_two_chunks_at_a_time() {
        let mut r = Readahead::new(4, PAGE);
        assert_eq!(
            pages(&mut r, 10, 1),
            Lookup {
                hit: None,
                fetch: None
            }
        );
        // The second read continues the first: read ahead from its end.
        let l = pages(&mut r, 11, 1);
        assert_eq!(
            l,
            Lookup {
                hit: None,
                fetch: Some((12, 4))
            }
        );
        r.fetched((12, 4), 100);
        // Reaching the newest chunk reads the next one ahead.
        let l = pages(&mut r, 12, 1);
        assert_eq!(
            l,
            Lookup {
                hit: Some(100),
                fetch: Some((16, 4))
            }
        );
        r.fetched((16, 4), 200);
        // Within the older chunk: a hit, nothing more to read.
        assert_eq!(
            pages(&mut r, 13, 2),
            Lookup {
                hit: Some(100),
                fetch: None
            }
        );
        assert_eq!(
            pages(&mut r, 15, 1),
            Lookup {
                hit: Some(100),
                fetch: None
            }
        );
        // Into the newer: the older goes, the next is read ahead.
        assert_eq!(
            pages(&mut r, 16, 1),
            Lookup {
                hit: Some(200),
                fetch: Some((20, 4))
            }
        );
        r.fetched((20, 4), 300);
        assert_eq!(
            pages(&mut r, 12, 1).hit,
            None,
            "the oldest chunk was let go"
        );
    }

    #[test]
    fn random_reads_read_nothing_ahead_and_writes_drop_stale_chunks() {
        let mut r = Readahead::new(4, PAGE);
        for lpn in [7, 3, 90, 41] {
            assert_eq!(
                pages(&mut r, lpn, 1),
                Lookup {
                    hit: None,
                    fetch: None
                }
            );
        }
        pages(&mut r, 50, 1);
        let l = pages(&mut r, 51, 1);
        r.fetched(l.fetch.unwrap(), 10);
        assert_eq!(pages(&mut r, 52, 1).hit, Some(10));
        r.invalidate(54, 1);
        assert_eq!(pages(&mut r, 53, 1).hit, None);
        // A read spanning past the chunks is not a hit; the next chunk takes a whole read.
        let l = pages(&mut r, 54, 1);
        r.fetched(l.fetch.unwrap(), 20);
        let l = pages(&mut r, 55, 8);
        assert_eq!(
            l,
            Lookup {
                hit: None,
                fetch: Some((63, 8))
            }
        );
    }

    #[test]
    fn sector_reads_run_through_a_page_and_read_ahead_from_its_own() {
        let mut r = Readahead::new(4, PAGE);
        assert_eq!(r.read(0, 512).fetch, None);
        // The second sector continues the first: the rest of page 0 is read ahead with it.
        let l = r.read(512, 512);
        assert_eq!(l.fetch, Some((0, 4)));
        r.fetched((0, 4), 50);
        // The next sector is in the newest chunk: it is a hit, and the next chunk is read.
        let l = r.read(1024, 512);
        assert_eq!((l.hit, l.fetch), (Some(50), Some((4, 4))));
        r.fetched((4, 4), 90);
        // The rest of the first chunk's sectors are hits and read nothing more.
        for s in 3..32 {
            assert_eq!(
                r.read(s * 512, 512),
                Lookup {
                    hit: Some(50),
                    fetch: None
                },
                "sector {s}"
            );
        }
        assert_eq!(r.read(32 * 512, 512).hit, Some(90));
    }

    #[test]
    fn interleaved_streams_keep_their_own_chunks() {
        let mut r = Readahead::new(4, PAGE);
        // Four streams, far apart, read in turn: each is followed on its own.
        let starts = [0u64, 1000, 2000, 3000];
        for (k, &s) in starts.iter().enumerate() {
            pages(&mut r, s, 1);
            let l = pages(&mut r, s + 1, 1);
            assert_eq!(l.fetch, Some((s + 2, 4)), "stream {k}");
            r.fetched(l.fetch.unwrap(), 10 + k as u64);
        }
        for (k, &s) in starts.iter().enumerate() {
            assert_eq!(
                pages(&mut r, s + 2, 1).hit,
                Some(10 + k as u64),
                "stream {k}"
            );
        }
        // A fifth stream takes over the least recently used one.
        pages(&mut r, 5000, 1);
        assert_eq!(pages(&mut r, 3, 1).hit, None);
    }
}
