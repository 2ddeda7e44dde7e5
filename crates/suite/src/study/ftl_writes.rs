//! The write experiments of what-does-the-ftl-do (sections 3.3.5 and 3.3.6):
//! - `random-fill`: the whole drive written once, one 4 KiB block at a time in a random order
//!   (every block exactly once), throughput per 5% of the drive and the share of requests
//!   over 1 ms (Figures 5.17, 5.18), beside a sequential fill; after each fill and a minute
//!   idle, sequential reads of one logical block at QD 64, the reads of §5.1 (read size 1
//!   block: 512 B on the thesis's Samsung) that §5.2 repeats on a randomly written drive;
//! - `data-dependence`: sequential writes at QD 64 of all-zero, all-one, 0xaa and LBA-stamped
//!   data, and the write-zeroes command, on a trimmed and on a full drive.

use std::collections::BTreeMap;

use ssdiq_schema::{JobSecond, StudyPoint};
use ssdiq_workload::{DataPattern, Op};

use super::bench::{values, Bench, FILL_BS};
use crate::observe::Unit;
use crate::target::SuiteError;

/// Points of a fill: one per 5% of the drive.
const SEGMENTS: u64 = 20;

/// The series of the reads after each fill.
const READS: &str = "sequential one-block reads, QD 64";

/// Seconds of the reads after each fill (quick: a tenth).
const READ_S: f64 = 2.0;

/// Idle seconds between a fill and its reads, so they meet a settled drive (an SLC cache
/// folded, the buffer programmed), as reads on a drive filled earlier do (quick: a tenth).
const SETTLE_S: f64 = 60.0;

/// Time series resolution of a fill, fine enough for 20 segments of a short fill.
const FILL_INTERVAL_NS: u64 = 50_000_000;

/// Throughput of each of `parts` equal parts of a write of `total` bytes, from the job's
/// write series (a segment's end interpolated within the interval it falls in).
pub(super) fn segments(series: &[JobSecond], interval_ns: u64, total: u64, parts: u64) -> Vec<f64> {
    let interval = interval_ns as f64 / 1e9;
    let seg = total / parts;
    let (mut done, mut next, mut seg_start_s) = (0u64, seg, 0.0);
    let mut out = Vec::new();
    for s in series.iter().filter(|s| s.stream == "write" && s.bytes > 0) {
        let rate = s.bytes as f64 / interval;
        let end = done + s.bytes;
        while seg > 0 && next <= end && out.len() < parts as usize {
            let t = s.second as f64 * interval + (next - done) as f64 / rate;
            out.push(seg as f64 / 1e6 / (t - seg_start_s).max(1e-12));
            seg_start_s = t;
            next += seg;
        }
        done = end;
    }
    out
}

fn fill_point_series(
    b: &mut Bench<'_>,
    series: &str,
    rw: &str,
    pattern: &str,
    bs: u64,
    qd: u32,
) -> Result<bool, SuiteError> {
    b.begin(
        format!("{series}: reset, fill"),
        Unit::Bytes,
        b.capacity() as f64,
    );
    b.reset()?;
    let mut j = b.job(rw, pattern, bs, qd);
    j.bound.bytes = Some(j.range_bytes);
    j.series_interval_ns = FILL_INTERVAL_NS;
    let total = j.range_bytes;
    let m = b.run(j)?;
    if b.stopped() {
        return Ok(false);
    }
    let segs = segments(&m.stats.series, m.stats.series_interval_ns, total, SEGMENTS);
    let last = segs.len().saturating_sub(1);
    for (i, mb_s) in segs.into_iter().enumerate() {
        let pct = (i as u64 + 1) * 100 / SEGMENTS;
        let mut v = values(&[("mb_s", Some(mb_s))]);
        if i == last {
            // The whole fill's figures ride on its last segment.
            let over_1ms = m
                .stats
                .ops
                .get(&Op::Write)
                .map(|o| o.over_1ms as f64 * 100.0 / o.ios.max(1) as f64);
            v.extend(values(&[
                ("fill_mb_s", m.mb_s(Op::Write)),
                ("fill_waf", m.waf),
                ("fill_s", Some(m.seconds())),
                ("fill_over_1ms_pct", over_1ms),
            ]));
        }
        let secs = (total / SEGMENTS) as f64 / 1e6 / mb_s;
        b.derived_point(series, pct as f64, format!("{pct}%"), v, Some(secs));
    }
    Ok(true)
}

