//! PTS Host Idle Recovery (HIR): after a purge, WIPC and 4 KiB random writes (T4Q32) in
//! rounds to steady state, bursts of 5 s of the same writes separated by idle waits of 5, 10,
//! 15, 25 and 50 s, 25 bursts per wait (quick: 3); then the writes without waits again (the
//! return to baseline). Reported: IOPS of every burst against time: does idle time let the
//! drive's background GC recover performance?

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::{rounds, run_cell, Cell, CellResult};
use crate::observe::Unit;
use crate::study::bench::{values, Bench};
use crate::target::SuiteError;

const WAITS_S: [u64; 5] = [5, 10, 15, 25, 50];
const BURST_S: f64 = 5.0;
pub const BASELINE: &str = "baseline (no wait)";

pub fn write_cell() -> Cell {
    Cell {
        series: "0/100".into(),
        x: 4.0,
        x_label: "4KiB".into(),
        read_pct: 0,
        random: true,
        bs: 4096,
        threads: 4,
        qd: 32,
    }
}

/// Purge, WIPC and rounds of 4 KiB random writes to steady state; false when stopped.
pub fn precondition_to_steady(b: &mut Bench<'_>) -> Result<bool, SuiteError> {
    if !super::purge_and_precondition(b)? {
        return Ok(false);
    }
    let cells = [write_cell()];
    Ok(rounds(b, &cells, "rw4k_iops", &|r: &[CellResult]| r[0].iops)?.is_some())
}

pub fn series(wait: u64) -> String {
    format!("wait {wait} s")
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let bursts = if b.quick { 3 } else { 25 };
    b.plan(1 + super::steady::MAX_ROUNDS + WAITS_S.len() * bursts + 1);
    if !precondition_to_steady(b)? {
        return Ok(());
    }
    let cell = write_cell();
    let mut t = 0.0;
    for wait in WAITS_S {
        for i in 1..=bursts {
            b.begin(
                format!("burst {i}/{bursts} before a {wait} s wait"),
                Unit::Seconds,
                BURST_S,
            );
            let Some(r) = run_cell(b, &cell, BURST_S)? else {
                return Ok(());
            };
            t += BURST_S;
            b.point(
                series(wait),
                t,
                format!("{t:.0} s"),
                values(&[("iops", Some(r.iops)), ("avg_us", Some(r.avg_us))]),
            );
            b.idle(wait * 1_000_000_000);
            if b.stopped() {
                return Ok(());
            }
            t += wait as f64;
        }
    }
    let secs = super::cell_s(b).max(BURST_S);
    b.begin("return to baseline", Unit::Seconds, secs);
    if let Some(r) = run_cell(b, &cell, secs)? {
        t += secs;
        b.point(
            BASELINE,
            t,
            format!("{t:.0} s"),
            values(&[("iops", Some(r.iops)), ("avg_us", Some(r.avg_us))]),
        );
    }
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let (mut result, mut findings) = super::conclude_steady(points);
    let steady = points
        .iter()
        .rfind(|p| p.series == super::TRACKING)
        .and_then(|p| p.values.get("ss_avg").copied());
    for wait in WAITS_S {
        let xs: Vec<f64> = points
            .iter()
            .filter(|p| p.series == series(wait))
            .filter_map(|p| p.values.get("iops").copied())
            .collect();
        if xs.is_empty() {
            continue;
        }
        let avg = xs.iter().sum::<f64>() / xs.len() as f64;
        result.insert(format!("wait_{wait}s_iops"), avg);
        let vs = steady
            .map(|s| format!(" ({:.2}x steady state)", avg / s))
            .unwrap_or_default();
        findings.push(format!(
            "bursts before {wait} s waits: {:.1} kIOPS{vs}",
            avg / 1e3
        ));
    }
    (result, findings)
}
