//! The drive's readahead (the 970 EVO Plus profile, issue 33): sequential reads come from
//! DRAM once the stream is detected, random reads never do, and a write into the chunks read
//! ahead sends the next reads back to flash.

use ssdiq_emu::EmuExecutor;

use crate::support::filled;
use ssdiq_engine::{Executor, Job, RunControl};
use ssdiq_workload::{Op, Pattern, RwMix};

/// Mean latency in us of `n` 4 KiB reads at QD 1 from `pattern`.
fn mean_read_us(e: &mut EmuExecutor, pattern: &str, n: u64) -> f64 {
    let mut j = Job::new(
        "emu",
        RwMix::parse("read").unwrap(),
        4096,
        e.capacity_bytes(),
    );
    j.pattern = Pattern::parse(pattern).unwrap();
    j.bound.bytes = Some(n * 4096);
    let s = e.run(&j, &RunControl::default()).unwrap();
    s.ops[&Op::Read].mean_ns() / 1e3
}

#[test]
fn sequential_reads_come_from_dram_and_random_ones_from_flash() {
    let mut on = filled("emu:970evoplus,capacity=1GiB", 30);
    let mut off = filled("emu:970evoplus,capacity=1GiB,readahead_kib=0", 30);
    let seq_on = mean_read_us(&mut on, "seq", 4096);
    let seq_off = mean_read_us(&mut off, "seq", 4096);
    let rnd_on = mean_read_us(&mut on, "uniform", 2000);
    let rnd_off = mean_read_us(&mut off, "uniform", 2000);
    // Hits cost the DRAM read and the link (2 + 1.2 us), not the flash path's 20 us firmware
    // time and a die read.
    assert!(seq_on < 6.0, "{seq_on}");
    assert!(seq_off > 20.0, "{seq_off}");
    assert!(
        (rnd_on - rnd_off).abs() < 0.02 * rnd_off,
        "{rnd_on} vs {rnd_off}"
    );
}

#[test]
fn a_write_into_the_chunks_read_ahead_drops_them() {
    let mut e = filled("emu:970evoplus,capacity=1GiB", 30);
    let _ = mean_read_us(&mut e, "seq", 8);
    // Rewrite the pages just ahead of the stream, let the write settle, continue the stream:
    // its next read goes to flash again (the stream restarts from it).
    let mut w = Job::new("emu", RwMix::parse("write").unwrap(), 4096, 4096);
    w.offset_bytes = 8 * 4096;
    w.pattern = Pattern::Seq;
    w.bound.bytes = Some(4096);
    e.run(&w, &RunControl::default()).unwrap();
    e.idle_for(1_000_000_000);
    let mut r = Job::new("emu", RwMix::parse("read").unwrap(), 4096, 4096);
    r.offset_bytes = 9 * 4096;
    r.pattern = Pattern::Seq;
    r.bound.bytes = Some(4096);
    let s = e.run(&r, &RunControl::default()).unwrap();
    assert!(s.ops[&Op::Read].mean_ns() / 1e3 > 20.0);
}
