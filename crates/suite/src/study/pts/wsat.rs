//! PTS Write Saturation (WSAT): after a purge, 4 KiB random writes (T4Q32) without a break
//! for four times the capacity or 6 hours, whichever ends first (quick: twice the capacity);
//! reported: IOPS against time and against the total bytes written, from fresh out of the box
//! to saturation.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::Op;

use super::periods;
use crate::observe::Unit;
use crate::study::bench::{values, Bench};
use crate::target::SuiteError;

pub const SERIES: &str = "4 KiB random writes, T4Q32";

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    // Quick: two drive writes, enough to leave the fresh state (GC starts after about one).
    let dw = if b.quick { 2.0 } else { 4.0 };
    b.plan(1);
    b.begin(
        format!("purge, then {dw} drive writes of 4 KiB random writes"),
        Unit::Bytes,
        b.capacity() as f64 * dw,
    );
    b.reset()?;
    let mut j = b.job("randwrite", "uniform", 4096, 32);
    j.threads = 4;
    j.bound.bytes = Some((j.range_bytes as f64 * dw) as u64 / 4096 * 4096);
    j.bound.time_ns = Some(6 * 3600 * 1_000_000_000);
    j.series_interval_ns = 1_000_000_000;
    let m = b.run(j)?;
    if b.stopped() {
        return Ok(());
    }
    let capacity = b.capacity() as f64;
    let ps = periods(&m, "write", 300);
    let last = ps.len().saturating_sub(1);
    let mut written = 0u64;
    for (i, p) in ps.iter().enumerate() {
        written += p.bytes;
        let mut v = values(&[
            ("iops", Some(p.ios as f64 / p.seconds)),
            ("time_s", Some(p.end_s)),
            ("drive_writes", Some(written as f64 / capacity)),
        ]);
        if i == last {
            v.extend(values(&[
                ("waf", m.waf),
                ("iops_total", m.kiops(Op::Write).map(|k| k * 1e3)),
            ]));
        }
        b.derived_point(
            SERIES,
            written as f64 / 1e9,
            format!("{:.0} s", p.end_s),
            v,
            Some(p.seconds),
        );
    }
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let iops: Vec<f64> = points
        .iter()
        .filter_map(|p| p.values.get("iops").copied())
        .collect();
    if iops.is_empty() {
        return (result, findings);
    }
    let first = iops[0];
    // Saturated: the average of the last 5% of the periods (at least one).
    let tail = (iops.len() / 20).max(1);
    let sat = iops[iops.len() - tail..].iter().sum::<f64>() / tail as f64;
    result.insert("fob_iops".into(), first);
    result.insert("saturated_iops".into(), sat);
    findings.push(format!(
        "fresh out of the box: {:.1} kIOPS; saturated (last 5% of the periods): {:.1} kIOPS ({:.0}% of FOB)",
        first / 1e3,
        sat / 1e3,
        sat / first * 100.0
    ));
    if let Some(p) = points.last() {
        if let (Some(dw), Some(t)) = (p.values.get("drive_writes"), p.values.get("time_s")) {
            findings.push(format!("{dw:.1} drive writes in {t:.0} s"));
        }
        if let Some(w) = p.values.get("waf") {
            result.insert("waf".into(), *w);
            findings.push(format!("WAF over the whole test: {w:.2}"));
        }
    }
    (result, findings)
}
