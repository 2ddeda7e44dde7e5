//! `write-over-time` (what-does-the-ftl-do, section 5.4 and Figure 5.9): a fresh drive written
//! sequentially at a high queue depth and a large request size, its throughput per 0.5% of the
//! drive written, and where it falls. A drive with an SLC cache writes at the cache's speed
//! until the cache is full, then at the native cells' speed; the thesis found the fall after
//! about 5%, 15% and 5% of its three NAND drives, and none on the 3D XPoint one.
//!
//! A fall is the first segment below 3/4 of the throughput so far (the median of the segments
//! before it, since the previous fall or, for the first, leaving out the first 1% of the drive,
//! which a DRAM write buffer may take at the link's speed) with the median of the next 2% and
//! of all the segments after it below that too, so one slow segment is not a fall. Every fall
//! is found (a drive may fold its SLC cache, then slow again once its free blocks run out),
//! each placed in the scaled drive and in the full-size drive it stands for.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::Op;

use super::bench::{values, Bench};
use super::ftl_writes::segments;
use crate::observe::Unit;
use crate::target::SuiteError;

/// Points of the write: one per 0.5% of the drive.
pub const SEGMENTS: u64 = 200;
/// Segments left out of the throughput so far (the first 1% of the drive).
const SKIP: usize = 2;
/// Request size and queue depth: large and deep, the thesis's best case.
const BS: u64 = 1 << 20;
const QD: u32 = 64;
/// Segments from a fall on whose median must be below it too (2% of the drive).
const LASTING: usize = 4;
/// A throughput below this share of the one before is a fall.
const FALL: f64 = 0.75;
/// Time series resolution: fine enough for 200 segments of a short write.
const INTERVAL_NS: u64 = 5_000_000;

pub const SERIES: &str = "sequential write";
/// The whole write's figures, one point.
pub const WHOLE: &str = "whole write";

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    // The segments, and the whole write's point.
    b.plan(SEGMENTS as usize + 1);
    b.begin("reset, sequential write", Unit::Bytes, b.capacity() as f64);
    b.reset()?;
    let mut j = b.job("write", "seq", BS, QD);
    j.bound.bytes = Some(j.range_bytes);
    j.series_interval_ns = INTERVAL_NS;
    let total = j.range_bytes;
    let m = b.run(j)?;
    if b.stopped() {
        return Ok(());
    }
    let segs = segments(&m.stats.series, m.stats.series_interval_ns, total, SEGMENTS);
    let seg_gib = total as f64 / SEGMENTS as f64 / (1u64 << 30) as f64;
    for (i, mb_s) in segs.into_iter().enumerate() {
        let pct = (i as f64 + 1.0) * 100.0 / SEGMENTS as f64;
        let v = values(&[
            ("mb_s", Some(mb_s)),
            ("written_gib", Some(seg_gib * (i + 1) as f64)),
        ]);
        let secs = (total / SEGMENTS) as f64 / 1e6 / mb_s;
        b.derived_point(SERIES, pct, format!("{pct:.1}%"), v, Some(secs));
    }
    let full = b.target().identity().full_capacity_bytes;
    b.derived_point(
        WHOLE,
        100.0,
        "the drive".to_string(),
        values(&[
            ("write_mb_s", m.mb_s(Op::Write)),
            ("waf", m.waf),
            ("seconds", Some(m.seconds())),
            ("drive_gib", Some(total as f64 / (1u64 << 30) as f64)),
            (
                "full_size_gib",
                full.map(|f| f as f64 / (1u64 << 30) as f64),
            ),
        ]),
        Some(m.seconds()),
    );
    Ok(())
}

fn median(v: &[f64]) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    Some(s[s.len() / 2])
}

/// The first fall from segment `from` on: (index of the first fallen segment, the median MB/s
/// from `from` to it, and the median MB/s from it on).
fn fall_from(mb_s: &[f64], from: usize) -> Option<(usize, f64, f64)> {
    // A fall lasts LASTING segments at least: one in the last 2% of the drive cannot show it.
    (from + 1..mb_s.len().saturating_sub(LASTING - 1)).find_map(|i| {
        let before = median(&mb_s[from..i])?;
        let next = median(&mb_s[i..(i + LASTING).min(mb_s.len())])?;
        let after = median(&mb_s[i..])?;
        (mb_s[i] < FALL * before && next < FALL * before && after < FALL * before)
            .then_some((i, before, after))
    })
}

