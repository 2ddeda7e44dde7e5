//! PTS Demand Intensity / Response Time Histogram (DIRTH): after a purge, WIPC and 4 KiB
//! random writes to steady state, 4 KiB random I/O at read/write mixes 0/100, 65/35 and 100/0
//! over a matrix of thread counts x queue depths (1 to 32 each, the highest demand first);
//! reported: IOPS against response time for every demand, the highest IOPS and the demand
//! that reaches it.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::{mix_label, run_cell, Cell};
use crate::observe::Unit;
use crate::study::bench::{values, Bench};
use crate::target::SuiteError;

fn matrix(quick: bool) -> (&'static [u32], &'static [u32], &'static [u32]) {
    if quick {
        (&[0, 100], &[4, 1], &[32, 8, 1])
    } else {
        (&[0, 65, 100], &[32, 16, 8, 4, 2, 1], &[32, 16, 8, 4, 2, 1])
    }
}

pub fn series(read_pct: u32, threads: u32) -> String {
    format!("{} T{threads}", mix_label(read_pct))
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let (mixes, threads, qds) = matrix(b.quick);
    b.plan(1 + super::steady::MAX_ROUNDS + mixes.len() * threads.len() * qds.len());
    if !super::hir::precondition_to_steady(b)? {
        return Ok(());
    }
    let secs = super::cell_s(b);
    for &r in mixes {
        for &t in threads {
            for &q in qds {
                let cell = Cell {
                    series: series(r, t),
                    x: q as f64,
                    x_label: format!("Q{q}"),
                    read_pct: r,
                    random: true,
                    bs: 4096,
                    threads: t,
                    qd: q,
                };
                b.begin(cell.name(), Unit::Seconds, secs);
                let Some(res) = run_cell(b, &cell, secs)? else {
                    return Ok(());
                };
                let v = values(&[
                    ("iops", Some(res.iops)),
                    ("avg_us", Some(res.avg_us)),
                    ("max_us", Some(res.max_us)),
                    ("p99999_us", Some(res.p99999_us)),
                    ("outstanding", Some((t * q) as f64)),
                ]);
                b.point(cell.series, cell.x, cell.x_label, v);
            }
        }
    }
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let (mut result, mut findings) = super::conclude_steady(points);
    for r in [0u32, 65, 100] {
        let prefix = format!("{} T", mix_label(r));
        let best = points
            .iter()
            .filter(|p| p.series.starts_with(&prefix))
            .filter_map(|p| Some((p, *p.values.get("iops")?)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((p, iops)) = best {
            let key = mix_label(r).replace('/', "_");
            result.insert(format!("max_iops_{key}"), iops);
            findings.push(format!(
                "{} (R/W) 4 KiB: highest {:.1} kIOPS at T{} {} (average response {:.0} us)",
                mix_label(r),
                iops / 1e3,
                p.series.rsplit('T').next().unwrap_or(""),
                p.x_label,
                p.values.get("avg_us").copied().unwrap_or(f64::NAN)
            ));
        }
    }
    (result, findings)
}
