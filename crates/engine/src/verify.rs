//! `--verify` (fio's verify, iob's page checksum): every block a job writes carries a header
//! (magic, CRC-32, its byte offset, the job's seed, a write generation, the block size), and
//! every block it reads is checked against it; a write job reads its range back at the end.
//!
//! Invariants and why:
//! - A block is one request of `--bs` at a multiple of `--bs` (the job refuses another
//!   alignment), so a header is always at a request's start. The CRC (crc32fast) covers the
//!   block from the byte after it, so a flipped bit anywhere but in the magic is caught, and
//!   a block written at another offset or by another seed's job is named as such.
//! - Generations come from one counter of the job (never 0: 0 is "never written"). The table
//!   holds, per block, the generation of the last write submitted to it. A write that
//!   is submitted while an earlier one to its block is still in flight overlaps it: the device
//!   may keep either, so the block is marked [`RACED`] from that submission (any generation it
//!   holds is accepted) until a write is submitted with none in flight. Each block counts its
//!   writes in flight for this: one flag cannot tell a second write's completion from the
//!   last's (a read between a newer write's completion and an older one's found the older
//!   write on a healthy file, 2 in 5090 blocks of a `--rw randrw:70 --threads 2` job).
//! - A block is [`IN_FLIGHT`] from its write's submission to its completion: a read of it
//!   meanwhile may find the old write or the new, so it is not checked (a read job beside a
//!   write job on one range, as `--rw randrw`, would otherwise count the device's right to
//!   either as a mismatch). Nor is a read during which a write to its block was submitted,
//!   even one done by the time the read is checked: the read takes the block's table entry
//!   when it is submitted ([`Verifier::before_read`]) and is checked only if the entry is the
//!   same at completion (a new user's `--rw randrw:70 --threads 2 --verify` on a file
//!   reported 9-53 "older writes" of a healthy file before).
//! - Without a table (a job that only reads) a block is checked for its own consistency: magic,
//!   CRC, offset and seed; one that has no header was never written by a `--verify` job.
//! - Trims and write-zeroes clear their blocks in the table: they hold no header after.
//! - A target that keeps no data (the emulated drive) is checked by generation alone: the
//!   writes take their generations from [`Verifier::assign`], and the target says which
//!   generation each block it reads holds ([`Found`], [`Verifier::check_found`]).

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};

use ssdiq_schema::io::{VerifyLog, VerifyMismatch};

pub const HEADER_BYTES: usize = 32;
const MAGIC: u32 = 0x5344_5156; // "VQDS"
/// Table flag: two writes to the block overlapped.
const RACED: u32 = 1 << 31;
/// Table flag: the block's last write was submitted and has not completed.
const IN_FLIGHT: u32 = 1 << 30;
const GEN_MASK: u32 = IN_FLIGHT - 1;
/// The table's largest size; a larger range is refused (`Job::validate`).
pub const MAX_TABLE_BYTES: u64 = 3 << 29;

pub struct Verifier {
    seed: u64,
    bs: u64,
    /// Generation of the last write submitted to each block (with [`RACED`]); `None` for a
    /// job that does not write.
    table: Option<Vec<AtomicU32>>,
    /// Writes submitted and not completed, per block (empty without a table).
    in_flight: Vec<AtomicU16>,
    next: AtomicU64,
}

/// What a block read from a target that keeps generations, not data, holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// Nothing written (or trimmed since).
    Never,
    /// Every page of the block holds this write.
    Generation(u32),
    /// The block's pages hold different writes.
    Torn,
}

/// One block's header, as read.
struct Header {
    magic: u32,
    crc: u32,
    offset: u64,
    seed: u64,
    generation: u32,
    /// The writer's block size in bytes (0 in blocks written before it was kept).
    block: u32,
}

/// The generation of block `i` of a write stamped from `first` (0 is "never written": skipped).
fn generation(first: u64, i: u64) -> u32 {
    match (first.wrapping_add(i) as u32) & GEN_MASK {
        0 => 1,
        g => g,
    }
}

fn header(b: &[u8]) -> Header {
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    Header {
        magic: u32_at(0),
        crc: u32_at(4),
        offset: u64_at(8),
        seed: u64_at(16),
        generation: u32_at(24),
        block: u32_at(28),
    }
}

impl Verifier {
    /// A verifier of blocks of `bs` over `range_bytes` from `range_offset`; with a table when
    /// the job writes.
    pub fn new(seed: u64, bs: u64, range_end: u64, writes: bool) -> Verifier {
        let blocks = range_end.div_ceil(bs) as usize;
        Verifier {
            seed,
            bs,
            table: writes.then(|| (0..blocks).map(|_| AtomicU32::new(0)).collect()),
            in_flight: if writes {
                (0..blocks).map(|_| AtomicU16::new(0)).collect()
            } else {
                Vec::new()
            },
            next: AtomicU64::new(1),
        }
    }

