//! Measures an emulated drive the way a datasheet states it, and how fast the emulator runs.
//!
//!   cargo run --release -p ssdiq-emu --example emu_spec -- emu:default [emu:nosuspend ...]
//!
//! Per target: sequential write (128 KiB, QD 32, fresh drive, one capacity), sequential read
//! (128 KiB, QD 32, after it), random read (4 KiB, 4 x QD 32), QD 1 read and write latency on
//! the idle drive, then random write (4 KiB, QD 32) in steady state: after a fill and three drive
//! writes, measured over one more drive write, with its WAF and the implied-WAF check. The
//! last line per target is the emulator's speed: emulated I/Os per wall-clock second during
//! the steady-state random writes.

use std::time::Instant;

use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, Job, RunControl, Stats};
use ssdiq_flash::{fill_and_warm, Ftl, FtlConfig};
use ssdiq_workload::{Op, RwMix, SeededRng};

/// Host page writes per wall second of the plain FTL (what `ssdiq sim` runs) on the same
/// geometry and policy, in steady state: the baseline the emulator is compared with.
fn ftl_baseline(e: &EmuExecutor) -> f64 {
    let g = *e.drive().ftl().geometry();
    let mut ftl = Ftl::new(FtlConfig::new(g, e.drive().ftl().policy())).unwrap();
    let u = g.logical_pages;
    let mut rng = SeededRng::new(7);
    fill_and_warm(&mut ftl, 3, &mut rng);
    let t = Instant::now();
    for _ in 0..u {
        ftl.write(rng.below(u), 0);
    }
    u as f64 / t.elapsed().as_secs_f64()
}

fn job(cap: u64, rw: &str, bs: u64, qd: u32, threads: u32, bytes: u64) -> Job {
    let mut j = Job::new("emu", RwMix::parse(rw).unwrap(), bs, cap);
    j.qd = qd;
    j.threads = threads;
    j.bound.bytes = Some(bytes);
    j
}

fn run(e: &mut EmuExecutor, j: &Job) -> Stats {
    e.run(j, &RunControl::default()).unwrap()
}

fn rate(s: &Stats, op: Op) -> (f64, f64) {
    let o = &s.ops[&op];
    let secs = s.elapsed_ns as f64 / 1e9;
    (o.bytes as f64 / 1e6 / secs, o.ios as f64 / secs)
}

fn main() {
    for target in std::env::args().skip(1) {
        let mut e = EmuExecutor::open(&target).unwrap_or_else(|err| panic!("{err}"));
        let cap = e.capacity_bytes();
        println!("{target}: {}", e.description());
        let s = run(&mut e, &job(cap, "write", 128 << 10, 32, 1, cap));
        let seq_w = rate(&s, Op::Write).0;
        let s = run(&mut e, &job(cap, "read", 128 << 10, 32, 1, cap));
        let seq_r = rate(&s, Op::Read).0;
        let s = run(&mut e, &job(cap, "randread", 4096, 32, 4, cap / 8));
        let rr = rate(&s, Op::Read).1;
        let s = run(&mut e, &job(cap, "randread", 4096, 1, 1, 64 << 20));
        let rl = s.ops[&Op::Read].mean_ns() / 1e3;
        let s = run(&mut e, &job(cap, "randwrite", 4096, 1, 1, 64 << 20));
        let wl = s.ops[&Op::Write].mean_ns() / 1e3;
        run(&mut e, &job(cap, "randwrite", 4096, 32, 1, cap * 3));
        let j = job(cap, "randwrite", 4096, 32, 1, cap);
        let t = Instant::now();
        let s = run(&mut e, &j);
        let wall = t.elapsed().as_secs_f64();
        let (rw_mb, rw_iops) = rate(&s, Op::Write);
        let waf = s.counters.waf().unwrap();
        let ios = s.ops[&Op::Write].ios as f64;
        println!("  seq_read_mb_s = {seq_r:.0}");
        println!("  seq_write_mb_s = {seq_w:.0}");
        println!("  rand_read_kiops = {:.0}", rr / 1e3);
        println!("  rand_write_kiops = {:.1}  # steady state", rw_iops / 1e3);
        println!("  read_lat_us = {rl:.1}");
        println!("  write_lat_us = {wl:.1}");
        println!(
            "  steady-state WAF {waf:.3}; random write x WAF = {:.0} MB/s = {:.1}% of sequential",
            rw_mb * waf,
            rw_mb * waf / seq_w * 100.0
        );
        let base = ftl_baseline(&e);
        println!(
            "  emulator: {:.2} M emulated 4 KiB I/Os per wall second ({ios:.0} I/Os in {wall:.2} s); plain FTL write loop {:.2} M/s; ratio {:.2}",
            ios / wall / 1e6,
            base / 1e6,
            ios / wall / base
        );
    }
}
