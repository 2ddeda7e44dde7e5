//! Steady write amplification of a random-write pattern: reset, one sequential fill, then 4 KiB
//! random writes (QD 32) for a warm-up of whole drive writes and a measured part; the WAF is
//! the drive's media bytes over host bytes during the measured part only (the SSD-iq
//! reference's steady figure, without its fill and its transition).

use ssdiq_workload::Op;

use super::bench::{values, Bench, Measured};
use crate::observe::Unit;
use crate::target::SuiteError;

pub const BS: u64 = 4096;
pub const QD: u32 = 32;

/// Drive writes of warm-up and of measurement.
pub fn drive_writes(quick: bool) -> (f64, f64) {
    if quick {
        (1.0, 0.5)
    } else {
        (2.0, 1.0)
    }
}

/// What a steady-WAF point plans to write, in bytes (fill included).
fn planned_bytes(b: &Bench<'_>, (warm, measure): (f64, f64)) -> f64 {
    b.capacity() as f64 * (1.0 + warm + measure)
}

/// Measures `pattern` after `warm` drive writes over the next `measure`; `None` when the
/// study was stopped meanwhile.
fn steady(
    b: &mut Bench<'_>,
    pattern: &str,
    (warm, measure): (f64, f64),
) -> Result<Option<Measured>, SuiteError> {
    b.reset()?;
    b.fill()?;
    for (i, dw) in [warm, measure].into_iter().enumerate() {
        if b.stopped() {
            return Ok(None);
        }
        let mut j = b.job("randwrite", pattern, BS, QD);
        j.bound.bytes = Some(((j.range_bytes as f64 * dw) as u64).next_multiple_of(BS));
        let m = b.run(j)?;
        if i == 1 && !b.stopped() {
            return Ok(Some(m));
        }
    }
    Ok(None)
}

/// Begins a steady-WAF point, measures it and records it.
pub fn point(
    b: &mut Bench<'_>,
    pattern: &str,
    series: &str,
    x: f64,
    x_label: &str,
) -> Result<bool, SuiteError> {
    let writes = drive_writes(b.quick);
    point_after(b, pattern, series, x, x_label, writes)
}

/// [`point`] with its own drive writes of warm-up and of measurement.
pub fn point_after(
    b: &mut Bench<'_>,
    pattern: &str,
    series: &str,
    x: f64,
    x_label: &str,
    writes: (f64, f64),
) -> Result<bool, SuiteError> {
    let total = planned_bytes(b, writes);
    b.begin(format!("{series} {x_label}"), Unit::Bytes, total);
    let Some(m) = steady(b, pattern, writes)? else {
        return Ok(false);
    };
    let v = values(&[
        ("waf", m.waf),
        ("write_mb_s", m.mb_s(Op::Write)),
        ("write_kiops", m.kiops(Op::Write)),
        ("write_p99_us", m.quantile_us(Op::Write, 0.99)),
    ]);
    b.point(series, x, x_label, v);
    Ok(true)
}
