//! Writes records in each format's text layout, the way the original tools do, so tests can
//! make small traces of every kind.

#![allow(dead_code)]

use ssdiq_trace::{Format, TraceRecord};
use ssdiq_workload::Op;

/// Windows filetime of 2007-02-22, around when the MSR traces were taken.
pub const MSR_EPOCH: u64 = 128_166_372_003_061_629;

/// The line of `r` in `format`. Times are written in the format's unit (callers use
/// microsecond multiples so every format holds them exactly); `r.time_ns` is since the
/// trace's start, so absolute-time formats add an epoch.
pub fn line(format: Format, r: &TraceRecord, seq: u64) -> String {
    let rw = |long: bool| match (r.op, long) {
        (Op::Read, false) => "R",
        (Op::Read, true) => "Read",
        (_, false) => "W",
        (_, true) => "Write",
    };
    match format {
        Format::Msr => format!(
            "{},hm,{},{},{},{},{}",
            MSR_EPOCH + r.time_ns / 100,
            r.device,
            rw(true),
            r.offset,
            r.len,
            1234 + seq % 7
        ),
        Format::Alibaba => format!(
            "{},{},{},{},{}",
            r.device,
            rw(false),
            r.offset,
            r.len,
            1_577_808_000_000_000 + r.time_ns / 1000
        ),
        Format::Spc => format!(
            "{},{},{},{},{}.{:06}",
            r.device,
            r.offset / 512,
            r.len,
            rw(false).to_lowercase(),
            r.time_ns / 1_000_000_000,
            r.time_ns % 1_000_000_000 / 1000
        ),
        Format::Fiu => format!(
            "{} 3255 nfsd {} {} {} {} {} 8b5b6e2f9a9e3e6c0123456789abcdef",
            89_966_527_251_845 + r.time_ns,
            r.offset / 512,
            r.len / 512,
            rw(false),
            r.device >> 20,
            r.device & 0xfffff
        ),
        Format::Blkparse(_) => format!(
            "{:>3},{:<3} {:>2} {:>8} {:>5}.{:09} {:>5}  D {:>3} {} + {} [dd]",
            r.device >> 20,
            r.device & 0xfffff,
            seq % 2,
            seq + 1,
            r.time_ns / 1_000_000_000,
            r.time_ns % 1_000_000_000,
            697,
            rwbs(r.op),
            r.offset / 512,
            r.len / 512
        ),
        Format::FtraceBlk(_) => format!(
            "              dd-20357   [001] d..1.  {}.{:06}:   {},{}    D  {} {} + {} [dd]",
            100 + r.time_ns / 1_000_000_000,
            r.time_ns % 1_000_000_000 / 1000,
            r.device >> 20,
            r.device & 0xfffff,
            rwbs(r.op),
            r.offset / 512,
            r.len / 512
        ),
    }
}

fn rwbs(op: Op) -> &'static str {
    match op {
        Op::Read => "RS",
        Op::Write | Op::WriteZeroes => "WS",
        Op::Trim => "DS",
    }
}

/// A whole trace file's text; blkparse traces get queue events around each issue and the
/// summary at the end, as blkparse prints them.
pub fn text(format: Format, records: &[TraceRecord]) -> String {
    let mut s = String::new();
    if matches!(format, Format::FtraceBlk(_)) {
        s.push_str("# tracer: blk\n#\n");
    }
    for (i, r) in records.iter().enumerate() {
        let l = line(format, r, i as u64);
        if matches!(format, Format::Blkparse(_) | Format::FtraceBlk(_)) {
            // The queue and completion events of the same request, which the parser skips.
            s.push_str(&l.replacen("  D ", "  Q ", 1));
            s.push('\n');
            s.push_str(&l);
            s.push('\n');
            s.push_str(&l.replacen("  D ", "  C ", 1));
            s.push('\n');
        } else {
            s.push_str(&l);
            s.push('\n');
        }
    }
    if matches!(format, Format::Blkparse(_)) {
        s.push_str("CPU0 (7,0):\n Reads Queued:           2,        8KiB\t Writes Queued:           4,      256KiB\nTotal (7,0):\n Reads Queued:           2,        8KiB\nThroughput (R/W): 0KiB/s / 0KiB/s\nEvents (7,0): 30 entries\nSkips: 0 forward (0 -   0.0%)\n");
    }
    s
}

/// The device id a format gives `k`-th device in these tests.
pub fn device(format: Format, k: u32) -> u32 {
    match format {
        Format::Fiu | Format::Blkparse(_) | Format::FtraceBlk(_) => (8 << 20) | (k * 16),
        // MSR names devices (host, disk) and numbers them in order of appearance.
        Format::Msr => k,
        Format::Alibaba | Format::Spc => k,
    }
}
