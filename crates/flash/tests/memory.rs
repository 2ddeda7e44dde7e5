//! The memory estimates of `ssdiq_flash::memory` against what the constructors really
//! allocate, counted by a global allocator: each estimate is an upper bound, within 10% +
//! 1 MiB. One test function, so no other test allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use ssdiq_flash::emu::{builtin, Drive, Profile};
use ssdiq_flash::memory::{drive_bytes, ftl_bytes, sim_bytes};
use ssdiq_flash::{simulate, Ftl, FtlConfig, GcMode, GcPolicy, Geometry, Provision, SimConfig};
use ssdiq_workload::Pattern;

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
fn peak_of<T>(f: impl FnOnce() -> T) -> u64 {
    let base = NOW.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let kept = f();
    let peak = PEAK.load(Ordering::SeqCst) - base;
    drop(kept);
    peak
}

#[track_caller]
fn bounds(what: &str, estimate: u64, actual: u64) {
    assert!(
        estimate >= actual,
        "{what}: estimate {estimate} < actual {actual}"
    );
    assert!(
        estimate as f64 <= actual as f64 * 1.1 + (1 << 20) as f64,
        "{what}: estimate {estimate} far above actual {actual}"
    );
}

#[test]
fn estimates_bound_what_is_allocated() {
    for (cap, block, policy) in [
        (64u64 << 20, 1u64 << 20, "greedy"),
        (1 << 30, 8 << 20, "greedy"),
        (1 << 30, 1 << 20, "fifo"),
        (1 << 30, 4 << 20, "2r-greedy"),
        (1 << 30, 1 << 20, "2r-fifo"),
        (512 << 20, 256 << 10, "cost-benefit"),
        (2 << 30, 16 << 20, "dchoices:8"),
    ] {
        let g = Geometry::new(cap, 4096, block, Provision::Fill(0.875), 2).unwrap();
        let policy: GcPolicy = policy.parse().unwrap();
        let cfg = FtlConfig::new(g, policy);
        let actual = peak_of(|| Ftl::new(cfg).unwrap());
        bounds(
            &format!("ftl {cap} {block} {policy}"),
            ftl_bytes(&g, policy, cfg.frontiers()),
            actual,
        );
    }
    for (buffer_pages, pattern) in [(0u64, "uniform"), (5000, "zipf:0.9"), (0, "zns:1MiB")] {
        let g = Geometry::new(256 << 20, 4096, 1 << 20, Provision::Fill(0.875), 2).unwrap();
        let cfg = SimConfig {
            geometry: g,
            policy: GcPolicy::Greedy,
            gc_frontier: false,
            gc_mode: GcMode::Naive,
            pattern: Pattern::parse(pattern).unwrap(),
            warmup_drive_writes: 0.0,
            drive_writes: 2.0,
            seed: 1,
            buffer_pages,
            points_per_drive_write: 10,
        };
        let actual = peak_of(|| simulate(&cfg, |_| {}).unwrap());
        bounds(
            &format!("sim {pattern} {buffer_pages}"),
            sim_bytes(&cfg),
            actual,
        );
    }
    for (name, overrides) in [
        ("default", vec![("capacity", "1GiB")]),
        ("default", vec![("capacity", "4GiB")]),
        ("2r", vec![("capacity", "2GiB")]),
        ("smallbuf", vec![("capacity", "1GiB")]),
    ] {
        let p = Profile::parse(builtin(name).unwrap(), &overrides).unwrap();
        let est = drive_bytes(&p).unwrap();
        let actual = peak_of(|| Drive::new(&p).unwrap());
        bounds(&format!("drive {name} {overrides:?}"), est.total(), actual);
        let mut d = Drive::new(&p).unwrap();
        let reset = peak_of(|| d.reset());
        assert!(
            est.peak_with_reset() - est.total() >= reset.saturating_sub(est.rest),
            "reset peak {reset} above the estimate"
        );
    }
}
