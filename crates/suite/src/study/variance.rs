//! `variance`: run-to-run variance of the same measurement, repeated from a reset with a new
//! random stream each time (ssd-db-centric-measurements: results of one run are not those of
//! the next, and write latency varies by orders of magnitude within a run).

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::Op;

use super::bench::{values, Bench};
use super::sweep::{seconds, warm_drive_writes};
use crate::observe::Unit;
use crate::target::SuiteError;

pub const READ: &str = "randread 4KiB";
pub const WRITE: &str = "randwrite 4KiB";

fn repetitions(quick: bool) -> u32 {
    if quick {
        3
    } else {
        5
    }
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let reps = repetitions(b.quick);
    b.plan(2 * reps as usize);
    let dw = warm_drive_writes(b.quick);
    for rep in 1..=reps {
        let label = format!("run {rep}");
        b.begin(
            format!("{READ}, {label}: reset, fill, read"),
            Unit::Bytes,
            b.capacity() as f64,
        );
        b.reset()?;
        b.fill()?;
        if b.stopped() {
            return Ok(());
        }
        let mut j = b.job("randread", "uniform", 4096, 32);
        j.bound.bytes = None;
        j.bound.time_ns = Some((seconds(b.quick) * 1e9) as u64);
        let m = b.run(j)?;
        if b.stopped() {
            return Ok(());
        }
        b.point(
            READ,
            rep as f64,
            label.clone(),
            latency_values(&m, Op::Read),
        );
        b.begin(
            format!("{WRITE}, {label}"),
            Unit::Bytes,
            b.capacity() as f64 * dw,
        );
        let mut j = b.job("randwrite", "uniform", 4096, 32);
        j.bound.bytes = Some(((j.range_bytes as f64 * dw) as u64).next_multiple_of(4096));
        let m = b.run(j)?;
        if b.stopped() {
            return Ok(());
        }
        let mut v = latency_values(&m, Op::Write);
        v.extend(values(&[("waf", m.waf)]));
        b.point(WRITE, rep as f64, label, v);
    }
    Ok(())
}

fn latency_values(m: &super::bench::Measured, op: Op) -> BTreeMap<String, f64> {
    values(&[
        ("kiops", m.kiops(op)),
        ("avg_us", m.mean_us(op)),
        ("p50_us", m.quantile_us(op, 0.5)),
        ("p99_us", m.quantile_us(op, 0.99)),
        ("max_us", m.quantile_us(op, 1.0)),
    ])
}

/// Four significant digits at most: 233.4, 14642, 4.290.
fn short(v: f64) -> String {
    match v.abs() {
        a if a >= 1000.0 => format!("{v:.0}"),
        a if a >= 100.0 => format!("{v:.1}"),
        a if a >= 10.0 => format!("{v:.2}"),
        _ => format!("{v:.3}"),
    }
}

/// Mean and coefficient of variation (sample standard deviation over mean).
fn mean_cv(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean > 0.0).then(|| (mean, var.sqrt() / mean))
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    for (series, key, what) in [
        (READ, "kiops", "kIOPS"),
        (READ, "p99_us", "P99 [us]"),
        (WRITE, "kiops", "kIOPS"),
        (WRITE, "p99_us", "P99 [us]"),
        (WRITE, "waf", "WAF"),
    ] {
        let xs: Vec<f64> = points
            .iter()
            .filter(|p| p.series == series)
            .filter_map(|p| p.values.get(key).copied())
            .collect();
        if let Some((mean, cv)) = mean_cv(&xs) {
            let (lo, hi) = xs
                .iter()
                .fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(*x), h.max(*x)));
            let op = series.split(' ').next().unwrap_or(series);
            result.insert(format!("{op}_{key}_cv"), cv);
            findings.push(format!(
                "{series} {what}: mean {}, runs {} to {}, coefficient of variation {:.1}% ({} runs)",
                short(mean),
                short(lo),
                short(hi),
                cv * 100.0,
                xs.len()
            ));
        }
    }
    // Within a run: the spread of write latency (the paper's max/min of 200 to 500).
    let within: Vec<f64> = points
        .iter()
        .filter(|p| p.series == WRITE)
        .filter_map(|p| Some(p.values.get("max_us")? / p.values.get("p50_us")?))
        .collect();
    if let Some(worst) = within.iter().copied().reduce(f64::max) {
        result.insert("write_max_over_median".into(), worst);
        findings.push(format!(
            "within a run, the slowest write took {worst:.0}x the median write"
        ));
    }
    (result, findings)
}