pub fn run_random_fill(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    b.plan(2 * SEGMENTS as usize + 2);
    let fills: [(&str, &str, &str, u64, u32, &str, f64); 2] = [
        (
            "random order, 4 KiB, QD 1",
            "randwrite",
            "randperm",
            4096,
            1,
            "random",
            1.0,
        ),
        (
            "sequential, 512 KiB, QD 4",
            "write",
            "seq",
            FILL_BS,
            4,
            "sequential",
            2.0,
        ),
    ];
    for (series, rw, pattern, bs, qd, order, x) in fills {
        if !fill_point_series(b, series, rw, pattern, bs, qd)? {
            return Ok(());
        }
        if !reads_after_fill(b, order, x)? {
            return Ok(());
        }
    }
    Ok(())
}

/// After a fill and a minute idle: sequential reads of one logical block at QD 64, recorded
/// as point `x` of their own series (values `read_*`, apart from the fills' `mb_s`).
fn reads_after_fill(b: &mut Bench<'_>, order: &str, x: f64) -> Result<bool, SuiteError> {
    let tenth = if b.quick { 0.1 } else { 1.0 };
    let secs = READ_S * tenth;
    let label = format!("after the {order} fill");
    b.begin(format!("{READS} {label}"), Unit::Seconds, secs);
    b.idle((SETTLE_S * tenth * 1e9) as u64);
    let block = b.target().logical_block_bytes();
    let mut j = b.job("read", "seq", block, 64);
    j.bound.time_ns = Some((secs * 1e9) as u64);
    let m = b.run(j)?;
    if b.stopped() {
        return Ok(false);
    }
    let v = values(&[
        ("read_kiops", m.kiops(Op::Read)),
        ("read_mb_s", m.mb_s(Op::Read)),
        ("read_avg_us", m.mean_us(Op::Read)),
        ("read_p99_us", m.quantile_us(Op::Read, 0.99)),
        ("read_bs_bytes", Some(block as f64)),
    ]);
    b.point(READS, x, label, v);
    Ok(true)
}

pub fn conclude_random_fill(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let whole = |prefix: &str| {
        points
            .iter()
            .filter(|p| p.series.starts_with(prefix))
            .find_map(|p| Some((*p.values.get("fill_mb_s")?, p.values.get("fill_s").copied())))
    };
    let rnd = whole("random");
    let seq = whole("sequential");
    if let Some((r, secs)) = rnd {
        result.insert("random_fill_mb_s".into(), r);
        let took = secs.map(|s| format!(", {s:.0} s")).unwrap_or_default();
        findings.push(format!(
            "random-order fill: {r:.0} MB/s over the whole drive{took}"
        ));
    }
    if let (Some((r, _)), Some((s, _))) = (rnd, seq) {
        result.insert("sequential_over_random_fill".into(), s / r);
        findings.push(format!(
            "sequential fill: {s:.0} MB/s ({:.1}x the random order)",
            s / r
        ));
    }
    let over = points
        .iter()
        .filter(|p| p.series.starts_with("random"))
        .find_map(|p| p.values.get("fill_over_1ms_pct").copied());
    if let Some(o) = over {
        result.insert("random_fill_over_1ms_pct".into(), o);
        findings.push(format!(
            "random-order fill: {o:.1}% of its requests took over 1 ms"
        ));
    }
    let reads = |order: &str| {
        points
            .iter()
            .filter(|p| p.series == READS)
            .find(|p| p.x_label.contains(order))
            .and_then(|p| Some((*p.values.get("read_kiops")?, p.values.get("read_bs_bytes"))))
    };
    if let (Some((r, bs)), Some((s, _))) = (reads("random"), reads("sequential")) {
        result.insert("reads_after_random_over_sequential_fill".into(), r / s);
        let size = bs.map_or("one-block".into(), |&b| format_block(b as u64));
        findings.push(format!(
            "sequential {size} reads at QD 64: {r:.1} kIOPS after the random fill, {s:.1} kIOPS after the sequential fill ({:.2}x)",
            r / s
        ));
    }
    let segs: Vec<f64> = points
        .iter()
        .filter(|p| p.series.starts_with("random"))
        .filter_map(|p| p.values.get("mb_s").copied())
        .collect();
    if let (Some(first), Some(last)) = (segs.first(), segs.last()) {
        findings.push(format!(
            "random-order fill: first 5% at {first:.0} MB/s, last 5% at {last:.0} MB/s"
        ));
    }
    (result, findings)
}

