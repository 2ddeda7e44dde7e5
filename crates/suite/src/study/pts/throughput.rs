//! PTS Throughput: sequential 128 KiB and 1024 KiB reads and writes (T1Q32) in rounds until
//! the 1024 KiB write bandwidth is steady (the spec runs each block size to its own steady
//! state; here one round holds all four); reported: MB/s over the window.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::{conclude_steady, kib, mix_label, record_window, rounds, size_label, Cell};
use crate::study::bench::Bench;
use crate::target::SuiteError;

fn cells() -> Vec<Cell> {
    let mut out = Vec::new();
    for r in [100, 0] {
        for k in [128u64, 1024] {
            let bs = k * 1024;
            out.push(Cell {
                series: mix_label(r),
                x: kib(bs),
                x_label: size_label(bs),
                read_pct: r,
                random: false,
                bs,
                threads: 1,
                qd: 32,
            });
        }
    }
    out
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let cells = cells();
    b.plan(1 + super::steady::MAX_ROUNDS + cells.len());
    if !super::purge_and_precondition(b)? {
        return Ok(());
    }
    let track = cells
        .iter()
        .position(|c| c.read_pct == 0 && c.bs == 1 << 20)
        .expect("1 MiB writes are a cell");
    let Some((all, check)) = rounds(b, &cells, "sw1m_mb_s", &|r| r[track].mb_s)? else {
        return Ok(());
    };
    record_window(b, &cells, &all, check);
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let (mut result, mut findings) = conclude_steady(points);
    for p in points.iter().filter(|p| p.series != super::TRACKING) {
        let what = if p.series == "100/0" { "read" } else { "write" };
        if let Some(m) = p.values.get("mb_s") {
            result.insert(format!("seq_{}_{what}_mb_s", p.x_label), *m);
            findings.push(format!(
                "sequential {} {what}s, T1Q32: {m:.0} MB/s",
                p.x_label
            ));
        }
    }
    (result, findings)
}
