//! The read experiments of what-does-the-ftl-do (sections 3.3.1 to 3.3.3), on a sequentially
//! filled drive:
//! - `parallelism`: sequential reads of 1 to 4 blocks by 1, 2, 4 queues at QD 1 to 64;
//!
//! A block is the drive's logical block, as in the paper (512 B on its Samsung, whose
//! namespace was formatted so).
//! - `locality`: sequential against shuffled reads of a section of the drive, power-of-two
//!   sizes;
//! - `permuted`: reads permuted within windows of 2, 4, 8 blocks at QD twice the window,
//!   beside sequential and random reads at the same depth (does the drive reorder its queue?);
//! - `alignment`: sequential 1 MiB reads at QD 64 offset by powers of two (section 3.3.4).

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::units::format_size;

use super::bench::{plural, Bench};
use super::sweep::{measure_shape, prepare, Shape};
use crate::target::SuiteError;

/// The paper's 8 GiB section, or half of a smaller drive.
const SECTION: u64 = 8 << 30;

fn point_seconds(quick: bool) -> f64 {
    if quick {
        0.25
    } else {
        1.0
    }
}

pub fn run_parallelism(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let (queues, qds, sizes): (&[u32], &[u32], &[u64]) = if b.quick {
        (&[1, 4], &[1, 8, 64], &[1, 4])
    } else {
        (&[1, 2, 4], &[1, 2, 4, 8, 16, 64], &[1, 2, 3, 4])
    };
    b.plan(queues.len() * qds.len() * sizes.len());
    if !prepare(b)? {
        return Ok(());
    }
    let secs = point_seconds(b.quick);
    let block = b.target().logical_block_bytes();
    for &q in queues {
        for &n in sizes {
            let series = format!("{}, {}", plural(q as u64, "queue"), plural(n, "block"));
            for &qd in qds {
                let shape = Shape::new("read", n * block, qd).threads(q).seconds(secs);
                if !measure_shape(b, &shape, &series, qd as f64, format!("QD {qd}"))? {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

pub fn conclude_parallelism(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let kiops = |series: &str, qd: f64| {
        points
            .iter()
            .find(|p| p.series == series && p.x == qd)
            .and_then(|p| p.values.get("kiops").copied())
    };
    let one = "1 queue, 1 block";
    let max_qd = points.iter().map(|p| p.x).fold(0.0, f64::max);
    if let (Some(lo), Some(hi)) = (kiops(one, 1.0), kiops(one, max_qd)) {
        result.insert("qd_scaling".into(), hi / lo);
        findings.push(format!(
            "one queue, 1-block reads: {lo:.1} kIOPS at QD 1, {hi:.1} at QD {max_qd:.0} ({:.1}x)",
            hi / lo
        ));
    }
    let most_queues = points
        .iter()
        .filter_map(|p| p.series.split(' ').next()?.parse::<u32>().ok())
        .max()
        .unwrap_or(1);
    let many = format!("{most_queues} queues, 1 block");
    if let (Some(a), Some(m)) = (kiops(one, max_qd), kiops(&many, max_qd)) {
        result.insert("queue_scaling".into(), m / a);
        findings.push(format!(
            "at QD {max_qd:.0}, {most_queues} queues read {:.2}x the IOPS of one queue (the paper: queues add little)",
            m / a
        ));
    }
    (result, findings)
}

/// A request size or offset as the points name it: `512B`, `4KiB`, `1MiB`.
fn size_label(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes}B")
    } else {
        format_size(bytes)
    }
}

fn section(b: &Bench<'_>) -> u64 {
    SECTION.min(b.capacity() / 2) / (1 << 20) * (1 << 20)
}

pub fn run_locality(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    // Every power of two the drive takes, from its logical block (the paper: "all supported
    // read sizes that are a power of two").
    let first = b.target().logical_block_bytes().trailing_zeros().min(12);
    let sizes: Vec<u64> = if b.quick {
        let mut v = vec![1 << first, 4096, 65536, 1 << 20];
        v.dedup();
        v
    } else {
        (first..=20).map(|k| 1u64 << k).collect()
    };
    b.plan(2 * sizes.len());
    if !prepare(b)? {
        return Ok(());
    }
    let range = section(b);
    let secs = point_seconds(b.quick);
    for (series, pattern) in [("sequential", "seq"), ("shuffled", "randperm")] {
        for &bs in &sizes {
            let shape = Shape::new("read", bs, 1)
                .pattern(pattern)
                .range(range)
                .seconds(secs);
            let x = bs as f64 / 1024.0;
            if !measure_shape(b, &shape, series, x, size_label(bs))? {
                return Ok(());
            }
        }
    }
    Ok(())
}

pub fn conclude_locality(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    for p in points.iter().filter(|p| p.series == "sequential") {
        let Some(r) = points
            .iter()
            .find(|q| q.series == "shuffled" && q.x == p.x)
            .and_then(|q| q.values.get("mb_s"))
        else {
            continue;
        };
        let Some(s) = p.values.get("mb_s") else {
            continue;
        };
        if p.x == 4.0 {
            result.insert("seq_over_shuffled_4k".into(), s / r);
        }
        findings.push(format!(
            "{}: sequential {s:.0} MB/s, shuffled {r:.0} MB/s ({:.2}x)",
            p.x_label,
            s / r
        ));
    }
    (result, findings)
}

pub fn run_permuted(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let windows: &[u32] = if b.quick { &[2, 8] } else { &[2, 4, 8] };
    b.plan(3 * windows.len());
    if !prepare(b)? {
        return Ok(());
    }
    let range = section(b);
    let secs = point_seconds(b.quick);
    let block = b.target().logical_block_bytes();
    for &w in windows {
        let window = format!("window:{w}");
        for (series, pattern) in [
            ("sequential", "seq"),
            ("permuted", window.as_str()),
            ("random", "randperm"),
        ] {
            let shape = Shape::new("read", block, 2 * w)
                .pattern(pattern)
                .range(range)
                .seconds(secs);
            let label = format!("window {w}, QD {}", 2 * w);
            if !measure_shape(b, &shape, series, w as f64, label)? {
                return Ok(());
            }
        }
    }
    Ok(())
}

pub fn conclude_permuted(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let at = |series: &str, x: f64| {
        points
            .iter()
            .find(|p| p.series == series && p.x == x)
            .and_then(|p| p.values.get("kiops").copied())
    };
    for p in points.iter().filter(|p| p.series == "permuted") {
        let (Some(s), Some(m), Some(r)) = (
            at("sequential", p.x),
            at("permuted", p.x),
            at("random", p.x),
        ) else {
            continue;
        };
        // Where permuted reads fall between random (0) and sequential (1).
        let place = if (s - r).abs() > f64::EPSILON {
            (m - r) / (s - r)
        } else {
            f64::NAN
        };
        if place.is_finite() {
            result.insert(format!("permuted_place_window_{}", p.x), place);
        }
        findings.push(format!(
            "{}: sequential {s:.1}, permuted {m:.1}, random {r:.1} kIOPS{}",
            p.x_label,
            if place.is_finite() {
                format!(
                    " (permuted at {:.0}% of the way from random to sequential)",
                    place * 100.0
                )
            } else {
                " (sequential and random alike: nothing to reorder for)".into()
            }
        ));
    }
    (result, findings)
}

/// Request size of the alignment study (a common maximum transfer size).
const ALIGN_BS: u64 = 1 << 20;

pub fn run_alignment(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    // Offsets from the drive's logical block (a device or file that refuses some
    // nonetheless, below 4 KiB: those points are left out).
    let first = b.target().logical_block_bytes().trailing_zeros();
    let offsets: Vec<u64> = if b.quick {
        vec![1 << first, 1 << 16, ALIGN_BS / 2]
    } else {
        (first..20).map(|k| 1u64 << k).collect()
    };
    b.plan(offsets.len() + 1);
    if !prepare(b)? {
        return Ok(());
    }
    let secs = point_seconds(b.quick);
    let shape = Shape::new("read", ALIGN_BS, 64).seconds(secs);
    let x0 = offsets[0] as f64 / 1024.0;
    if !measure_shape(b, &shape, "aligned (offset 0)", x0, "offset 0".into())? {
        return Ok(());
    }
    for off in offsets {
        let label = size_label(off);
        match measure_shape(b, &shape.offset(off), "offset", off as f64 / 1024.0, label) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) if e.is_usage() && off < 4096 => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

pub fn conclude_alignment(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let aligned = points
        .iter()
        .find(|p| p.series.starts_with("aligned"))
        .and_then(|p| p.values.get("mb_s").copied());
    let worst = points
        .iter()
        .filter(|p| p.series == "offset")
        .filter_map(|p| Some((p, *p.values.get("mb_s")?)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(a), Some((p, w))) = (aligned, worst) {
        result.insert("worst_offset_over_aligned".into(), w / a);
        findings.push(format!("aligned 1 MiB reads at QD 64: {a:.0} MB/s"));
        findings.push(format!(
            "slowest offset: {} at {w:.0} MB/s ({:+.1}% against aligned)",
            p.x_label,
            (w / a - 1.0) * 100.0
        ));
    }
    (result, findings)
}
