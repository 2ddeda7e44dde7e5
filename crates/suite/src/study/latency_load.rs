//! `latency-load`: latency against write load (SSD-iq Figure 8). After a fill and a warm-up of
//! uniform random writes, and a settling stretch at the first level's rate, 4 KiB random writes
//! arrive as a Poisson process at 5% to 100% (or up to 200%) of the drive's random-write IOPS
//! (its datasheet figure, else the warm-up's measured rate; when asked, the rate of one more drive
//! write after the warm-up), with a read probe
//! and a write probe beside them at 1% of that rate each; per load: write latency (average,
//! P99, P99.999) of the load itself, and the probes' read and write latency. The conclusion
//! names the knee: the first level the drive does not keep up with.

use std::collections::BTreeMap;

use ssdiq_engine::{Arrivals, Job, Probe};
use ssdiq_schema::StudyPoint;
use ssdiq_workload::units::Rate;
use ssdiq_workload::Op;

use super::bench::{values, Bench};
use crate::observe::Unit;
use crate::target::SuiteError;

const BS: u64 = 4096;
/// In flight at most: enough for an open-loop load at the full rate to queue, as an
/// application's would, when the drive stalls.
const QD: u32 = 256;

/// In flight at most per probe: the SSD-iq artifact's latency thread has the job's queue
/// depth (iob.cpp's `--latencythread`, IO_DEPTH=64 in benchlat.sh). At QD 1 an open-loop
/// probe would charge one slow read (a read-retry of 2 ms) to the probes due behind it too.
const PROBE_QD: u32 = 64;

/// Levels above 100% offered with `--max-load`.
const ABOVE: [u32; 7] = [110, 120, 130, 140, 150, 175, 200];

/// A level at which the drive completes less than this share of the offered writes is past
/// the knee.
const KEPT_UP: f64 = 0.95;
/// ... as is one whose average write latency is this many times the lowest level's.
const QUEUED: f64 = 10.0;

/// What the levels are shares of, and how far they go.
#[derive(Clone, Copy, Debug)]
pub struct Levels {
    /// The drive's random-write IOPS (datasheet), if known.
    pub spec_iops: Option<f64>,
    /// The highest level, percent (100 to 200).
    pub max_percent: f64,
    /// 100% is the drive's own rate (over a drive write after the warm-up), whatever the
    /// datasheet says.
    pub own: bool,
}

fn loads(quick: bool, max_percent: f64) -> Vec<u32> {
    let base: &[u32] = if quick {
        &[10, 50, 100]
    } else {
        &[5, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 100]
    };
    let above: &[u32] = if quick { &[150, 200] } else { &ABOVE };
    let mut v: Vec<u32> = base
        .iter()
        .chain(above)
        .copied()
        .filter(|&l| l as f64 <= max_percent)
        .collect();
    let top = max_percent.round() as u32;
    if v.last() != Some(&top) && top > 0 {
        v.push(top);
        v.sort_unstable();
        v.dedup();
    }
    v
}

/// Seconds per load level on the target's clock, and of the warm-up in drive writes.
fn lengths(quick: bool) -> (f64, f64) {
    if quick {
        (2.0, 0.5)
    } else {
        (20.0, 1.0)
    }
}

/// The open-loop write load at `iops` for `secs`, with the probes at `probe_iops` each.
fn load_job(b: &mut Bench<'_>, iops: f64, secs: f64, probe_iops: f64) -> Job {
    let mut j = b.job("randwrite", "uniform", BS, QD);
    j.bound.time_ns = Some((secs * 1e9) as u64);
    j.rate = Some(Rate::IoPerSec(iops));
    j.arrivals = Arrivals::Poisson;
    j.probes = vec![Probe::READ, Probe::WRITE];
    j.probe_rate = Some(Rate::IoPerSec(probe_iops));
    j.probe_qd = PROBE_QD;
    j
}

pub const SERIES: &str = "write load";

/// The settling stretch's points.
pub const SETTLE: &str = "settle";

