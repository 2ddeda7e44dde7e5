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
            // Below 1 only writes that never reach flash explain it (no GC can); far below
            // uniform, either those or GC that keeps the hot pages apart.
            let why = match uniform {
                _ if w < 1.0 => {
                    ": below 1, so some writes never reached flash: the hottest pages are rewritten while still in the drive's write buffer"
                }
                Some(u) if w < 0.5 * u => {
                    ": the hottest pages are rewritten while still in the drive's write buffer (never programmed), or GC keeps them apart from cold data"
                }
                _ => "",
            };
            findings.push(format!(
                "most skewed {series} ({}): WAF {w:.2}{vs}{why}",
                p.x_label
            ));
            result.insert(format!("waf_{series}_most_skewed"), w);
        }
    }
    (result, findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(series: &str, x: f64, label: &str, waf: f64) -> StudyPoint {
        StudyPoint {
            series: series.into(),
            x,
            x_label: label.into(),
            values: [("waf".to_string(), waf)].into_iter().collect(),
            target_s: 1.0,
        }
    }

    #[test]
    fn a_waf_far_below_uniform_comes_with_its_reason() {
        let p = vec![
            point(TWO_ZONE, 50.0, "50/50", 5.0),
            point(TWO_ZONE, 95.0, "95/5", 4.0),
            point(ZIPF, 1.2, "1.2", 0.34),
        ];
        let (_, f) = conclude(&p);
        let two = f.iter().find(|l| l.contains("two-zone (95/5)")).unwrap();
        assert!(!two.contains("buffer"), "{two}");
        let zipf = f.iter().find(|l| l.contains("zipf (1.2)")).unwrap();
        assert!(
            zipf.contains("below 1") && zipf.contains("write buffer"),
            "{zipf}"
        );
        let p = vec![
            point(TWO_ZONE, 50.0, "50/50", 5.0),
            point(ZIPF, 1.2, "1.2", 1.25),
        ];
        let (_, f) = conclude(&p);
        let zipf = f.iter().find(|l| l.contains("zipf (1.2)")).unwrap();
        assert!(
            zipf.contains("(-75% against uniform): the hottest pages"),
            "{zipf}"
        );
    }
}