    /// Bytes of the generation table of a job over `range_end` bytes in blocks of `bs`.
    pub fn table_bytes(range_end: u64, bs: u64) -> u64 {
        range_end.div_ceil(bs.max(1)) * 6
    }

    /// A write to the block at `offset` is submitted: [`RACED`] if another is still in flight.
    fn submitted(&self, offset: u64) -> u32 {
        let Some(n) = self.in_flight.get((offset / self.bs) as usize) else {
            return 0;
        };
        // Saturates: a block with 65535 writes in flight stays raced until the job ends.
        match n.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| c.checked_add(1)) {
            Ok(0) => 0,
            _ => RACED,
        }
    }

    /// A write to the block at `offset` completed.
    fn completed(&self, offset: u64) {
        if let Some(n) = self.in_flight.get((offset / self.bs) as usize) {
            let _ = n.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                (c != u16::MAX).then(|| c.saturating_sub(1))
            });
        }
    }

    fn slot(&self, offset: u64) -> Option<&AtomicU32> {
        self.table.as_ref()?.get((offset / self.bs) as usize)
    }

    /// Stamps every block of `buf` (written at `offset`): the first block's generation, the
    /// others following it.
    pub fn stamp(&self, buf: &mut [u8], offset: u64) -> u32 {
        let bs = self.bs as usize;
        let n = (buf.len() / bs).max(1) as u64;
        let first = self.next.fetch_add(n, Ordering::Relaxed);
        for (i, b) in buf.chunks_mut(bs).enumerate() {
            let g = generation(first, i as u64);
            let at = offset + (i * bs) as u64;
            b[0..4].copy_from_slice(&MAGIC.to_le_bytes());
            b[8..16].copy_from_slice(&at.to_le_bytes());
            b[16..24].copy_from_slice(&self.seed.to_le_bytes());
            b[24..28].copy_from_slice(&g.to_le_bytes());
            b[28..32].copy_from_slice(&(self.bs as u32).to_le_bytes());
            let crc = crc32fast::hash(&b[8..]);
            b[4..8].copy_from_slice(&crc.to_le_bytes());
            if let Some(s) = self.slot(at) {
                s.store(g | IN_FLIGHT | self.submitted(at), Ordering::Relaxed);
            }
        }
        (first as u32) & GEN_MASK
    }

    /// The generations of a write of `len` bytes at `offset` to a target that keeps no data:
    /// as [`Verifier::stamp`], without a buffer. Block `i`'s is [`Verifier::generation_of`]
    /// `(first, i)`.
    pub fn assign(&self, offset: u64, len: u64) -> u32 {
        let n = len.div_ceil(self.bs).max(1);
        let first = self.next.fetch_add(n, Ordering::Relaxed);
        for i in 0..n {
            let at = offset + i * self.bs;
            if let Some(s) = self.slot(at) {
                s.store(
                    generation(first, i) | IN_FLIGHT | self.submitted(at),
                    Ordering::Relaxed,
                );
            }
        }
        (first as u32) & GEN_MASK
    }

    /// The generation of block `i` of a write assigned from `first`.
    pub fn generation_of(first: u32, i: u64) -> u32 {
        generation(first as u64, i)
    }

    /// The block size the generations count in.
    pub fn block_bytes(&self) -> u64 {
        self.bs
    }

    /// Checks the block at `at` of a target that keeps generations (1 checked, or 0 where the
    /// job never wrote it), and the mismatch, if any.
    pub fn check_found(&self, at: u64, found: Found) -> (u64, Option<VerifyMismatch>) {
        let expected = self.slot(at).map(|s| s.load(Ordering::Relaxed));
        if expected.is_none_or(|e| e == 0 || e & IN_FLIGHT != 0) {
            return (0, None);
        }
        let raced = expected.is_some_and(|e| e & RACED != 0);
        let expected_generation = expected
            .filter(|e| e & RACED == 0)
            .map(|e| (e & GEN_MASK) as u64);
        let mismatch = |what: &str, found: Option<u32>| VerifyMismatch {
            offset: at,
            what: what.into(),
            expected_generation,
            found_generation: found.map(u64::from),
        };
        let m = match found {
            Found::Never => Some(mismatch(
                "nothing written there (a lost write, or a trim the job did not send)",
                None,
            )),
            Found::Torn => Some(mismatch(
                "the block's pages hold different writes (a torn write)",
                None,
            )),
            Found::Generation(g) if !raced && expected_generation != Some(g as u64) => Some(
                mismatch("an older write (a lost or misdirected write)", Some(g)),
            ),
            Found::Generation(_) => None,
        };
        (1, m)
    }

    /// The write of `len` bytes at `offset` stamped from generation `first` completed.
    pub fn written(&self, offset: u64, len: u64, first: u32) {
        for i in 0..len.div_ceil(self.bs) {
            let at = offset + i * self.bs;
            let Some(s) = self.slot(at) else {
                continue;
            };
            self.completed(at);
            let g = generation(first as u64, i);
            // The newest write done: no longer in flight. An older one done after a newer
            // was submitted: either may be on the device. A slot cleared meanwhile (a trim
            // after the write's submission) holds nothing to check.
            let _ = s.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |cur| {
                match cur & GEN_MASK {
                    0 => None,
                    c if c == g => Some(cur & !IN_FLIGHT),
                    _ => Some(cur | RACED),
                }
            });
        }
    }

    /// The blocks of `len` bytes at `offset` were trimmed or zeroed: they hold no header.
    pub fn cleared(&self, offset: u64, len: u64) {
        for i in 0..len.div_ceil(self.bs) {
            if let Some(s) = self.slot(offset + i * self.bs) {
                s.store(0, Ordering::Relaxed);
            }
        }
    }

    /// The table entry of the block at `offset` as a read of it is submitted, for
    /// [`Verifier::check`] (0 without a table).
    pub fn before_read(&self, offset: u64) -> u32 {
        self.slot(offset).map_or(0, |s| s.load(Ordering::Relaxed))
    }

    /// Checks every block of `buf`, read at `offset`: how many were checked, and the first
    /// that did not hold what was written. `before` is the first block's entry when the read
    /// was submitted ([`Verifier::before_read`]; `None` for a read no write can overlap, as
    /// the read-back after the job).
    pub fn check(
        &self,
        buf: &[u8],
        offset: u64,
        before: Option<u32>,
    ) -> (u64, Option<VerifyMismatch>) {
        let bs = self.bs as usize;
        let mut checked = 0;
        for (i, b) in buf.chunks(bs).enumerate() {
            let at = offset + (i * bs) as u64;
            let expected = self.slot(at).map(|s| s.load(Ordering::Relaxed));
            if expected == Some(0) {
                // Never written by this job (or trimmed since): nothing to hold it to.
                continue;
            }
            if expected.is_some_and(|e| e & IN_FLIGHT != 0) {
                // A write to it is in flight: the device may return the old data or the new.
                continue;
            }
            if i == 0
                && self.table.is_some()
                && before.is_some_and(|b| Some(b) != expected || b & IN_FLIGHT != 0)
            {
                // A write to it was in flight or submitted while the read was: either copy
                // is the device's right.
                continue;
            }
            checked += 1;
            if let Some(m) = self.check_block(b, at, expected) {
                return (checked, Some(m));
            }
        }
        (checked, None)
    }

    fn check_block(&self, b: &[u8], at: u64, expected: Option<u32>) -> Option<VerifyMismatch> {
        let h = header(b);
        let expected_generation = expected
            .filter(|e| e & RACED == 0)
            .map(|e| (e & GEN_MASK) as u64);
        let mismatch = |what: String, found: Option<u32>| VerifyMismatch {
            offset: at,
            what,
            expected_generation,
            found_generation: found.map(u64::from),
        };
        if h.magic != MAGIC {
            return Some(mismatch(
                "no verify header (never written by a --verify job, or overwritten)".into(),
                None,
            ));
        }
        // A reader of another --bs finds a header where a block starts and checksums past its
        // end: say so rather than call the data changed (as fio's verify header keeps the
        // length).
        if h.block != 0 && u64::from(h.block) != self.bs {
            return Some(mismatch(
                format!(
                    "written in blocks of {} bytes, read in blocks of {} (give the writer's --bs)",
                    h.block, self.bs
                ),
                Some(h.generation),
            ));
        }
        if crc32fast::hash(&b[8..]) != h.crc {
            return Some(mismatch(
                "checksum mismatch (the block's content changed)".into(),
                Some(h.generation),
            ));
        }
        if h.offset != at {
            return Some(mismatch(
                format!("the block written for offset {} is here", h.offset),
                Some(h.generation),
            ));
        }
        if h.seed != self.seed {
            return Some(mismatch(
                format!(
                    "written by a job of seed {}, not {} (give the writer's --seed)",
                    h.seed, self.seed
                ),
                Some(h.generation),
            ));
        }
        match expected_generation {
            Some(e) if e != h.generation as u64 => Some(mismatch(
                "an older write (a lost or misdirected write)".into(),
                Some(h.generation),
            )),
            _ => None,
        }
    }
}

