//! `latency-load`: latency against write load (SSD-iq Figure 8). After a fill and a warm-up of
//! uniform random writes, 4 KiB random writes arrive as a Poisson process at 5% to 100% of the
//! drive's random-write IOPS (its datasheet figure, else the warm-up's measured rate), with a
//! read probe and a write probe beside them at 1% of that rate each; per load: write latency
//! (average, P99, P99.999) of the load itself, and the probes' read and write latency.

use std::collections::BTreeMap;

use ssdiq_engine::{Arrivals, Probe};
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

fn loads(quick: bool) -> &'static [u32] {
    if quick {
        &[10, 50, 100]
    } else {
        &[5, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 100]
    }
}

/// Seconds per load level on the target's clock, and of the warm-up in drive writes.
fn lengths(quick: bool) -> (f64, f64) {
    if quick {
        (2.0, 0.5)
    } else {
        (20.0, 1.0)
    }
}

pub const SERIES: &str = "write load";

/// `spec_iops`: the drive's random-write IOPS (datasheet), if known.
pub fn run(b: &mut Bench<'_>, spec_iops: Option<f64>) -> Result<(), SuiteError> {
    let (secs, warm) = lengths(b.quick);
    let levels = loads(b.quick);
    b.plan(levels.len() + 1);
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
    let measured_iops = m.kiops(Op::Write).map(|k| k * 1e3);
    let (full, basis) =
        match (spec_iops, measured_iops) {
            (Some(s), _) => (s, 1.0),
            (None, Some(m)) => (m, 0.0),
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
    for &load in levels {
        if b.stopped() {
            return Ok(());
        }
        b.begin(format!("{load}% load"), Unit::Seconds, secs);
        let iops = full * load as f64 / 100.0;
        let mut j = b.job("randwrite", "uniform", BS, QD);
        j.bound.time_ns = Some((secs * 1e9) as u64);
        j.rate = Some(Rate::IoPerSec(iops));
        j.arrivals = Arrivals::Poisson;
        j.probes = vec![Probe::READ, Probe::WRITE];
        j.probe_rate = Some(Rate::IoPerSec((full * 0.01).max(10.0)));
        j.probe_qd = PROBE_QD;
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

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    if let Some(w) = points.iter().find(|p| p.series == "warm-up") {
        if let Some(f) = w.values.get("full_load_iops") {
            result.insert("full_load_iops".into(), *f);
            let from = if w.values.get("full_load_from_spec") == Some(&1.0) {
                "the datasheet's random-write IOPS"
            } else {
                "the warm-up's measured random-write IOPS (no datasheet figure)"
            };
            findings.push(format!("100% load = {:.1} kIOPS, {from}", f / 1e3));
        }
    }
    for p in points.iter().filter(|p| p.series == SERIES) {
        let g = |k: &str| p.values.get(k).copied().unwrap_or(f64::NAN);
        findings.push(format!(
            "{} load: write avg {:.0} us, P99 {:.0} us, P99.999 {:.0} us; read probe avg {:.0} us, P99.999 {:.0} us",
            p.x_label,
            g("write_avg_us"),
            g("write_p99_us"),
            g("write_p99999_us"),
            g("read_probe_avg_us"),
            g("read_probe_p99999_us")
        ));
    }
    (result, findings)
}
