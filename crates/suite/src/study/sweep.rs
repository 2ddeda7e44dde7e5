//! `block-size` and `queue-depth`: throughput and latency of the four basic access patterns
//! against request size (io-access-patterns-ssd, Figure 2 style) and of random 4 KiB reads
//! and writes against queue depth (ssd-db-centric-measurements). Reads run on the filled drive
//! before any random write; random writes follow a warm-up of uniform random writes, so they
//! run in the steady state.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::units::format_size;
use ssdiq_workload::Op;

use super::bench::{values, Bench};
use crate::observe::Unit;
use crate::target::SuiteError;

/// Target seconds of a timed point (quick: 0.5 s, else 5 s).
pub fn seconds(quick: bool) -> f64 {
    if quick {
        0.5
    } else {
        5.0
    }
}

pub fn warm_drive_writes(quick: bool) -> f64 {
    if quick {
        0.5
    } else {
        1.0
    }
}

fn block_sizes(quick: bool) -> Vec<u64> {
    let kib: &[u64] = if quick {
        &[4, 64, 1024]
    } else {
        &[4, 8, 16, 32, 64, 128, 256, 512, 1024]
    };
    kib.iter().map(|k| k * 1024).collect()
}

fn queue_depths(quick: bool) -> &'static [u32] {
    if quick {
        &[1, 8, 64]
    } else {
        &[1, 2, 4, 8, 16, 32, 64, 128, 256]
    }
}

pub fn prepare(b: &mut Bench<'_>) -> Result<bool, SuiteError> {
    b.begin("fill", Unit::Bytes, b.capacity() as f64);
    b.reset()?;
    b.fill()?;
    Ok(!b.stopped())
}

fn warm(b: &mut Bench<'_>) -> Result<bool, SuiteError> {
    let dw = warm_drive_writes(b.quick);
    b.begin(
        "random-write warm-up",
        Unit::Bytes,
        b.capacity() as f64 * dw,
    );
    let mut j = b.job("randwrite", "uniform", 4096, 32);
    j.bound.bytes = Some(((j.range_bytes as f64 * dw) as u64).next_multiple_of(4096));
    b.run(j)?;
    Ok(!b.stopped())
}

/// One point's job: `threads` submitters of `qd` each (with more than one, each on its own
/// region), `pattern` (default: uniform for rand* mixes, seq otherwise) over the first `range`
/// bytes (default: the whole drive), for `seconds` (default: the study's point length).
#[derive(Clone, Copy)]
pub struct Shape<'s> {
    pub rw: &'s str,
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
    pub pattern: Option<&'s str>,
    pub range: Option<u64>,
    pub seconds: Option<f64>,
    /// First byte addressed; the range then ends where it would from 0, less a block.
    pub offset: u64,
}

impl<'s> Shape<'s> {
    pub fn new(rw: &'s str, bs: u64, qd: u32) -> Self {
        Shape {
            rw,
            bs,
            qd,
            threads: 1,
            pattern: None,
            range: None,
            seconds: None,
            offset: 0,
        }
    }

    pub fn offset(self, offset: u64) -> Self {
        Shape { offset, ..self }
    }

    pub fn threads(self, threads: u32) -> Self {
        Shape { threads, ..self }
    }

    pub fn pattern(self, pattern: &'s str) -> Self {
        Shape {
            pattern: Some(pattern),
            ..self
        }
    }

    pub fn range(self, range: u64) -> Self {
        Shape {
            range: Some(range),
            ..self
        }
    }

    pub fn seconds(self, seconds: f64) -> Self {
        Shape {
            seconds: Some(seconds),
            ..self
        }
    }
}

fn measure(
    b: &mut Bench<'_>,
    rw: &str,
    bs: u64,
    qd: u32,
    x: f64,
    x_label: String,
) -> Result<bool, SuiteError> {
    measure_shape(b, &Shape::new(rw, bs, qd), rw, x, x_label)
}

