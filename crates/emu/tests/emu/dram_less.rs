//! A DRAM-less drive's map (issue 33, DFTL): data written in order maps as extents and costs
//! nothing; data written out of order needs its map page, read from flash on a miss, and a
//! changed page is written back when it leaves the cache.

use ssdiq_emu::EmuExecutor;

use crate::support::filled;
use ssdiq_engine::{Executor, Job, RunControl, Stats};
use ssdiq_workload::{Op, Pattern, RwMix};

const NV2: &str = "emu:nv2,capacity=1GiB,slc_share=0";

fn run(e: &mut EmuExecutor, rw: &str, pattern: &str, qd: u32, bytes: Option<u64>) -> Stats {
    let mut j = Job::new("emu", RwMix::parse(rw).unwrap(), 4096, e.capacity_bytes());
    j.pattern = Pattern::parse(pattern).unwrap();
    j.qd = qd;
    match bytes {
        Some(b) => j.bound.bytes = Some(b),
        None => j.bound.time_ns = Some(200_000_000),
    }
    e.run(&j, &RunControl::default()).unwrap()
}

fn mean_us(s: &Stats, op: Op) -> f64 {
    s.ops[&op].mean_ns() / 1e3
}

#[test]
fn data_written_in_order_reads_as_with_the_map_in_dram() {
    let mut less = filled(NV2, 5);
    let mut dram = filled(&format!("{NV2},map_cache_kib=0"), 5);
    let a = run(&mut less, "randread", "uniform", 1, None);
    let b = run(&mut dram, "randread", "uniform", 1, None);
    assert_eq!(a.ops[&Op::Read].ios, b.ops[&Op::Read].ios);
    assert_eq!(mean_us(&a, Op::Read), mean_us(&b, Op::Read));
}

#[test]
fn data_written_out_of_order_costs_a_map_read_per_miss_and_write_backs() {
    let mut less = EmuExecutor::open(NV2).unwrap();
    let mut dram = EmuExecutor::open(&format!("{NV2},map_cache_kib=0")).unwrap();
    let cap = less.capacity_bytes();
    for e in [&mut less, &mut dram] {
        run(e, "randwrite", "randperm", 1, Some(cap));
        e.idle_for(5_000_000_000);
    }
    // Random reads now miss the cache (64 MiB of a 244 MiB map at full size): about one more
    // flash read (60 us) each on average.
    let a = mean_us(&run(&mut less, "randread", "uniform", 1, None), Op::Read);
    let b = mean_us(&run(&mut dram, "randread", "uniform", 1, None), Op::Read);
    assert!(a > b + 0.6 * 60.0, "{a} vs {b}");
    // Every miss of a write evicted a changed map page: a 16 KiB program each.
    let waf = |e: &EmuExecutor| {
        let c = e.write_counters();
        c.media_bytes.unwrap() as f64 / c.host_bytes as f64
    };
    assert!(waf(&less) > 3.0, "{}", waf(&less));
    assert!(waf(&dram) < 1.05, "{}", waf(&dram));
}

#[test]
fn a_trimmed_and_rewritten_drive_maps_compactly_again() {
    let mut e = EmuExecutor::open(NV2).unwrap();
    let cap = e.capacity_bytes();
    run(&mut e, "randwrite", "uniform", 8, Some(cap / 4));
    let mut t = Job::new("emu", RwMix::parse("trim").unwrap(), 1 << 20, cap);
    t.pattern = Pattern::Seq;
    t.bound.bytes = Some(cap);
    e.run(&t, &RunControl::default()).unwrap();
    run(&mut e, "write", "seq", 8, Some(cap));
    e.idle_for(5_000_000_000);
    let mut fresh = filled(NV2, 5);
    let a = mean_us(&run(&mut e, "randread", "uniform", 1, None), Op::Read);
    let b = mean_us(&run(&mut fresh, "randread", "uniform", 1, None), Op::Read);
    assert!((a - b).abs() < 0.05 * b, "{a} vs {b}");
}
