//! `concurrency`: sequential and random reads by 1 to N concurrent jobs, each reading its own
//! region at QD 1 (io-access-patterns-ssd, section 4.3 and Figure 4): with one process the
//! random reads of small blocks lag far behind sequential ones; more processes close the gap.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::units::format_size;

use super::bench::{plural, Bench};
use super::sweep::{measure_shape, prepare, Shape};
use crate::target::SuiteError;

fn jobs(quick: bool) -> &'static [u32] {
    if quick {
        &[1, 4, 16]
    } else {
        &[1, 2, 4, 8, 16, 32]
    }
}

fn block_sizes(quick: bool) -> &'static [u64] {
    if quick {
        &[4096]
    } else {
        &[4096, 16384, 65536]
    }
}

fn series(rw: &str, bs: u64) -> String {
    format!("{rw} {}", format_size(bs))
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let (js, sizes) = (jobs(b.quick), block_sizes(b.quick));
    b.plan(2 * js.len() * sizes.len());
    if !prepare(b)? {
        return Ok(());
    }
    for &bs in sizes {
        for rw in ["read", "randread"] {
            for &threads in js {
                let shape = Shape::new(rw, bs, 1).threads(threads);
                let label = plural(threads as u64, "job");
                if !measure_shape(b, &shape, &series(rw, bs), threads as f64, label)? {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let mb_s = |series: &str, x: f64| {
        points
            .iter()
            .find(|p| p.series == series && p.x == x)
            .and_then(|p| p.values.get("mb_s").copied())
    };
    let most = points.iter().map(|p| p.x).fold(0.0, f64::max);
    for bs in [4096u64, 16384, 65536] {
        let (seq, rnd) = (series("read", bs), series("randread", bs));
        let size = format_size(bs);
        for (x, when) in [(1.0, "one job"), (most, "most jobs")] {
            if let (Some(s), Some(r)) = (mb_s(&seq, x), mb_s(&rnd, x)) {
                let key = if x == 1.0 { "1" } else { "max" };
                result.insert(format!("seq_over_random_{size}_jobs_{key}"), s / r);
                findings.push(format!(
                    "{size} reads, {when} ({x:.0}): sequential {s:.0} MB/s, random {r:.0} MB/s ({:.1}x)",
                    s / r
                ));
            }
        }
    }
    (result, findings)
}
