//! The SLC cache of the consumer profiles (issue 33): writes run at SLC speed until the cache
//! is full, at the native cells' speed after, and idle time folds the cache so the next burst
//! is fast again; every cached page is programmed twice (SLC, then folded).

use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, Job, RunControl};
use ssdiq_workload::{Op, Pattern, RwMix};

/// MB/s of sequential 1 MiB writes at QD 64 over `share` of the drive from `start` (a share).
fn burst(e: &mut EmuExecutor, start: f64, share: f64) -> f64 {
    let cap = e.capacity_bytes();
    let mb = 1 << 20;
    let off = ((cap as f64 * start) as u64) / mb * mb;
    let len = ((cap as f64 * share) as u64) / mb * mb;
    let mut j = Job::new("emu", RwMix::parse("write").unwrap(), mb, len);
    j.pattern = Pattern::parse("seq").unwrap();
    j.qd = 64;
    j.offset_bytes = off;
    j.bound.bytes = Some(len);
    let s = e.run(&j, &RunControl::default()).unwrap();
    s.ops[&Op::Write].bytes as f64 / s.elapsed_ns as f64 * 1e3
}

#[test]
fn the_cache_fills_folds_when_idle_and_costs_a_second_program() {
    let mut e = EmuExecutor::open("emu:970evoplus").unwrap();
    // 4% of the drive fits the 5.2% cache: at SLC speed (the datasheet's 2300 MB/s).
    let fast = burst(&mut e, 0.0, 0.04);
    assert!((fast - 2300.0).abs() < 0.1 * 2300.0, "{fast}");
    // The next 4% overflows it: mostly native (400 MB/s).
    let over = burst(&mut e, 0.04, 0.04);
    assert!(over < 0.5 * fast, "{over} vs {fast}");
    // Right after, with no idle time: still native.
    let again = burst(&mut e, 0.08, 0.02);
    assert!(again < 0.3 * fast, "{again} vs {fast}");
    // Idle time folds the cache (at the dies' speed: 5% of 16 GiB in well under 10 s).
    e.idle_for(10_000_000_000);
    let host = e.write_counters().host_bytes;
    let media = e.write_counters().media_bytes.unwrap();
    let after_idle = burst(&mut e, 0.10, 0.04);
    assert!(after_idle > 0.9 * fast, "{after_idle} vs {fast}");
    // Cached pages cost two programs, native ones one: 5.2% of the drive went through the
    // cache out of 10% written.
    let waf = media as f64 / host as f64;
    let cached = 0.052 / 0.10;
    assert!(
        (waf - (1.0 + cached)).abs() < 0.05,
        "WAF {waf}, expected {}",
        1.0 + cached
    );
}

#[test]
fn a_drive_without_a_cache_share_runs_as_before() {
    // slc_share=0 is the data-center drives' case: the same completion times as no [slc].
    let mut a = EmuExecutor::open("emu:970evoplus,capacity=1GiB,slc_share=0").unwrap();
    let mut b =
        EmuExecutor::open("emu:970evoplus,capacity=1GiB,slc_share=0,slc_program_us=50").unwrap();
    assert_eq!(burst(&mut a, 0.0, 0.5), burst(&mut b, 0.0, 0.5));
    let native = burst(&mut a, 0.5, 0.2);
    assert!((native - 400.0).abs() < 0.1 * 400.0, "{native}");
}