pub fn run(b: &mut Bench<'_>, levels: Levels) -> Result<(), SuiteError> {
    let (secs, warm) = lengths(b.quick);
    let loads = loads(b.quick, levels.max_percent);
    b.plan(loads.len() + 2);
    b.begin(
        "fill and warm-up",
        Unit::Bytes,
        b.capacity() as f64 * (1.0 + warm),
    );
    b.reset()?;
    b.fill()?;
    if b.stopped() {
        return Ok(());
    }
    let mut j = b.job("randwrite", "uniform", BS, 32);
    j.bound.bytes = Some(((j.range_bytes as f64 * warm) as u64).next_multiple_of(BS));
    let m = b.run(j)?;
    if b.stopped() {
        return Ok(());
    }
    let mut measured_iops = m.kiops(Op::Write).map(|k| k * 1e3);
    if levels.own {
        // The warm-up's rate is above the sustained one (its WA is still rising: emu:default
        // 4.0 against 4.95 steady), which put every knee at 100%: the own rate is that of
        // the next drive write, with GC at its steady share (greedy's WA is steady within
        // about two drive writes).
        let mut j = b.job("randwrite", "uniform", BS, 32);
        j.bound.bytes = Some(j.range_bytes);
        let m = b.run(j)?;
        if b.stopped() {
            return Ok(());
        }
        measured_iops = m.kiops(Op::Write).map(|k| k * 1e3);
    }
    // 1: the datasheet's rate; 0: the warm-up's, for want of one; 2: the warm-up's, asked for.
    let (full, basis) =
        match (levels.spec_iops.filter(|_| !levels.own), measured_iops) {
            (Some(s), _) => (s, 1.0),
            (None, Some(m)) => (m, if levels.own { 2.0 } else { 0.0 }),
            (None, None) => return Err(SuiteError::Invalid(
                "latency-load: the warm-up wrote nothing, so there is no rate to load the drive at"
                    .into(),
            )),
        };
    b.point(
        "warm-up",
        0.0,
        "warm-up",
        values(&[
            ("waf", m.waf),
            ("write_kiops", m.kiops(Op::Write)),
            ("full_load_iops", Some(full)),
            ("full_load_from_spec", Some(basis)),
        ]),
    );
    let probe_iops = (full * 0.01).max(10.0);
    // What the warm-up left in the write buffer, and the GC it owes, is paid at the first
    // level's rate before anything is measured: else the first level's window holds the
    // warm-up's writes too (a WA of 10 where the drive's is 5, a tail from the drain).
    let first = loads[0] as f64 / 100.0 * full;
    b.begin(
        format!("settling at {}% load", loads[0]),
        Unit::Seconds,
        2.0 * secs,
    );
    let j = load_job(b, first, 2.0 * secs, probe_iops);
    let s = b.run(j)?;
    if b.stopped() {
        return Ok(());
    }
    b.point(
        SETTLE,
        loads[0] as f64,
        format!("settle {}%", loads[0]),
        values(&[("waf", s.waf), ("write_kiops", s.kiops(Op::Write))]),
    );
    for &load in &loads {
        if b.stopped() {
            return Ok(());
        }
        b.begin(format!("{load}% load"), Unit::Seconds, secs);
        let iops = full * load as f64 / 100.0;
        let j = load_job(b, iops, secs, probe_iops);
        let m = b.run(j)?;
        if b.stopped() {
            return Ok(());
        }
        let v = values(&[
            ("load_percent", Some(load as f64)),
            ("offered_kiops", Some(iops / 1e3)),
            ("write_kiops", m.kiops(Op::Write)),
            ("write_avg_us", m.mean_us(Op::Write)),
            ("write_p99_us", m.quantile_us(Op::Write, 0.99)),
            ("write_p999_us", m.quantile_us(Op::Write, 0.999)),
            ("write_p99999_us", m.quantile_us(Op::Write, 0.99999)),
            ("read_probe_avg_us", m.probe_us(Op::Read, None)),
            ("read_probe_p99_us", m.probe_us(Op::Read, Some(0.99))),
            ("read_probe_p99999_us", m.probe_us(Op::Read, Some(0.99999))),
            ("write_probe_avg_us", m.probe_us(Op::Write, None)),
            ("write_probe_p99_us", m.probe_us(Op::Write, Some(0.99))),
            ("waf", m.waf),
        ]);
        b.point(SERIES, load as f64, format!("{load}%"), v);
    }
    Ok(())
}

