//! Logical blocks smaller than the map unit (`lba_bytes`, the 970 EVO Plus profile): the
//! drive takes sector-sized I/O, reads whole units, rewrites a unit written in part, and
//! merges sectors written into a unit still in its buffer.

use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, Job, RunControl};
use ssdiq_workload::{Pattern, RwMix};

use crate::support::filled;

/// Runs `n` writes or reads of `bs` bytes at QD 1 from `pattern`, then lets the buffer drain.
fn run(e: &mut EmuExecutor, rw: &str, pattern: &str, bs: u64, n: u64) {
    let range = e.capacity_bytes() / bs * bs;
    let mut j = Job::new("emu", RwMix::parse(rw).unwrap(), bs, range);
    j.pattern = Pattern::parse(pattern).unwrap();
    j.bound.bytes = Some(n * bs);
    e.run(&j, &RunControl::default()).unwrap();
    e.idle_for(2_000_000_000);
}

fn waf(e: &EmuExecutor) -> f64 {
    let c = e.write_counters();
    c.media_bytes.unwrap() as f64 / c.host_bytes as f64
}

#[test]
fn sector_writes_rewrite_whole_units_unless_they_merge_in_the_buffer() {
    // Random 512 B writes on a fresh drive: each programs its whole 4 KiB unit.
    let mut e = EmuExecutor::open("emu:default,capacity=1GiB,lba_bytes=512").unwrap();
    run(&mut e, "randwrite", "uniform", 512, 4000);
    let w = waf(&e);
    assert!((w - 8.0).abs() < 0.05, "{w}");
    // Sequential ones fill each unit in the buffer and program it once, whether or not they
    // cross units (1.5 KiB writes). The unit a program unit cuts is programmed twice: one in
    // a program unit's units (emu:default: 48) more.
    for bs in [512, 1536] {
        let mut e = EmuExecutor::open("emu:default,capacity=1GiB,lba_bytes=512").unwrap();
        run(&mut e, "write", "seq", bs, 8000);
        let w = waf(&e);
        assert!((1.0..1.05).contains(&w), "{bs}: {w}");
    }
}

#[test]
fn sector_reads_of_a_unit_share_its_flash_read() {
    // No readahead: sequential 512 B reads run eight to a unit, random ones each need a
    // flash read of their own.
    let mut e = filled("emu:default,capacity=1GiB,lba_bytes=512", 5);
    let mut mean_ns = |rw: &str| {
        let mut j = Job::new("emu", RwMix::parse(rw).unwrap(), 512, e.capacity_bytes());
        j.bound.bytes = Some(2000 * 512);
        let s = e.run(&j, &RunControl::default()).unwrap();
        s.ops[&ssdiq_workload::Op::Read].mean_ns()
    };
    let rnd = mean_ns("randread");
    let seq = mean_ns("read");
    assert!(seq < 0.5 * rnd, "{seq} vs {rnd}");
}

#[test]
fn the_logical_block_sets_the_smallest_io() {
    let e = EmuExecutor::open("emu:970evoplus,capacity=1GiB").unwrap();
    assert_eq!(e.logical_block_size(), 512);
    let mut e = EmuExecutor::open("emu:default,capacity=1GiB,lba_bytes=1024").unwrap();
    let j = Job::new(
        "emu",
        RwMix::parse("randread").unwrap(),
        512,
        e.capacity_bytes(),
    );
    let err = e.run(&j, &RunControl::default()).unwrap_err().to_string();
    assert!(
        err.contains("\"512\"") && err.contains("1024-byte logical blocks"),
        "{err}"
    );
    let err = EmuExecutor::open("emu:default,lba_bytes=8192")
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("lba_bytes \"8192\"") && err.contains("512, 1024, 2048 or 4096"),
        "{err}"
    );
}

#[test]
fn a_trim_deallocates_only_whole_units() {
    let mut e = filled("emu:default,capacity=1GiB,lba_bytes=512", 5);
    let mapped = |e: &EmuExecutor| {
        (0..64)
            .filter(|&p| e.drive().ftl().lookup(p).is_some())
            .count()
    };
    assert_eq!(mapped(&e), 64);
    // 2 KiB trims from the start: none covers a whole unit.
    let mut j = Job::new("emu", RwMix::parse("trim").unwrap(), 2048, 32 * 4096);
    j.bound.bytes = Some(64 * 2048);
    e.run(&j, &RunControl::default()).unwrap();
    assert_eq!(mapped(&e), 64);
    // 6 KiB trims over the first 48 units: each holds exactly one whole unit (0-6 KiB holds
    // unit 0, 6-12 KiB unit 2).
    let mut j = Job::new("emu", RwMix::parse("trim").unwrap(), 6144, 48 * 4096);
    j.bound.bytes = Some(32 * 6144);
    e.run(&j, &RunControl::default()).unwrap();
    assert_eq!(mapped(&e), 64 - 32);
    assert!(e.drive().ftl().lookup(0).is_none() && e.drive().ftl().lookup(1).is_some());
}
