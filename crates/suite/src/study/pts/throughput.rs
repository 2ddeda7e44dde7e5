//! PTS Throughput: sequential 128 KiB and 1024 KiB reads and writes (T1Q32) in rounds until
//! the 1024 KiB write bandwidth is steady (the spec runs each block size to its own steady
//! state; here one round holds all four); reported: MB/s over the window.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::{conclude_steady, Cell};
use crate::study::bench::Bench;
use crate::target::SuiteError;

fn cells() -> Vec<Cell> {
    let mut out = Vec::new();
    for r in [100, 0] {
        for k in [128u64, 1024] {
            let bs = k * 1024;
            out.push(Cell::grid(r, false, bs, 1, 32));
        }
    }
    out
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let cells = cells();
    super::steady_state_test(
        b,
        &cells,
        &|c| c.read_pct == 0 && c.bs == 1 << 20,
        "sw1m_mb_s",
        |r| r.mb_s,
    )
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