/// The first level the drive does not keep up with (see [`KEPT_UP`], [`QUEUED`]), with why;
/// `None` if it kept up with every level.
fn knee(levels: &[&StudyPoint]) -> Option<(f64, String)> {
    let g = |p: &StudyPoint, k: &str| p.values.get(k).copied();
    let base = levels.iter().filter_map(|p| g(p, "write_avg_us")).next()?;
    for p in levels {
        let (Some(offered), Some(done)) = (g(p, "offered_kiops"), g(p, "write_kiops")) else {
            continue;
        };
        if done < KEPT_UP * offered {
            return Some((
                p.x,
                format!("it completed {done:.1} of the {offered:.1} kIOPS offered"),
            ));
        }
        if let Some(avg) = g(p, "write_avg_us").filter(|a| *a > QUEUED * base) {
            return Some((
                p.x,
                format!("writes averaged {avg:.0} us, against {base:.0} us at the lowest level"),
            ));
        }
    }
    None
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let mut full = None;
    if let Some(w) = points.iter().find(|p| p.series == "warm-up") {
        if let Some(f) = w.values.get("full_load_iops") {
            result.insert("full_load_iops".into(), *f);
            full = Some(*f);
            let from = match w.values.get("full_load_from_spec").copied() {
                Some(1.0) => "the datasheet's random-write IOPS",
                Some(2.0) => "the drive's own sustained rate, over a drive write after the warm-up (--relative-to own)",
                _ => "the warm-up's measured random-write IOPS (no datasheet figure)",
            };
            findings.push(format!("100% load = {:.1} kIOPS, {from}", f / 1e3));
        }
    }
    let levels: Vec<&StudyPoint> = points.iter().filter(|p| p.series == SERIES).collect();
    if let Some(last) = levels.last() {
        match knee(&levels) {
            Some((at, why)) => {
                result.insert("knee_percent".into(), at);
                findings.push(format!(
                    "knee at {at:.0}% load{}: the first level the drive did not keep up with ({why})",
                    full.map(|f| format!(" ({:.1} kIOPS)", f * at / 100.0 / 1e3)).unwrap_or_default()
                ));
            }
            None => findings.push(format!(
                "no knee up to {:.0}%{}: the drive kept up with every level; --max-load (up to 200%) or --relative-to own looks further",
                last.x,
                full.map(|f| format!(" ({:.1} kIOPS)", f * last.x / 100.0 / 1e3)).unwrap_or_default()
            )),
        }
    }
    for p in &levels {
        let g = |k: &str| p.values.get(k).copied().unwrap_or(f64::NAN);
        findings.push(format!(
            "{} load: write avg {:.0} us, P99 {:.0} us, P99.999 {:.0} us; read probe avg {:.0} us, P99.999 {:.0} us; WAF {:.2}",
            p.x_label,
            g("write_avg_us"),
            g("write_p99_us"),
            g("write_p99999_us"),
            g("read_probe_avg_us"),
            g("read_probe_p99999_us"),
            g("waf")
        ));
    }
    (result, findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_reach_the_maximum_asked() {
        assert_eq!(loads(true, 100.0), [10, 50, 100]);
        assert_eq!(loads(true, 200.0), [10, 50, 100, 150, 200]);
        assert_eq!(loads(false, 120.0).last(), Some(&120));
        assert_eq!(loads(false, 160.0)[13..], [110, 120, 130, 140, 150, 160]);
    }

    fn level(x: f64, offered: f64, done: f64, avg: f64) -> StudyPoint {
        StudyPoint {
            series: SERIES.into(),
            x,
            x_label: format!("{x}%"),
            values: [
                ("offered_kiops".to_string(), offered),
                ("write_kiops".to_string(), done),
                ("write_avg_us".to_string(), avg),
            ]
            .into_iter()
            .collect(),
            target_s: 2.0,
        }
    }

    #[test]
    fn the_knee_is_the_first_level_not_kept_up_with() {
        let kept = [level(10.0, 7.0, 7.0, 11.0), level(100.0, 70.0, 69.5, 12.0)];
        let refs: Vec<&StudyPoint> = kept.iter().collect();
        assert_eq!(knee(&refs), None);
        let (_, f) = conclude(&kept);
        assert!(
            f.iter().any(|l| l.starts_with("no knee up to 100%")),
            "{f:?}"
        );
        let past = [
            level(10.0, 7.0, 7.0, 11.0),
            level(100.0, 70.0, 69.5, 12.0),
            level(150.0, 105.0, 80.0, 2000.0),
        ];
        let (r, f) = conclude(&past);
        assert_eq!(r.get("knee_percent"), Some(&150.0));
        assert!(
            f.iter().any(|l| l.starts_with("knee at 150% load")),
            "{f:?}"
        );
        // Queued writes alone make a knee (an open loop keeps the rate while latency grows).
        let queued = [
            level(5.0, 3.5, 3.5, 12.0),
            level(100.0, 70.0, 70.0, 209_000.0),
        ];
        let refs: Vec<&StudyPoint> = queued.iter().collect();
        assert_eq!(knee(&refs).map(|k| k.0), Some(100.0));
    }
}
