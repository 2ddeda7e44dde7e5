//! RAID0 address mapping (`ssdiq io A,B --stripe 128k`, the SSD-iq artifact's `Raid0Channel`):
//! the job's byte range is cut into chunks dealt round-robin over the members, chunk `c` to
//! member `c % n` at member offset `(c / n) * chunk`.
//!
//! Invariants: a request of the job never crosses a chunk (the job checks that the chunk is a
//! multiple of its block size and its requests are aligned to it), so it maps to one member
//! whole; a larger synchronous range (a fill, a trim, the read-back) is split into
//! [`Stripe::pieces`], and the pieces of one member over whole rows are contiguous on it.

/// How a striped target maps its offsets onto its members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stripe {
    pub chunk: u64,
    pub members: usize,
}

/// One member's share of a range: `len` bytes at `offset` on member `member`, which are the
/// bytes at `logical` of the whole target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub member: usize,
    pub offset: u64,
    pub len: u64,
    pub logical: u64,
}

impl Stripe {
    /// The member holding byte `offset` of the target, and where on it.
    #[inline]
    pub fn locate(&self, offset: u64) -> (usize, u64) {
        let c = offset / self.chunk;
        let n = self.members as u64;
        ((c % n) as usize, (c / n) * self.chunk + offset % self.chunk)
    }

    /// `[offset, offset + len)` as the members' pieces, in the target's order, each within one
    /// chunk, with the pieces that follow each other on a member merged.
    pub fn pieces(&self, offset: u64, len: u64) -> Vec<Piece> {
        let mut out: Vec<Piece> = Vec::new();
        let (mut at, end) = (offset, offset + len);
        while at < end {
            let n = (self.chunk - at % self.chunk).min(end - at);
            let (member, off) = self.locate(at);
            out.push(Piece {
                member,
                offset: off,
                len: n,
                logical: at,
            });
            at += n;
        }
        out
    }

    /// The pieces of `[offset, offset + len)` per member, each run of a member's consecutive
    /// offsets merged into one (a trim of whole rows is one range per member).
    pub fn member_ranges(&self, offset: u64, len: u64) -> Vec<(usize, u64, u64)> {
        let mut out: Vec<(usize, u64, u64)> = Vec::new();
        for p in self.pieces(offset, len) {
            match out
                .iter_mut()
                .find(|(m, o, l)| *m == p.member && *o + *l == p.offset)
            {
                Some(r) => r.2 += p.len,
                None => out.push((p.member, p.offset, p.len)),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Stripe = Stripe {
        chunk: 128 << 10,
        members: 2,
    };

    #[test]
    fn chunks_go_round_robin() {
        assert_eq!(S.locate(0), (0, 0));
        assert_eq!(S.locate(4096), (0, 4096));
        assert_eq!(S.locate(128 << 10), (1, 0));
        assert_eq!(S.locate(256 << 10), (0, 128 << 10));
        assert_eq!(S.locate((384 << 10) + 512), (1, (128 << 10) + 512));
    }

    #[test]
    fn pieces_cover_the_range_once_within_chunks() {
        let ps = S.pieces(100 << 10, 300 << 10);
        assert_eq!(ps.iter().map(|p| p.len).sum::<u64>(), 300 << 10);
        assert!(ps
            .iter()
            .all(|p| p.offset / S.chunk == (p.offset + p.len - 1) / S.chunk));
        let mut at = 100 << 10;
        for p in &ps {
            assert_eq!(p.logical, at);
            assert_eq!(S.locate(p.logical), (p.member, p.offset));
            at += p.len;
        }
    }

    #[test]
    fn whole_rows_are_one_range_per_member() {
        let r = S.member_ranges(0, 1 << 20);
        assert_eq!(r, vec![(0, 0, 512 << 10), (1, 0, 512 << 10)]);
    }
}
