//! A skew study of the drive (`ssdiq study skew`) as an input of the fit: steady WA under
//! two-zone patterns from 50/50 to 95/5 and Zipf exponents 0 to 1.2. The protocol's run
//! measures two skews (TwoZ 80/20 and Zipf 0.8), and GC policies or buffers that meet both can
//! part further out (Zipf 1.2 leans on the buffer's absorbed rewrites, 95/5 on how GC keeps
//! cold data apart); the curve scores each WA candidate on every skew it measured.
//!
//! The twin runs the same study (same length and seed) through the suite's own study runner,
//! so both sides' points come from one method.

use ssdiq_schema::StudyDoc;
use ssdiq_suite::study::StudyOptions;

use crate::emu_target::{emu_target, run_study};
use crate::error::FitError;

/// The study's name.
pub const STUDY: &str = "skew";

/// Steady WA against skew, as one skew study measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct SkewCurve {
    /// The file it came from.
    pub source: String,
    /// The study ran `--quick` (fewer points, shorter).
    pub quick: bool,
    pub seed: u64,
    pub points: Vec<SkewPoint>,
}

/// One point: a series ("two-zone": x is the hot share of writes in percent; "zipf": x is
/// the exponent) and its steady WA.
#[derive(Clone, Debug, PartialEq)]
pub struct SkewPoint {
    pub series: String,
    pub x: f64,
    pub waf: f64,
}

impl SkewCurve {
    /// The curve of a finished skew study.
    pub fn from_study(doc: &StudyDoc, source: &str) -> Result<SkewCurve, FitError> {
        if doc.study != STUDY {
            return Err(FitError::Input(format!(
                "{source}: a \"{}\" study where a \"{STUDY}\" study was expected",
                doc.study
            )));
        }
        if doc.partial {
            return Err(FitError::Input(format!(
                "{source}: the skew study was stopped before its last point (partial); run it to the end"
            )));
        }
        let points: Vec<SkewPoint> = doc
            .points
            .iter()
            .filter_map(|p| {
                let waf = *p.values.get("waf")?;
                (waf.is_finite() && waf > 0.0).then(|| SkewPoint {
                    series: p.series.clone(),
                    x: p.x,
                    waf,
                })
            })
            .collect();
        if points.is_empty() {
            return Err(FitError::Input(format!(
                "{source}: the skew study measured no WA (a drive without media counters reports none; fit without it)"
            )));
        }
        Ok(SkewCurve {
            source: source.to_string(),
            quick: doc.quick,
            seed: doc.seed,
            points,
        })
    }

    /// The WA at the point of `series` at `x`, if the study measured it.
    pub(crate) fn at(&self, series: &str, x: f64) -> Option<f64> {
        self.points
            .iter()
            .find(|p| p.series == series && p.x == x)
            .map(|p| p.waf)
    }

    /// How far `twin` lies from this curve: the sum of squared log WA ratios over the points
    /// both measured (the WA stage's score, in its units); infinite when they share none.
    pub fn distance(&self, twin: &SkewCurve) -> f64 {
        let d: Vec<f64> = self
            .points
            .iter()
            .filter_map(|p| Some((twin.at(&p.series, p.x)? / p.waf).ln().powi(2)))
            .collect();
        if d.is_empty() {
            f64::INFINITY
        } else {
            d.iter().sum()
        }
    }

    /// The point where `twin` lies furthest from this curve: (series, x, drive WA, twin WA).
    pub fn worst(&self, twin: &SkewCurve) -> Option<(String, f64, f64, f64)> {
        self.points
            .iter()
            .filter_map(|p| {
                let t = twin.at(&p.series, p.x)?;
                Some((p.series.clone(), p.x, p.waf, t))
            })
            .max_by(|a, b| (a.3 / a.2).ln().abs().total_cmp(&(b.3 / b.2).ln().abs()))
    }
}

/// The twin's curve: the skew study run on the profile `text` as `drive`'s was.
pub fn measure_skew(text: &str, drive: &SkewCurve) -> Result<SkewCurve, FitError> {
    skew_study(text, drive.quick, drive.seed, "the twin")
}

/// The skew study on the profile `text` (`quick`, `seed`), as the curve of `source`.
pub fn skew_study(text: &str, quick: bool, seed: u64, source: &str) -> Result<SkewCurve, FitError> {
    let mut target = emu_target(text, "emu:twin")?;
    let opts = StudyOptions {
        quick,
        seed,
        spec_rand_write_iops: None,
        pts_cell_s: None,
        max_load_percent: None,
        load_relative_to_own: false,
    };
    let doc = run_study(&mut target, STUDY, &opts)?;
    SkewCurve::from_study(&doc, source).map_err(|e| FitError::Twin(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::{SkewCurve, SkewPoint};

    fn curve(points: &[(&str, f64, f64)]) -> SkewCurve {
        SkewCurve {
            source: "t".into(),
            quick: true,
            seed: 1,
            points: points
                .iter()
                .map(|(s, x, waf)| SkewPoint {
                    series: s.to_string(),
                    x: *x,
                    waf: *waf,
                })
                .collect(),
        }
    }

    #[test]
    fn the_distance_sums_squared_log_ratios_over_shared_points() {
        let drive = curve(&[
            ("two-zone", 95.0, 4.0),
            ("zipf", 1.2, 2.0),
            ("zipf", 0.8, 3.0),
        ]);
        let twin = curve(&[("two-zone", 95.0, 4.0 * 1.1), ("zipf", 1.2, 2.0 / 1.1)]);
        let d = drive.distance(&twin);
        assert!((d - 2.0 * 1.1f64.ln().powi(2)).abs() < 1e-12, "{d}");
        let (series, x, a, b) = drive.worst(&twin).unwrap();
        assert_eq!((series.as_str(), x), ("two-zone", 95.0));
        assert!((b / a - 1.1).abs() < 1e-12);
        // No shared point: infinitely far.
        assert_eq!(drive.distance(&curve(&[("zipf", 0.4, 3.0)])), f64::INFINITY);
    }
}
