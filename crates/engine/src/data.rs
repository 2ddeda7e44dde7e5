//! Write buffer contents. Buffers are filled once per slot before the job (like fio without
//! `refill_buffers`), so writing costs no CPU in the loop; only LBA stamps, whose content
//! depends on the offset, are rewritten before each write.

use ssdiq_workload::DataPattern;

pub struct WriteData {
    pattern: DataPattern,
    seed: u64,
}

impl WriteData {
    pub fn new(pattern: DataPattern, seed: u64) -> Self {
        WriteData { pattern, seed }
    }

    /// Initial content of write buffer `slot`.
    pub fn init(&self, buf: &mut [u8], slot: u64) {
        self.pattern
            .fill(buf, slot * buf.len() as u64, 0, self.seed);
    }

    /// Before writing `buf` at `offset` as the `generation`-th write.
    #[inline]
    pub fn before_write(&self, buf: &mut [u8], offset: u64, generation: u64) {
        if matches!(self.pattern, DataPattern::LbaStamp) {
            self.pattern.fill(buf, offset, generation, self.seed);
        }
    }
}
