//! A global allocator that counts the heap, for the memory-estimate tests (included by path
//! from each crate's `tests/memory.rs`, so only that test binary counts).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static NOW: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let n = NOW.fetch_add(l.size() as u64, Ordering::SeqCst) + l.size() as u64;
        PEAK.fetch_max(n, Ordering::SeqCst);
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let n = NOW.fetch_add(l.size() as u64, Ordering::SeqCst) + l.size() as u64;
        PEAK.fetch_max(n, Ordering::SeqCst);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size() as u64, Ordering::SeqCst);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new >= l.size() {
            let n =
                NOW.fetch_add((new - l.size()) as u64, Ordering::SeqCst) + (new - l.size()) as u64;
            PEAK.fetch_max(n, Ordering::SeqCst);
        } else {
            NOW.fetch_sub((l.size() - new) as u64, Ordering::SeqCst);
        }
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Peak heap growth while `f` runs (what it returns is kept alive until then).
pub fn peak_of<T>(f: impl FnOnce() -> T) -> u64 {
    let base = NOW.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let kept = f();
    let peak = PEAK.load(Ordering::SeqCst) - base;
    drop(kept);
    peak
}

#[track_caller]
pub fn bounds(what: &str, estimate: u64, actual: u64) {
    assert!(
        estimate >= actual,
        "{what}: estimate {estimate} < actual {actual}"
    );
    assert!(
        estimate as f64 <= actual as f64 * 1.1 + (1 << 20) as f64,
        "{what}: estimate {estimate} far above actual {actual}"
    );
}
