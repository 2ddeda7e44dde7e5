//! PTS Latency: random reads, 65/35 mixes and writes of 4 KiB and 8 KiB (the spec's 0.5 KiB
//! left out, as in IOPS) at T1Q1, in rounds until the 4 KiB write average latency is steady;
//! reported: average, maximum and 99.999th-percentile response time over the window.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::{conclude_steady, Cell};
use crate::study::bench::Bench;
use crate::target::SuiteError;

fn cells() -> Vec<Cell> {
    let mut out = Vec::new();
    for r in [100, 65, 0] {
        for k in [8u64, 4] {
            let bs = k * 1024;
            out.push(Cell::grid(r, true, bs, 1, 1));
        }
    }
    out
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let cells = cells();
    super::steady_state_test(
        b,
        &cells,
        &|c| c.read_pct == 0 && c.bs == 4096,
        "rw4k_avg_us",
        |r| r.avg_us,
    )
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let (mut result, mut findings) = conclude_steady(points);
    for p in points
        .iter()
        .filter(|p| p.series != super::TRACKING && p.x == 4.0)
    {
        let (Some(a), Some(m), Some(f)) = (
            p.values.get("avg_us"),
            p.values.get("max_us"),
            p.values.get("p99999_us"),
        ) else {
            continue;
        };
        let key = p.series.replace('/', "_");
        result.insert(format!("rand_4k_{key}_avg_us"), *a);
        findings.push(format!(
            "4 KiB random {} (R/W), T1Q1: average {a:.1} us, 99.999% {f:.0} us, maximum {m:.0} us",
            p.series
        ));
    }
    (result, findings)
}
