//! The emulated SSD behaves like the drives of the SSD-iq paper and like its own full-size
//! drive (issue 13): naive greedy's WAF rises with skew, a scaled drive's WAF does not depend
//! on its capacity, and latencies spread the way real ones do.

use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, FillMode, Job, Probe, RunControl, Stats};
use ssdiq_workload::units::Rate;
use ssdiq_workload::{Op, Pattern, RwMix};

fn open(target: &str) -> EmuExecutor {
    EmuExecutor::open(target).unwrap()
}

fn run(e: &mut EmuExecutor, j: &Job) -> Stats {
    e.run(j, &RunControl::default()).unwrap()
}

fn job(e: &EmuExecutor, rw: &str, bs: u64, qd: u32) -> Job {
    let mut j = Job::new("emu", RwMix::parse(rw).unwrap(), bs, e.capacity_bytes());
    j.qd = qd;
    j
}

/// WAF over 1.5 drive writes of 4 KiB writes of `pattern` after a fill and 3 drive writes.
fn steady_waf(target: &str, pattern: &str) -> f64 {
    let mut e = open(target);
    let cap = e.capacity_bytes();
    let mut j = job(&e, "randwrite", 4096, 32);
    j.pattern = Pattern::parse(pattern).unwrap();
    j.fill = Some(FillMode::Seq);
    j.bound.bytes = Some(cap * 3);
    run(&mut e, &j);
    j.fill = None;
    j.bound.bytes = Some(cap * 3 / 2);
    run(&mut e, &j).counters.waf().unwrap()
}

#[test]
fn skew_raises_naive_greedy_waf_as_on_most_of_the_papers_drives() {
    let t = "emu:default,capacity=1GiB";
    let u = steady_waf(t, "uniform");
    let z = steady_waf(t, "twozone:90/10");
    println!("emu:default 1 GiB: uniform WAF {u:.3}, twozone 90/10 {z:.3}");
    assert!(z > u * 1.1, "uniform {u} vs twozone 90/10 {z}");
}

#[test]
fn a_scaled_drive_keeps_its_waf_across_capacities() {
    // 2 and 4 GiB both stand for the 960 GB drive: one and two program units per die in a
    // superblock, 765 superblocks each.
    let small = steady_waf("emu:default,capacity=2GiB", "twozone:90/10");
    let big = steady_waf("emu:default,capacity=4GiB", "twozone:90/10");
    println!("twozone 90/10: 2 GiB {small:.4}, 4 GiB {big:.4}");
    assert!((big / small - 1.0).abs() < 0.03, "{small} vs {big}");
}

#[test]
fn read_latency_spreads_under_load_and_in_sequential_reads() {
    let mut e = open("emu:default,capacity=1GiB");
    let mut w = job(&e, "randwrite", 4096, 32);
    w.fill = Some(FillMode::Seq);
    w.bound.bytes = Some(e.capacity_bytes());
    run(&mut e, &w);
    // Background writes at 25% of the spec rate with a QD 1 read probe, as in SSD-iq §5.
    let kiops = e.spec().rand_write_kiops.unwrap();
    w.fill = None;
    w.bound.bytes = None;
    w.bound.time_ns = Some(10_000_000_000);
    w.rate = Some(Rate::IoPerSec(kiops * 250.0));
    w.probes = vec![Probe::READ];
    let s = run(&mut e, &w);
    let p = &s.probes[&Op::Read];
    let (mean, p50, p999) = (
        p.mean_ns() / 1e3,
        p.quantile(0.5) as f64 / 1e3,
        p.quantile(0.999) as f64 / 1e3,
    );
    println!("read probe under load: mean {mean:.1} us, p50 {p50:.1}, p99.9 {p999:.1}");
    assert!(mean < 100.0, "mean {mean} us");
    assert!((400.0..1200.0).contains(&p999), "P99.9 {p999} us");
    let mut r = job(&e, "read", 128 << 10, 32);
    r.bound.bytes = Some(e.capacity_bytes() / 2);
    let s = run(&mut e, &r);
    let o = &s.ops[&Op::Read];
    let (p50, p999) = (o.quantile(0.5), o.quantile(0.999));
    println!("sequential 128 KiB reads at QD 32: p50 {p50} ns, p99.9 {p999} ns");
    assert!(p999 as f64 > p50 as f64 * 1.1, "p50 {p50} p99.9 {p999}");
}
