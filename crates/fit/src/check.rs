//! The twin beside the drive: every figure both have, with its residual.

use std::collections::BTreeMap;

use ssdiq_schema::figures as keys;

use crate::load_curve::LoadCurve;
use crate::observed::{Observed, WORKLOADS};
use crate::skew_curve::SkewCurve;

pub use ssdiq_schema::CheckRow as Row;

/// The figures a twin is checked on, in the order of the paper's Tables 2 and 3.
pub fn figure_keys() -> Vec<String> {
    let mut k = vec![
        keys::SEQ_READ_MB_S.to_string(),
        keys::SEQ_WRITE_MB_S.to_string(),
        keys::SEQ_WRITE_FREE_POOL_MB_S.to_string(),
        keys::RAND_READ_KIOPS.to_string(),
    ];
    for w in WORKLOADS {
        k.push(keys::of(keys::RAND_WRITE_KIOPS, w));
    }
    k.push(crate::observed::RAND_WRITE_SPAN_KIOPS.to_string());
    k.extend(
        [
            keys::READ_LAT_IDLE_US,
            keys::READ_LAT_LOAD_AVG_US,
            keys::READ_LAT_LOAD_P999_US,
            keys::WRITE_LAT_IDLE_US,
            crate::observed::WRITE_IDLE_P50_US,
            crate::observed::WRITE_IDLE_P999_US,
            keys::WRITE_LAT_LOAD_AVG_US,
            keys::WRITE_LAT_LOAD_P999_US,
            keys::WRITE_BURST_FAST_MIB,
            keys::INIT_WAF,
            keys::INIT_MB_S,
        ]
        .map(String::from),
    );
    for fam in [keys::WAF_MEASURED, keys::WAF_IMPLIED] {
        for w in WORKLOADS {
            k.push(keys::of(fam, w));
        }
    }
    k
}

/// Every figure the drive has, beside the twin's.
pub fn compare(drive: &Observed, twin: &BTreeMap<String, f64>) -> Vec<Row> {
    figure_keys()
        .into_iter()
        .filter_map(|key| {
            let d = drive.get(&key)?;
            // A drive without media counters has implied WA only; the twin's measured WA is
            // what that estimates.
            let t = twin.get(&key).copied().or_else(|| {
                let w = key.strip_prefix(&format!("{}.", keys::WAF_IMPLIED))?;
                (!drive.media_counters)
                    .then(|| twin.get(&keys::of(keys::WAF_MEASURED, w)).copied())
                    .flatten()
            });
            Some(Row {
                residual: t.map(|t| (t - d) / d),
                key,
                drive: d,
                twin: t,
            })
        })
        .collect()
}

/// A latency-load study of the drive beside the same study on its twin: write P99 (and WA,
/// where the drive reports it) at each load both measured. The keys name the load, e.g.
/// `load_50%.write_p99_us`.
pub fn curve_rows(drive: &LoadCurve, twin: &LoadCurve) -> Vec<Row> {
    let row = |key: String, d: f64, t: Option<f64>| Row {
        residual: t.map(|t| (t - d) / d),
        key,
        drive: d,
        twin: t,
    };
    let mut rows = Vec::new();
    for p in &drive.points {
        let t = twin.at(p.load_percent);
        let at = format!("load_{}%", p.load_percent);
        rows.push(row(
            format!("{at}.write_p99_us"),
            p.write_p99_us,
            t.map(|t| t.write_p99_us),
        ));
        if let Some(w) = p.waf {
            rows.push(row(format!("{at}.waf"), w, t.and_then(|t| t.waf)));
        }
    }
    rows
}

/// A skew study of the drive beside the same study on its twin: steady WA at each skew the
/// drive measured. The keys name the point, e.g. `skew_two-zone_95.waf`, `skew_zipf_1.2.waf`.
pub fn skew_rows(drive: &SkewCurve, twin: &SkewCurve) -> Vec<Row> {
    drive
        .points
        .iter()
        .map(|p| {
            let t = twin.at(&p.series, p.x);
            Row {
                key: format!("skew_{}_{}.waf", p.series, p.x),
                drive: p.waf,
                twin: t,
                residual: t.map(|t| (t - p.waf) / p.waf),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_curve::LoadPoint;

    fn curve(points: &[(f64, f64, Option<f64>)]) -> LoadCurve {
        LoadCurve {
            source: "s".into(),
            full_load_iops: 1e5,
            quick: true,
            seed: 1,
            points: points
                .iter()
                .map(|&(load_percent, write_p99_us, waf)| LoadPoint {
                    load_percent,
                    write_p99_us,
                    waf,
                })
                .collect(),
        }
    }

    #[test]
    fn a_curve_is_checked_at_every_load_the_drive_measured() {
        let drive = curve(&[(25.0, 10.0, Some(4.0)), (90.0, 100.0, None)]);
        let twin = curve(&[(25.0, 12.0, Some(3.0))]);
        let rows = curve_rows(&drive, &twin);
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "load_25%.write_p99_us",
                "load_25%.waf",
                "load_90%.write_p99_us"
            ]
        );
        assert!((rows[0].residual.unwrap() - 0.2).abs() < 1e-12);
        assert!((rows[1].residual.unwrap() + 0.25).abs() < 1e-12);
        assert_eq!(rows[2].twin, None, "the twin has no 90% level");
        assert_eq!(rows[2].residual, None);
    }
}
