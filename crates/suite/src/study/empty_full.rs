//! `empty-full`: the access-pattern set of ssd-db-centric-measurements (sequential, random
//! with each page once, skip-sequential; read and write; small pages for IOPS and 32 KiB for
//! bandwidth) on a test file at the start of the drive, first with the rest of the drive
//! empty, then after the whole drive has been written ("Slower when full?").

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::units::format_size;
use ssdiq_workload::Op;

use super::bench::{values, Bench, FILL_BS};
use super::sweep::seconds;
use crate::observe::Unit;
use crate::target::SuiteError;

pub const EMPTY: &str = "empty";
pub const FULL: &str = "full";

/// The paper's test file.
const TEST_FILE: u64 = 1 << 30;

/// (name, pattern): sequential, random (each page once), skip-sequential.
const PATTERNS: [(&str, &str); 3] = [
    ("seq", "seq"),
    ("random", "randperm"),
    ("skip-seq", "skipseq:0.5"),
];

fn sizes(quick: bool) -> &'static [u64] {
    if quick {
        &[4096]
    } else {
        &[4096, 32768]
    }
}

/// The test file: 1 GiB, or a quarter of a smaller drive, whole pages of every size.
pub fn test_file_bytes(capacity: u64) -> u64 {
    TEST_FILE.min(capacity / 4) / FILL_BS * FILL_BS
}

fn tests(quick: bool) -> Vec<(String, &'static str, &'static str, u64)> {
    let mut out = Vec::new();
    for &bs in sizes(quick) {
        for (name, pattern) in PATTERNS {
            for op in ["read", "write"] {
                out.push((format!("{name} {op} {}", format_size(bs)), pattern, op, bs));
            }
        }
    }
    out
}

fn run_tests(b: &mut Bench<'_>, state: &str, file: u64) -> Result<bool, SuiteError> {
    let secs = seconds(b.quick);
    for (i, (label, pattern, op, bs)) in tests(b.quick).into_iter().enumerate() {
        b.begin(format!("{state}: {label}"), Unit::Seconds, secs);
        let mut j = b.job(op, pattern, bs, 1);
        j.range_bytes = file;
        // One pass of the test file, or the point's time, whichever comes first.
        j.bound.bytes = Some(file);
        j.bound.time_ns = Some((secs * 1e9) as u64);
        let m = b.run(j)?;
        if b.stopped() {
            return Ok(false);
        }
        let o = if op == "read" { Op::Read } else { Op::Write };
        let v = values(&[
            ("mb_s", m.mb_s(o)),
            ("kiops", m.kiops(o)),
            ("avg_us", m.mean_us(o)),
            ("p99_us", m.quantile_us(o, 0.99)),
            ("max_us", m.quantile_us(o, 1.0)),
        ]);
        b.point(state, (i + 1) as f64, label, v);
    }
    Ok(true)
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let file = test_file_bytes(b.capacity());
    if file == 0 {
        return Err(SuiteError::Invalid(format!(
            "the empty-full study needs a drive of at least {} (4 x 512 KiB), got {} B",
            format_size(4 * FILL_BS),
            b.capacity()
        )));
    }
    b.plan(2 * tests(b.quick).len());
    // Empty: a fresh drive holding only the test file.
    b.begin(
        "empty drive: reset, write the test file",
        Unit::Bytes,
        file as f64,
    );
    b.reset()?;
    let mut j = b.job("write", "seq", FILL_BS, 4);
    j.range_bytes = file;
    j.bound.bytes = Some(file);
    b.run(j)?;
    if b.stopped() || !run_tests(b, EMPTY, file)? {
        return Ok(());
    }
    // Full: every block of the drive written (the test file's data is rewritten too).
    b.begin(
        "full drive: write the whole drive",
        Unit::Bytes,
        b.capacity() as f64,
    );
    b.fill()?;
    if b.stopped() {
        return Ok(());
    }
    run_tests(b, FULL, file)?;
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let mut worst: Option<(&str, f64)> = None;
    for e in points.iter().filter(|p| p.series == EMPTY) {
        let Some(f) = points.iter().find(|p| p.series == FULL && p.x == e.x) else {
            continue;
        };
        let (Some(me), Some(mf)) = (e.values.get("mb_s"), f.values.get("mb_s")) else {
            continue;
        };
        if *me <= 0.0 {
            continue;
        }
        let change = mf / me - 1.0;
        if worst.is_none_or(|(_, w)| change.abs() > w.abs()) {
            worst = Some((&e.x_label, change));
        }
    }
    if let Some((label, change)) = worst {
        result.insert("max_full_vs_empty_change".into(), change);
        findings.push(format!(
            "largest difference full against empty: {label}, {:+.0}% throughput",
            change * 100.0
        ));
        findings.push(if change.abs() < 0.1 {
            "no test differs by 10% or more between the empty and the full drive (the paper: no significant difference)".to_string()
        } else {
            "the full drive differs by 10% or more in at least one test (the paper found no significant difference)".to_string()
        });
    }
    (result, findings)
}