/// A block size as a finding names it: `512 B`, `4 KiB`.
fn format_block(bytes: u64) -> String {
    if bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

/// (label, mix, data) of the data-dependence tests.
const DATA_TESTS: [(&str, &str, &str); 5] = [
    ("0x00", "write", "zeros"),
    ("0xff", "write", "ones"),
    ("0xaa", "write", "0xaa"),
    ("LBA-stamped", "write", "lba"),
    ("write-zeroes", "write-zeroes", "zeros"),
];

const DATA_BS: u64 = 128 * 1024;

pub fn run_data_dependence(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let secs = super::sweep::seconds(b.quick);
    b.plan(2 * DATA_TESTS.len());
    for (state, full) in [("trimmed", false), ("full", true)] {
        for (i, (label, rw, data)) in DATA_TESTS.iter().enumerate() {
            let planned = if full { b.capacity() as f64 } else { 0.0 };
            b.begin(format!("{state}: {label}"), Unit::Bytes, planned);
            b.reset()?;
            if full {
                b.fill()?;
                if b.stopped() {
                    return Ok(());
                }
            }
            let mut j = b.job(rw, "seq", DATA_BS, 64);
            j.data = DataPattern::parse(data).expect("studies name valid data patterns");
            j.bound.bytes = Some(j.range_bytes);
            j.bound.time_ns = Some((secs * 1e9) as u64);
            let m = b.run(j)?;
            if b.stopped() {
                return Ok(());
            }
            let op = if *rw == "write" {
                Op::Write
            } else {
                Op::WriteZeroes
            };
            let v = values(&[
                ("mb_s", m.mb_s(op)),
                ("avg_us", m.mean_us(op)),
                ("p99_us", m.quantile_us(op, 0.99)),
                ("waf", m.waf),
            ]);
            b.point(state, (i + 1) as f64, *label, v);
        }
    }
    Ok(())
}

pub fn conclude_data_dependence(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    for state in ["trimmed", "full"] {
        let writes: Vec<(&str, f64)> = points
            .iter()
            .filter(|p| p.series == state && p.x_label != "write-zeroes")
            .filter_map(|p| Some((p.x_label.as_str(), *p.values.get("mb_s")?)))
            .collect();
        let lo = writes.iter().map(|w| w.1).reduce(f64::min);
        let hi = writes.iter().map(|w| w.1).reduce(f64::max);
        if let (Some(lo), Some(hi)) = (lo, hi) {
            let spread = hi / lo - 1.0;
            result.insert(format!("{state}_data_spread"), spread);
            findings.push(format!(
                "{state} drive: the four data patterns write at {lo:.0} to {hi:.0} MB/s ({:.1}% apart)",
                spread * 100.0
            ));
        }
        if let Some(z) = points
            .iter()
            .find(|p| p.series == state && p.x_label == "write-zeroes")
            .and_then(|p| p.values.get("mb_s"))
        {
            result.insert(format!("{state}_write_zeroes_mb_s"), *z);
            findings.push(format!("{state} drive: write-zeroes at {z:.0} MB/s"));
        }
    }
    (result, findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(i: u64, bytes: u64) -> JobSecond {
        JobSecond {
            second: i,
            stream: "write".into(),
            ios: 1,
            bytes,
            iops: 0.0,
            mb_s: 0.0,
            lat_mean_ns: 0.0,
            lat_p99_ns: 0,
        }
    }

    #[test]
    fn segments_interpolate_within_intervals() {
        // 10 intervals of 1 s: 1 MB/s for the first half of the bytes, then 4 MB/s.
        let mut series: Vec<JobSecond> = (0..8).map(|i| second(i, 1_000_000)).collect();
        series.extend((8..10).map(|i| second(i, 4_000_000)));
        let segs = segments(&series, 1_000_000_000, 16_000_000, SEGMENTS);
        assert_eq!(segs.len(), 20);
        assert!((segs[0] - 1.0).abs() < 1e-9, "{segs:?}");
        assert!((segs[19] - 4.0).abs() < 1e-9, "{segs:?}");
    }
}
