//! `"kind": "fit"` and `"kind": "fit-check"`: what `ssdiq fit` set in a twin, and a twin's
//! figures beside the drive's with the twin's predictions for workloads the drive did not run.

use serde::{Deserialize, Serialize};

/// How a twin's value came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// Moved until the twin's figure met the drive's.
    Fitted,
    /// Taken as it is from the input (capacity, datasheet, GC unit).
    Input,
    /// The figures do not identify it: the nearest library profile's value.
    Kept,
}

/// One value of the twin and where it comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitParam {
    /// `section.key` of the profile.
    pub key: String,
    /// As the TOML holds it.
    pub value: String,
    pub how: How,
    /// "uniform WA 4.21 (measured; twin 4.20)", or why it is kept.
    pub source: String,
    /// (twin - drive) / drive of the figure it was fitted to.
    #[serde(default)]
    pub residual: Option<f64>,
}

/// `"kind": "fit"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitDoc {
    pub schema: String,
    pub kind: String,
    /// The drive's name.
    pub drive: String,
    /// Where its figures come from.
    pub source: String,
    /// The library profile the twin started from.
    pub base: String,
    pub params: Vec<FitParam>,
    /// Emulator runs of protocol steps on candidate twins, per stage of the fit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub twin_runs: Vec<StageRuns>,
    /// The twin as written, measured once more with the run's protocol: each figure of the
    /// drive beside the twin's. (Each parameter's `residual` is its own stage's.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured: Vec<CheckRow>,
    /// The twin's predictions, each with its range over what the fit did not identify (as
    /// `fit --check` gives them; written with `fit --json`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predictions: Vec<Prediction>,
}

/// How many emulator runs one stage of the fit took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageRuns {
    pub stage: String,
    pub runs: u32,
}

/// One figure of the drive and of its twin (keys of [`crate::figures`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckRow {
    pub key: String,
    pub drive: f64,
    #[serde(default)]
    pub twin: Option<f64>,
    /// (twin - drive) / drive.
    #[serde(default)]
    pub residual: Option<f64>,
}

/// A curve the twin predicts (nothing measured on the drive stands beside it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The study it stands for ("skew", "readonly", "op", "latency-load").
    pub study: String,
    pub title: String,
    pub x_axis: String,
    pub y_axis: String,
    /// (x, y) in x order.
    pub points: Vec<(f64, f64)>,
    /// (low, high) at each point: where the prediction may lie over the plausible values of
    /// what the twin does not know (empty: no range was measured).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub range: Vec<(f64, f64)>,
    /// The twin's unidentified keys the range rests on (those that move this curve).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub range_keys: Vec<String>,
}

/// `"kind": "fit-check"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitCheckDoc {
    pub schema: String,
    pub kind: String,
    pub drive: String,
    pub source: String,
    /// The twin's profile file.
    pub twin: String,
    pub rows: Vec<CheckRow>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predictions: Vec<Prediction>,
}
