//! PTS Cross Stimulus Recovery (XSR): after a purge and WIPC, 1 MiB sequential writes, then
//! 8 KiB random writes, then 1 MiB sequential writes again, each T1Q32; the spec runs them
//! 8, 6 and 8 hours; here each runs for a number of drive writes (2; quick: 0.5), the same
//! across drives of any size. Reported: throughput against time: how fast does sequential
//! performance recover after random writes?

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::Op;

use super::periods;
use crate::observe::Unit;
use crate::study::bench::{values, Bench};
use crate::target::SuiteError;

const PHASES: [(&str, &str, &str, u64); 3] = [
    ("1 sequential 1 MiB", "write", "seq", 1 << 20),
    ("2 random 8 KiB", "randwrite", "uniform", 8 << 10),
    ("3 sequential 1 MiB", "write", "seq", 1 << 20),
];

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let dw = if b.quick { 0.5 } else { 2.0 };
    b.plan(1 + PHASES.len() * 40);
    if !super::purge_and_precondition(b)? {
        return Ok(());
    }
    let mut t0 = 0.0;
    for (name, rw, pattern, bs) in PHASES {
        b.begin(
            format!("phase {name}"),
            Unit::Bytes,
            b.capacity() as f64 * dw,
        );
        let mut j = b.job(rw, pattern, bs, 32);
        j.bound.bytes = Some((j.range_bytes as f64 * dw) as u64 / bs * bs);
        j.series_interval_ns = 100_000_000;
        let m = b.run(j)?;
        if b.stopped() {
            return Ok(());
        }
        let ps = periods(&m, "write", 40);
        for (i, p) in ps.iter().enumerate() {
            let mut v = values(&[("mb_s", Some(p.bytes as f64 / 1e6 / p.seconds))]);
            if i + 1 == ps.len() {
                v.extend(values(&[
                    ("phase_mb_s", m.mb_s(Op::Write)),
                    ("phase_waf", m.waf),
                ]));
            }
            let t = t0 + p.end_s;
            b.derived_point(name, t, format!("{t:.1} s"), v, Some(p.seconds));
        }
        t0 += m.seconds();
    }
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    for (i, (name, ..)) in PHASES.iter().enumerate() {
        let ps: Vec<&StudyPoint> = points.iter().filter(|p| p.series == *name).collect();
        let Some(whole) = ps.last().and_then(|p| p.values.get("phase_mb_s")) else {
            continue;
        };
        result.insert(format!("phase_{}_mb_s", i + 1), *whole);
        let first = ps.first().and_then(|p| p.values.get("mb_s")).copied();
        findings.push(format!(
            "phase {name}: {whole:.0} MB/s on average{}",
            first
                .map(|f| format!(", {f:.0} MB/s in its first period"))
                .unwrap_or_default()
        ));
    }
    if let (Some(a), Some(c)) = (result.get("phase_1_mb_s"), result.get("phase_3_mb_s")) {
        findings.push(format!(
            "sequential writes after random ones: {:.0}% of their first phase",
            c / a * 100.0
        ));
    }
    (result, findings)
}