/// Measures one point of `shape` and records it in `series`.
pub fn measure_shape(
    b: &mut Bench<'_>,
    shape: &Shape<'_>,
    series: &str,
    x: f64,
    x_label: String,
) -> Result<bool, SuiteError> {
    let Shape {
        rw,
        bs,
        qd,
        threads,
        ..
    } = *shape;
    let secs = shape.seconds.unwrap_or(seconds(b.quick));
    b.begin(format!("{series} {x_label}"), Unit::Seconds, secs);
    let pattern = match shape.pattern {
        Some(p) => p,
        None if rw.starts_with("rand") => "uniform",
        None => "seq",
    };
    let mut j = b.job(rw, pattern, bs, qd);
    if let Some(r) = shape.range {
        j.range_bytes = r / bs * bs;
    }
    if shape.offset > 0 {
        j.offset_bytes = shape.offset;
        j.range_bytes = (j.range_bytes - bs.min(j.range_bytes)) / bs * bs;
    }
    j.threads = threads;
    j.own_regions = threads > 1;
    // Time alone bounds the point: on a small device a pass of the range ends far sooner.
    j.bound.bytes = None;
    j.bound.time_ns = Some((secs * 1e9) as u64);
    let m = b.run(j)?;
    if b.stopped() {
        return Ok(false);
    }
    let op = if rw.contains("read") {
        Op::Read
    } else {
        Op::Write
    };
    let v = values(&[
        ("mb_s", m.mb_s(op)),
        ("kiops", m.kiops(op)),
        ("avg_us", m.mean_us(op)),
        ("p99_us", m.quantile_us(op, 0.99)),
        ("p999_us", m.quantile_us(op, 0.999)),
        ("waf", if op == Op::Write { m.waf } else { None }),
    ]);
    b.point(series, x, x_label, v);
    Ok(true)
}

pub const BS_QD: u32 = 32;

pub fn run_block_size(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let sizes = block_sizes(b.quick);
    b.plan(4 * sizes.len());
    if !prepare(b)? {
        return Ok(());
    }
    for rw in ["read", "randread", "write"] {
        for &bs in &sizes {
            if !measure(b, rw, bs, BS_QD, bs as f64 / 1024.0, format_size(bs))? {
                return Ok(());
            }
        }
    }
    if !warm(b)? {
        return Ok(());
    }
    for &bs in &sizes {
        if !measure(
            b,
            "randwrite",
            bs,
            BS_QD,
            bs as f64 / 1024.0,
            format_size(bs),
        )? {
            return Ok(());
        }
    }
    Ok(())
}

pub fn run_queue_depth(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let qds = queue_depths(b.quick);
    b.plan(2 * qds.len());
    if !prepare(b)? {
        return Ok(());
    }
    for &qd in qds {
        if !measure(b, "randread", 4096, qd, qd as f64, format!("QD {qd}"))? {
            return Ok(());
        }
    }
    if !warm(b)? {
        return Ok(());
    }
    for &qd in qds {
        if !measure(b, "randwrite", 4096, qd, qd as f64, format!("QD {qd}"))? {
            return Ok(());
        }
    }
    Ok(())
}

/// The best throughput of each access pattern and where it is reached.
pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let mut series: Vec<&str> = points.iter().map(|p| p.series.as_str()).collect();
    series.dedup();
    for s in series {
        let best = points
            .iter()
            .filter(|p| p.series == s)
            .filter_map(|p| p.values.get("mb_s").map(|m| (p, *m)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((p, mb_s)) = best {
            result.insert(format!("{s}_best_mb_s"), mb_s);
            // Where it levels off: a flat curve's best is noise, its first point near it not.
            let near = points
                .iter()
                .filter(|q| q.series == s)
                .find(|q| q.values.get("mb_s").is_some_and(|m| *m >= 0.95 * mb_s))
                .filter(|q| q.x != p.x);
            let near = near
                .map(|q| format!(", within 5% of it from {}", q.x_label))
                .unwrap_or_default();
            findings.push(format!("{s}: best {mb_s:.0} MB/s at {}{near}", p.x_label));
        }
    }
    (result, findings)
}
