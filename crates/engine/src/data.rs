//! Write buffer contents. Buffers are filled once per slot before the job (like fio without
//! `refill_buffers`), so writing costs no CPU in the loop; only LBA stamps, whose content
//! depends on the offset, are rewritten before each write, and with `--verify` each block's
//! header and checksum ([`crate::verify`]).

use std::sync::Arc;

use ssdiq_schema::io::VerifyMismatch;
use ssdiq_workload::DataPattern;

use crate::verify::Verifier;

pub struct WriteData {
    pattern: DataPattern,
    seed: u64,
    verify: Option<Arc<Verifier>>,
}

impl WriteData {
    pub fn new(pattern: DataPattern, seed: u64) -> Self {
        WriteData {
            pattern,
            seed,
            verify: None,
        }
    }

    /// The same data, each block stamped and every read checked by `v`.
    pub fn verified(mut self, v: Arc<Verifier>) -> Self {
        self.verify = Some(v);
        self
    }

    /// Initial content of write buffer `slot`.
    pub fn init(&self, buf: &mut [u8], slot: u64) {
        self.pattern
            .fill(buf, slot * buf.len() as u64, 0, self.seed);
    }

    /// Before writing `buf` at `offset` as the `generation`-th write of its thread: the
    /// `--verify` generation stamped (0 without it), for [`WriteData::after_write`].
    #[inline]
    pub fn before_write(&self, buf: &mut [u8], offset: u64, generation: u64) -> u32 {
        if matches!(self.pattern, DataPattern::LbaStamp) {
            self.pattern.fill(buf, offset, generation, self.seed);
        }
        match &self.verify {
            Some(v) => v.stamp(buf, offset),
            None => 0,
        }
    }

    /// The write of `len` bytes at `offset` stamped `stamp` completed.
    #[inline]
    pub fn after_write(&self, offset: u64, len: u64, stamp: u32) {
        if let Some(v) = &self.verify {
            v.written(offset, len, stamp);
        }
    }

    /// A trim or write-zeroes of `len` bytes at `offset` completed.
    #[inline]
    pub fn after_clear(&self, offset: u64, len: u64) {
        if let Some(v) = &self.verify {
            v.cleared(offset, len);
        }
    }

    /// Before a read at `offset` is submitted: what [`WriteData::check_read`] holds its
    /// block's write to (0 without `--verify`).
    #[inline]
    pub fn before_read(&self, offset: u64) -> u32 {
        self.verify.as_ref().map_or(0, |v| v.before_read(offset))
    }

    /// A read of `buf` at `offset` completed (`before`: [`WriteData::before_read`] at its
    /// submission, `None` where no write can overlap it): with `--verify`, how many blocks
    /// were checked and the first mismatch.
    #[inline]
    pub fn check_read(
        &self,
        buf: &[u8],
        offset: u64,
        before: Option<u32>,
    ) -> Option<(u64, Option<VerifyMismatch>)> {
        self.verify.as_ref().map(|v| v.check(buf, offset, before))
    }
}
