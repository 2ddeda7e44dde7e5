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
