//! A latency-load study of the drive (`ssdiq study latency-load`) as an input of the fit:
//! the write P99 of Poisson write load at each level, which shows where the drive's write
//! buffer fills. The protocol's run measures latency under one load only, so its buffer is
//! left open where two sizes fill at loads the run does not reach (docs/fit.md); the curve
//! decides between them.
//!
//! The twin runs the same study, at the same absolute rates (the drive's 100% load), the
//! same length (quick or full) and seed, through the suite's own study runner.

use ssdiq_schema::StudyDoc;
use ssdiq_suite::study::StudyOptions;
use ssdiq_suite::EmuTarget;

use crate::emu_target::{emu_target, run_study};
use crate::error::FitError;

/// The study's name, and the series of its load levels.
pub const STUDY: &str = "latency-load";
const SERIES: &str = "write load";

/// Write P99 against load, as one latency-load study measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadCurve {
    /// The file it came from.
    pub source: String,
    /// The study's 100% load, in write IOPS.
    pub full_load_iops: f64,
    /// The study ran `--quick` (fewer, shorter levels).
    pub quick: bool,
    pub seed: u64,
    /// The load levels, in the study's order.
    pub points: Vec<LoadPoint>,
}

/// One load level of the study.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadPoint {
    /// Percent of the study's 100% load.
    pub load_percent: f64,
    pub write_p99_us: f64,
    /// The WA while the load ran, where the drive reports it.
    pub waf: Option<f64>,
}

/// What a factor of two in write P99 weighs in [`LoadCurve::distance`]: the round trip's
/// tolerance for it.
const P99_SCALE: f64 = std::f64::consts::LN_2;
/// What 2% in WA under load weighs: a buffer's pages keep their old copies valid, so its
/// size moves the WA of a partly loaded drive by a few percent (docs/fit.md).
pub const WAF_SCALE: f64 = 0.02;

impl LoadCurve {
    /// The curve of a finished latency-load study.
    pub fn from_study(doc: &StudyDoc, source: &str) -> Result<LoadCurve, FitError> {
        if doc.study != STUDY {
            return Err(FitError::Input(format!(
                "{source}: a \"{}\" study; fit takes the run.json of `ssdiq run` and the results of `ssdiq study {STUDY}`, `ssdiq study skew` and `ssdiq study gc-unit`",
                doc.study
            )));
        }
        if doc.partial {
            return Err(FitError::Input(format!(
                "{source}: the study was stopped before its last load level (partial); run it to the end"
            )));
        }
        let full = doc.result.get("full_load_iops").copied().ok_or_else(|| {
            FitError::Input(format!(
                "{source}: the study has no 100% load (full_load_iops); it ended before its warm-up"
            ))
        })?;
        let points: Vec<LoadPoint> = doc
            .points
            .iter()
            .filter(|p| p.series == SERIES)
            .filter_map(|p| {
                Some(LoadPoint {
                    load_percent: p.x,
                    write_p99_us: *p.values.get("write_p99_us")?,
                    waf: p
                        .values
                        .get("waf")
                        .copied()
                        .filter(|w| w.is_finite() && *w > 0.0),
                })
            })
            .filter(|p| p.write_p99_us.is_finite() && p.write_p99_us > 0.0)
            .collect();
        if points.is_empty() {
            return Err(FitError::Input(format!(
                "{source}: the study measured no load level"
            )));
        }
        Ok(LoadCurve {
            source: source.to_string(),
            full_load_iops: full,
            quick: doc.quick,
            seed: doc.seed,
            points,
        })
    }

    /// How far `twin` lies from this curve: over the loads both measured, the mean of the
    /// squared log ratios of write P99 (in units of a factor of two) and of WA (in units of
    /// 2%); infinite when they share no load.
    pub fn distance(&self, twin: &LoadCurve) -> f64 {
        let d: Vec<f64> = self
            .points
            .iter()
            .filter_map(|p| {
                let t = twin.at(p.load_percent)?;
                let p99 = ((t.write_p99_us / p.write_p99_us).ln() / P99_SCALE).powi(2);
                let waf = match (t.waf, p.waf) {
                    (Some(a), Some(b)) => ((a / b).ln() / WAF_SCALE).powi(2),
                    _ => 0.0,
                };
                Some(p99 + waf)
            })
            .collect();
        if d.is_empty() {
            f64::INFINITY
        } else {
            d.iter().sum::<f64>() / d.len() as f64
        }
    }

    /// The level at `load_percent`.
    pub fn at(&self, load_percent: f64) -> Option<LoadPoint> {
        self.points
            .iter()
            .find(|p| p.load_percent == load_percent)
            .copied()
    }

    /// The worst ratio of twin to drive write P99 over the shared loads, and its load.
    pub fn worst_ratio(&self, twin: &LoadCurve) -> Option<(f64, f64)> {
        self.points
            .iter()
            .filter_map(|p| {
                let t = twin.at(p.load_percent)?.write_p99_us;
                let v = p.write_p99_us;
                Some((p.load_percent, (t / v).max(v / t)))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// The twin's curve: the latency-load study run on the profile `text` as `drive`'s was.
pub fn measure_curve(text: &str, drive: &LoadCurve) -> Result<LoadCurve, FitError> {
    let mut target = emu_target(text, "emu:twin")?;
    let opts = StudyOptions {
        quick: drive.quick,
        seed: drive.seed,
        spec_rand_write_iops: Some(drive.full_load_iops),
        pts_cell_s: None,
        max_load_percent: None,
        load_relative_to_own: false,
    };
    study_curve(&mut target, &opts, "the twin")
}

/// The latency-load study on `target` with `opts`, as the curve of `source`.
pub(crate) fn study_curve(
    target: &mut EmuTarget,
    opts: &StudyOptions,
    source: &str,
) -> Result<LoadCurve, FitError> {
    let doc = run_study(target, STUDY, opts)?;
    LoadCurve::from_study(&doc, source).map_err(|e| FitError::Twin(e.to_string()))
}
