//! `readonly`: steady write amplification against the share of the drive that is written once
//! (by the fill) and never again, the rest taking uniform random writes (SSD-iq's read-only
//! area experiment). A drive whose GC keeps the cold data apart gains the read-only share as
//! extra over-provisioning; naive greedy mixes it into the hot data and gains less.

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

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let s = shares(b.quick);
    b.plan(s.len());
    for &f in s {
        let label = format!("{:.0}%", f * 100.0);
        if !wa::point(b, &format!("readonly:{f}"), SERIES, f * 100.0, &label)? {
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
