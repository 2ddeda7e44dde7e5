//! Page-aligned I/O buffers, as O_DIRECT requires.
//!
//! Invariant: the memory is 4096-byte aligned, zero-initialised, and never moves while the
//! buffer lives (io_uring registered buffers point into it).

use std::alloc::{alloc_zeroed, dealloc, Layout};

pub const ALIGN: usize = 4096;

pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// The buffer is plain memory owned by one value; moving it between threads is safe.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    pub fn new(len: usize) -> Self {
        let layout = Layout::from_size_align(len.max(1).next_multiple_of(ALIGN), ALIGN)
            .expect("buffer size fits a layout");
        // SAFETY: the layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf { ptr, layout }
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes and initialised (zeroed at allocation).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len()) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligned_and_zeroed() {
        let mut b = super::AlignedBuf::new(10_000);
        assert_eq!(b.as_mut_ptr() as usize % super::ALIGN, 0);
        assert_eq!(b.len(), 12_288);
        assert!(b.as_slice().iter().all(|&x| x == 0));
    }
}
