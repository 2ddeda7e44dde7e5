//! `"kind": "study"`: one named experiment of the papers on one target, as points.
//!
//! A point is one configuration of the study (a skew, a zone size, a load level) and the
//! numbers measured at it. `series` groups points drawn as one line; `x` is where the point
//! sits on the study's x axis, `x_label` the same in words. `values` keys are snake_case
//! with their unit as suffix (`waf`, `write_mb_s`, `write_p99_us`, ...).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::run::TargetInfo;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyPoint {
    pub series: String,
    pub x: f64,
    pub x_label: String,
    pub values: BTreeMap<String, f64>,
    /// Seconds the point took on the target's clock (virtual on the emulated SSD).
    pub target_s: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyDoc {
    pub schema: String,
    /// Always `"study"`.
    pub kind: String,
    pub study: String,
    /// What the study measures, in one sentence, and the paper it comes from.
    pub title: String,
    pub source: String,
    pub target: TargetInfo,
    /// `--quick` shortened the study (false for a study it does not shorten, such as
    /// write-over-time, even when given).
    pub quick: bool,
    pub seed: u64,
    /// How the points were measured, in words (shown under the charts).
    pub method: String,
    /// The x axis in words.
    pub x_axis: String,
    pub points: Vec<StudyPoint>,
    /// What the study concludes as numbers (e.g. `gc_unit_bytes`), when it concludes anything.
    pub result: BTreeMap<String, f64>,
    /// The same in words, one finding per line.
    pub findings: Vec<String>,
    /// True when the study was stopped (Ctrl-C) or failed before its last point.
    pub partial: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Wall-clock seconds the whole study took.
    pub wall_s: f64,
}

/// One line chart of a study's page: `metrics` as (value key, legend) against x; with one
/// metric, a line per series (of the series `only`, if set), else a line per metric of the
/// series `only`. Not a document: each study of the catalogue names its charts, and the
/// report draws them from the study's points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StudyChart {
    pub title: &'static str,
    pub only: Option<&'static str>,
    pub metrics: &'static [(&'static str, &'static str)],
    pub x: &'static str,
    pub x_log: bool,
    pub y: &'static str,
    pub y_log: bool,
    pub caption: &'static str,
}

impl StudyChart {
    /// The chart's fields in their order (a catalogue entry per line).
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        title: &'static str,
        only: Option<&'static str>,
        metrics: &'static [(&'static str, &'static str)],
        x: &'static str,
        x_log: bool,
        y: &'static str,
        y_log: bool,
        caption: &'static str,
    ) -> StudyChart {
        StudyChart {
            title,
            only,
            metrics,
            x,
            x_log,
            y,
            y_log,
            caption,
        }
    }
}

/// A dot chart of a study whose points are tests, not a sweep: one row per test (x), one mark
/// per series, of the points holding value `key`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StudyDots {
    pub title: &'static str,
    pub key: &'static str,
    pub axis: &'static str,
    pub caption: &'static str,
}