/// Reads the job's range back (1 MiB at a time, synchronously, through the job's own file
/// descriptor) and checks every block written by the job: what a write job with `--verify`
/// ends with. Stops early, with what it checked, when the run is stopped.
pub fn read_back(
    target: &crate::job_target::Target,
    job: &crate::job::Job,
    data: &crate::data::WriteData,
    ctl: &crate::control::RunControl<'_>,
) -> Result<VerifyLog, crate::error::EngineError> {
    let chunk = (1u64 << 20).next_multiple_of(job.bs);
    let mut buf = crate::buf::aligned_zeroed(chunk as usize);
    let mut log = VerifyLog::default();
    let (from, to) = (job.offset_bytes, job.offset_bytes + job.range_bytes);
    let mut off = from;
    while off < to && !ctl.stopped() {
        let len = chunk.min(to - off) as usize;
        let b = &mut buf.as_mut_slice()[..len];
        target.read_at(b, off).map_err(|e| {
            crate::error::EngineError::io(format!("--verify read-back at offset {off}"), e)
        })?;
        for (i, block) in b.chunks(job.bs as usize).enumerate() {
            if let Some((n, m)) = data.check_read(block, off + (i as u64) * job.bs, None) {
                log.record(n, m);
                log.read_back += n;
            }
        }
        off += len as u64;
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_write_still_in_flight_after_a_newer_one_completes_may_be_found() {
        let v = Verifier::new(7, 4096, 8 * 4096, true);
        let (mut old, mut new) = (vec![1u8; 4096], vec![2u8; 4096]);
        let g_old = v.stamp(&mut old, 0);
        let g_new = v.stamp(&mut new, 0);
        // The newer write is done, the older not yet: the device may have applied it last.
        v.written(0, 4096, g_new);
        assert_eq!(v.check(&old, 0, Some(v.before_read(0))).1, None);
        v.written(0, 4096, g_old);
        assert_eq!(v.check(&old, 0, Some(v.before_read(0))).1, None);
        // A write with none in flight settles the block again: an older one is named.
        let mut next = vec![3u8; 4096];
        let g_next = v.stamp(&mut next, 0);
        v.written(0, 4096, g_next);
        assert_eq!(v.check(&next, 0, Some(v.before_read(0))), (1, None));
        let m = v
            .check(&old, 0, Some(v.before_read(0)))
            .1
            .expect("an older write");
        assert_eq!(m.found_generation, Some(g_old as u64));
        // The same on a target that keeps generations only.
        let a = v.assign(4096, 4096);
        let b = v.assign(4096, 4096);
        v.written(4096, 4096, b);
        assert_eq!(v.check_found(4096, Found::Generation(a)).1, None);
    }

    #[test]
    fn a_stamped_block_checks_and_a_changed_one_does_not() {
        let v = Verifier::new(7, 4096, 8 * 4096, true);
        let mut b = vec![0xa5u8; 4096];
        let g = v.stamp(&mut b, 4096);
        v.written(4096, 4096, g);
        assert_eq!(v.check(&b, 4096, None), (1, None));
        // One bit anywhere after the magic.
        for at in [5, 9, 30, 2000, 4095] {
            let mut c = b.clone();
            c[at] ^= 1;
            let (n, m) = v.check(&c, 4096, None);
            assert_eq!(n, 1);
            assert!(m.is_some(), "bit at {at}");
        }
        // The right block at the wrong place (to a reader: the writer never wrote block 2).
        let reader = Verifier::new(7, 4096, 8 * 4096, false);
        let (_, m) = reader.check(&b, 8192, None);
        let m = m.expect("block 1 is not block 2");
        assert!(m.what.contains("offset 4096"), "{}", m.what);
        // An older write of the block: its generation is named.
        let mut old = vec![0x3cu8; 4096];
        let g_old = v.stamp(&mut old, 4096);
        let g_new = v.stamp(&mut b, 4096);
        v.written(4096, 4096, g_old);
        v.written(4096, 4096, g_new);
        // Both were in flight at once: either copy is the device's to keep.
        assert_eq!(v.check(&old, 4096, None).1, None);
        let g3 = v.stamp(&mut b, 4096);
        v.written(4096, 4096, g3);
        let m = v.check(&old, 4096, None).1.expect("an older write");
        assert_eq!(m.expected_generation, Some(g3 as u64));
        assert_eq!(m.found_generation, Some(g_old as u64));
    }

    #[test]
    fn a_block_whose_write_is_in_flight_is_not_held_to_either_copy() {
        let v = Verifier::new(7, 4096, 8 * 4096, true);
        let mut old = vec![1u8; 4096];
        let g_old = v.stamp(&mut old, 0);
        v.written(0, 4096, g_old);
        let mut new = vec![2u8; 4096];
        let g_new = v.stamp(&mut new, 0);
        // Read while the new write is in flight: the old copy is the device's right.
        assert_eq!(v.check(&old, 0, None), (0, None));
        // A read submitted before that write, checked after it completed: the same.
        let v2 = Verifier::new(7, 4096, 8 * 4096, true);
        let mut first = vec![1u8; 4096];
        let g_first = v2.stamp(&mut first, 0);
        v2.written(0, 4096, g_first);
        let before = v2.before_read(0);
        let mut second = vec![2u8; 4096];
        let g_second = v2.stamp(&mut second, 0);
        v2.written(0, 4096, g_second);
        assert_eq!(v2.check(&first, 0, Some(before)), (0, None));
        // A read submitted after it completed is held to it.
        let after = v2.before_read(0);
        assert!(v2.check(&first, 0, Some(after)).1.is_some());
        assert_eq!(v2.check(&second, 0, Some(after)), (1, None));
        assert_eq!(v.check_found(0, Found::Generation(g_old)), (0, None));
        v.written(0, 4096, g_new);
        // Once it completed, the old copy is an older write.
        assert!(v.check(&old, 0, None).1.is_some());
        let (n, m) = v.check_found(0, Found::Generation(g_old));
        assert_eq!(
            (n, m.map(|m| m.found_generation)),
            (1, Some(Some(g_old as u64)))
        );
        assert_eq!(v.check_found(0, Found::Generation(g_new)), (1, None));
        // A target that keeps generations: assigned, written, found.
        let g = v.assign(4096, 2 * 4096);
        v.written(4096, 2 * 4096, g);
        assert_eq!(
            v.check_found(8192, Found::Generation(Verifier::generation_of(g, 1))),
            (1, None)
        );
        assert!(v.check_found(4096, Found::Never).1.is_some());
        assert!(v.check_found(4096, Found::Torn).1.is_some());
        // A block the job never wrote is not checked.
        assert_eq!(v.check_found(6 * 4096, Found::Never), (0, None));
        // A trim after a write's submission, before its completion: nothing to hold it to.
        let g = v.assign(5 * 4096, 4096);
        v.cleared(5 * 4096, 4096);
        v.written(5 * 4096, 4096, g);
        assert_eq!(v.check_found(5 * 4096, Found::Never), (0, None));
        // Two writes in flight, the older completing last: raced, either copy accepted.
        let g1 = v.assign(7 * 4096, 4096);
        let g2 = v.assign(7 * 4096, 4096);
        v.written(7 * 4096, 4096, g2);
        v.written(7 * 4096, 4096, g1);
        assert_eq!(v.check_found(7 * 4096, Found::Generation(g1)), (1, None));
        assert_eq!(v.check_found(7 * 4096, Found::Generation(g2)), (1, None));
    }

    #[test]
    fn a_reader_without_a_table_checks_consistency_and_seed() {
        let w = Verifier::new(7, 4096, 4 * 4096, true);
        let mut b = vec![1u8; 2 * 4096];
        w.stamp(&mut b, 0);
        let r = Verifier::new(7, 4096, 4 * 4096, false);
        assert_eq!(r.check(&b, 0, None), (2, None));
        let other = Verifier::new(8, 4096, 4 * 4096, false);
        assert!(other.check(&b, 0, None).1.unwrap().what.contains("seed 7"));
        // A reader of another block size is told so, not that the data changed.
        let wider = Verifier::new(7, 8192, 4 * 4096, false);
        let m = wider.check(&b, 0, None).1.unwrap();
        assert!(
            m.what
                .contains("written in blocks of 4096 bytes, read in blocks of 8192"),
            "{}",
            m.what
        );
        assert!(r
            .check(&[0u8; 4096], 0, None)
            .1
            .unwrap()
            .what
            .contains("no verify header"));
        // Blocks the writer never wrote (or trimmed) are not held to anything.
        assert_eq!(w.check(&[0u8; 4096], 3 * 4096, None), (0, None));
        w.cleared(0, 4096);
        assert_eq!(w.check(&[0u8; 4096], 0, None), (0, None));
    }
}
