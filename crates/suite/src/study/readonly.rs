//! `readonly`: write amplification against the share of the drive that is written once (by
//! the fill) and never again, the rest taking uniform random writes (SSD-iq's read-only area
//! experiment). A drive whose GC keeps the cold data apart gains the read-only share as extra
//! over-provisioning; naive greedy mixes it into the hot data and gains less.
//!
//! The figure is not a steady state: cold data that greedy leaves in blocks it never picks
//! moves only when static wear levelling moves it, which the drive's erase counts decide, so
//! the value depends on when it is taken. Each point therefore writes what the artifact's
//! `benchwa.sh` writes after its sequential init (7 drive writes, 5 with no or 90% read-only
//! data) and takes the WAF over 60-90% of them, as `paper.R` averages Fig 5's runs.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::bench::Bench;
use super::wa;
use crate::target::SuiteError;

fn shares(quick: bool) -> &'static [f64] {
    if quick {
        &[0.0, 0.5, 0.9]
    } else {
        &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    }
}

pub const SERIES: &str = "read-only share";

/// Drive writes of warm-up and of measurement for read-only share `f` (module docs).
fn writes(f: f64, quick: bool) -> (f64, f64) {
    if quick {
        return wa::drive_writes(true);
    }
    let total = if f == 0.0 || f >= 0.9 { 5.0 } else { 7.0 };
    (0.6 * total, 0.3 * total)
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let s = shares(b.quick);
    b.plan(s.len());
    for &f in s {
        let label = format!("{:.0}%", f * 100.0);
        let pattern = format!("readonly:{f}");
        if !wa::point_after(b, &pattern, SERIES, f * 100.0, &label, writes(f, b.quick))? {
            return Ok(());
        }
    }
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let at = |x: f64| {
        points
            .iter()
            .find(|p| p.x == x)
            .and_then(|p| p.values.get("waf").copied())
    };
    if let Some(w0) = at(0.0) {
        result.insert("waf_no_read_only".into(), w0);
        for p in points.iter().filter(|p| p.x > 0.0) {
            if let Some(w) = p.values.get("waf") {
                findings.push(format!(
                    "{} read-only: WAF {w:.2} ({:+.0}% against none)",
                    p.x_label,
                    (w / w0 - 1.0) * 100.0
                ));
            }
        }
    }
    (result, findings)
}