/// Every fall, in order: each the first from the one before it on.
pub fn falls(mb_s: &[f64]) -> Vec<(usize, f64, f64)> {
    let mut out = Vec::new();
    let mut from = SKIP;
    while let Some(f) = fall_from(mb_s, from) {
        // The fallen segment is part old speed, part new: the next baseline starts after it.
        from = f.0 + 1;
        out.push(f);
    }
    out
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let pts: Vec<&StudyPoint> = points.iter().filter(|p| p.series == SERIES).collect();
    let mb_s: Vec<f64> = pts
        .iter()
        .map(|p| p.values.get("mb_s").copied().unwrap_or(f64::NAN))
        .collect();
    let whole = points.iter().find(|p| p.series == WHOLE);
    // Results of an earlier version kept the whole write's figures on the last segment.
    let of_whole = |k: &str| {
        whole
            .and_then(|p| p.values.get(k))
            .or_else(|| pts.last().and_then(|p| p.values.get(k)))
            .copied()
    };
    if let Some(w) = of_whole("write_mb_s") {
        result.insert("write_mb_s".into(), w);
    }
    let full_gib = of_whole("full_size_gib");
    let seg_gib = pts
        .first()
        .and_then(|p| p.values.get("written_gib"))
        .copied()
        .unwrap_or(f64::NAN);
    let all = falls(&mb_s);
    for (n, &(i, initial, after)) in all.iter().enumerate() {
        // Where in the fallen segment the speed changed: a share f of it at the speed before
        // and the rest at the speed after gives its time, so its throughput.
        let f = ((1.0 / mb_s[i] - 1.0 / after) / (1.0 / initial - 1.0 / after)).clamp(0.0, 1.0);
        let share = (i as f64 + f) / SEGMENTS as f64;
        let gib = seg_gib * (i as f64 + f);
        let full = full_gib
            .map(|g| format!(", {:.1} GiB of the full-size {g:.0} GiB drive", share * g))
            .unwrap_or_default();
        if n == 0 {
            result.insert("initial_mb_s".into(), initial);
            result.insert("fall_share".into(), share);
            result.insert("fall_gib".into(), gib);
            result.insert("after_fall_mb_s".into(), after);
            result.insert("after_over_initial".into(), after / initial);
        } else {
            result.insert(format!("fall{}_share", n + 1), share);
            result.insert(format!("fall{}_mb_s", n + 1), after);
        }
        findings.push(format!(
            "{} after {:.2}% of the drive is written ({gib:.2} GiB{full}): from {initial:.0} MB/s to {after:.0} MB/s ({:.0}% of it)",
            match n {
                0 => "throughput falls".to_string(),
                1 => "it falls again".to_string(),
                n => format!("it falls a {} time", ordinal(n + 1)),
            },
            share * 100.0,
            after / initial * 100.0
        ));
    }
    if all.is_empty() {
        let Some(initial) = mb_s.get(SKIP..).and_then(median) else {
            return (result, findings);
        };
        result.insert("initial_mb_s".into(), initial);
        let lo = mb_s
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .fold(f64::INFINITY, f64::min);
        result.insert("lowest_over_initial".into(), lo / initial);
        findings.push(format!(
            "no fall: every 0.5% of the drive is written at {:.0}% or more of the median {initial:.0} MB/s",
            lo / initial * 100.0
        ));
    }
    (result, findings)
}

fn ordinal(n: usize) -> String {
    match n {
        3 => "third".into(),
        n => format!("{n}th"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fall_is_a_lasting_drop_below_three_quarters() {
        let mut v = vec![7000.0, 7000.0];
        v.extend(vec![2000.0; 8]);
        v[4] = 1000.0; // one slow segment
        v.extend(vec![400.0; 30]);
        let (i, initial, after) = falls(&v)[0];
        assert_eq!((i, initial, after), (10, 2000.0, 400.0));
        assert!(falls(&[2000.0; 40]).is_empty());
        assert!(falls(&[2000.0]).is_empty());
    }

    #[test]
    fn every_fall_is_found() {
        // The cache's speed, the native one, then slower once free blocks run out.
        let mut v = vec![1300.0; 30];
        v.extend(vec![400.0; 130]);
        v.extend(vec![250.0; 40]);
        let f = falls(&v);
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!((f[0].0, f[0].1), (30, 1300.0));
        assert_eq!((f[1].0, f[1].1, f[1].2), (160, 400.0, 250.0));
        assert_eq!(falls(&[2000.0; 40]), vec![]);
    }
}
