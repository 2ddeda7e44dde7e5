//! `io-scheduler`: sequential and random reads against request size under each Linux I/O
//! scheduler the block device offers (io-access-patterns-ssd, section 4.2 and Figure 3): one
//! process at QD 1 gives a scheduler nothing to merge or reorder, so they should agree. The
//! device's own scheduler is put back at the end, also after an error or Ctrl-C.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::units::format_size;

use super::bench::Bench;
use super::scheduler::SchedulerGuard;
use super::sweep::{measure_shape, prepare, Shape};
use crate::target::SuiteError;

fn block_sizes(quick: bool) -> &'static [u64] {
    if quick {
        &[4096, 65536]
    } else {
        &[4096, 8192, 16384, 32768, 65536, 131072]
    }
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let device = b.target().job_target();
    let guard = SchedulerGuard::open(&device)?;
    let sizes = block_sizes(b.quick);
    b.plan(guard.available.len() * 2 * sizes.len());
    if !prepare(b)? {
        return Ok(());
    }
    for sched in guard.available.clone() {
        guard.set(&sched)?;
        for rw in ["read", "randread"] {
            for &bs in sizes {
                let shape = Shape::new(rw, bs, 1);
                let series = format!("{sched} {rw}");
                let x = bs as f64 / 1024.0;
                if !measure_shape(b, &shape, &series, x, format_size(bs))? {
                    return Ok(());
                }
            }
        }
    }
    drop(guard);
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let mut keys: Vec<(String, f64, String)> = Vec::new();
    for p in points {
        let rw = p.series.rsplit(' ').next().unwrap_or("").to_string();
        if !keys.iter().any(|(r, x, _)| *r == rw && *x == p.x) {
            keys.push((rw, p.x, p.x_label.clone()));
        }
    }
    let mut worst = 0.0f64;
    for (rw, x, label) in &keys {
        let at: Vec<(&str, f64)> = points
            .iter()
            .filter(|p| p.x == *x && p.series.ends_with(&format!(" {rw}")))
            .filter_map(|p| {
                let sched = p.series.split(' ').next()?;
                Some((sched, *p.values.get("mb_s")?))
            })
            .collect();
        let (Some(lo), Some(hi)) = (
            at.iter().map(|a| a.1).reduce(f64::min),
            at.iter().map(|a| a.1).reduce(f64::max),
        ) else {
            continue;
        };
        if at.len() < 2 || lo <= 0.0 {
            continue;
        }
        let spread = hi / lo - 1.0;
        worst = worst.max(spread);
        if *x == 4.0 {
            let each: Vec<String> = at.iter().map(|(s, m)| format!("{s} {m:.0}")).collect();
            findings.push(format!("{label} {rw}, MB/s: {}", each.join(", ")));
        }
    }
    if !keys.is_empty() {
        result.insert("max_spread".into(), worst);
        findings.push(format!(
            "largest difference between schedulers at any size: {:.1}%",
            worst * 100.0
        ));
    }
    (result, findings)
}
