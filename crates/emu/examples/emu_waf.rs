//! Steady-state WAF of emulated drives under write patterns: does a scaled drive behave like
//! the full-size one it stands for, and does skew raise naive greedy's WAF?
//!
//!   cargo run --release -p ssdiq-emu --example emu_waf -- PATTERNS TARGET [TARGET ...]
//!   e.g. emu_waf uniform,twozone:90/10,zipf:0.9 emu:default,capacity=2GiB emu:default,capacity=32GiB
//!
//! Per target and pattern, on a fresh drive: a sequential fill, WARM (default 3) drive writes of
//! 4 KiB writes of the pattern at QD 32, then MEASURE (default 2) more; WAF = media bytes /
//! host bytes over the measured ones (the drive's own counters), and the write rate in virtual time.

use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, FillMode, Job, RunControl};
use ssdiq_workload::{Pattern, RwMix};

fn env(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let patterns = args.next().expect("usage: emu_waf PATTERNS TARGET...");
    let (warm, measure) = (env("WARM", 3.0), env("MEASURE", 2.0));
    println!("# WAF over {measure} drive writes after a fill and {warm} drive writes, 4 KiB QD 32");
    for target in args {
        for pattern in patterns.split(',') {
            let mut e = EmuExecutor::open(&target).unwrap_or_else(|err| panic!("{err}"));
            let cap = e.capacity_bytes();
            let mut j = Job::new("emu", RwMix::parse("randwrite").unwrap(), 4096, cap);
            j.pattern = Pattern::parse(pattern).unwrap_or_else(|err| panic!("{err}"));
            j.qd = env("QD", 32.0) as u32;
            j.fill = Some(FillMode::Seq);
            j.bound.bytes = Some((cap as f64 * warm) as u64);
            e.run(&j, &RunControl::default()).unwrap();
            j.fill = None;
            j.bound.bytes = Some((cap as f64 * measure) as u64);
            let s = e.run(&j, &RunControl::default()).unwrap();
            let ios: u64 = s.ops.values().map(|o| o.ios).sum();
            println!(
                "{target:<40} {pattern:<16} WAF {:.4}  {:.2} kIOPS",
                s.counters.waf().unwrap(),
                ios as f64 / s.elapsed_ns as f64 * 1e6
            );
        }
    }
}
