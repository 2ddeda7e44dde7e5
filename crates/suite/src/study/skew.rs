//! `skew`: steady write amplification against the skew of random writes (SSD-iq Figures 3a
//! and 4a): two-zone patterns from 50/50 (uniform) to 95/5, Zipf theta 0 to 1.2.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::bench::Bench;
use super::wa;
use crate::target::SuiteError;

fn two_zone(quick: bool) -> &'static [u32] {
    if quick {
        &[50, 80, 95]
    } else {
        &[50, 60, 70, 80, 90, 95]
    }
}

fn zipf(quick: bool) -> &'static [f64] {
    if quick {
        &[0.0, 0.8, 1.2]
    } else {
        &[0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2]
    }
}

pub const TWO_ZONE: &str = "two-zone";
pub const ZIPF: &str = "zipf";

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let (tz, zf) = (two_zone(b.quick), zipf(b.quick));
    b.plan(tz.len() + zf.len());
    for &w in tz {
        let label = format!("{w}/{}", 100 - w);
        if !wa::point(b, &format!("twozone:{label}"), TWO_ZONE, w as f64, &label)? {
            return Ok(());
        }
    }
    for &t in zf {
        // Theta 0 is the uniform distribution (the Zipf grammar wants theta > 0).
        let pattern = if t == 0.0 {
            "uniform".to_string()
        } else {
            format!("zipf:{t}")
        };
        if !wa::point(b, &pattern, ZIPF, t, &format!("{t:.1}"))? {
            return Ok(());
        }
    }
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let waf = |p: &StudyPoint| p.values.get("waf").copied();
    let uniform = points
        .iter()
        .find(|p| p.series == TWO_ZONE && p.x == 50.0)
        .and_then(waf);
    if let Some(u) = uniform {
        result.insert("waf_uniform".into(), u);
        findings.push(format!(
            "uniform random writes (two-zone 50/50): WAF {u:.2}"
        ));
    }
    for series in [TWO_ZONE, ZIPF] {
        let most = points.iter().rfind(|p| p.series == series);
        if let (Some(p), Some(w)) = (most, most.and_then(waf)) {
            let vs = uniform
                .map(|u| format!(" ({:+.0}% against uniform)", (w / u - 1.0) * 100.0))
                .unwrap_or_default();
            findings.push(format!(
                "most skewed {series} ({}): WAF {w:.2}{vs}",
                p.x_label
            ));
            result.insert(format!("waf_{series}_most_skewed"), w);
        }
    }
    (result, findings)
}
