//! Page-aligned I/O buffers, as O_DIRECT requires: `aligned-vec`'s vector at 4096-byte
//! alignment (the NVMe layer uses the same type for its transfers).
//!
//! Invariant: the memory is 4096-byte aligned, zero-initialised, a whole number of 4 KiB
//! long, and never resized while the buffer lives (io_uring registered buffers point into
//! it).

use aligned_vec::{avec, AVec, ConstAlign};

pub const ALIGN: usize = 4096;

/// An I/O buffer aligned to `ALIGN`. Make one with [`aligned_zeroed`]: `AlignedBuf::new`
/// is `AVec::new`, whose argument is an alignment, not a length.
pub type AlignedBuf = AVec<u8, ConstAlign<ALIGN>>;

/// A zeroed buffer of at least `len` bytes (at least one byte), in whole `ALIGN` units.
pub fn aligned_zeroed(len: usize) -> AlignedBuf {
    avec![[ALIGN]| 0u8; len.max(1).next_multiple_of(ALIGN)]
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligned_and_zeroed() {
        let mut b = super::aligned_zeroed(10_000);
        assert_eq!(b.as_mut_ptr() as usize % super::ALIGN, 0);
        assert_eq!(b.len(), 12_288);
        assert!(b.as_slice().iter().all(|&x| x == 0));
    }
}
