//! `"kind": "pattern"`: what `ssdiq pattern --json` measured of a pattern by drawing from it
//! (the workload crate's analysis fills it in).

use serde::{Deserialize, Serialize};

use crate::run::SCHEMA;

/// The share of accesses that went to the hottest pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TopShare {
    /// Fraction of the pages (hottest first).
    pub pages_fraction: f64,
    /// Number of pages in that top set.
    pub pages: u64,
    /// Measured share of accesses that went to them.
    pub share: f64,
    /// The exact share, where the pattern has a closed form.
    pub expected: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatternReport {
    pub pattern: String,
    pub pages: u64,
    pub draws: u64,
    pub seed: u64,
    pub trims: u64,
    pub touched: u64,
    pub touched_fraction: f64,
    /// Analytic expectation of the touched fraction and its standard deviation (an upper
    /// bound: page indicators are negatively correlated), where the pattern has one.
    pub expected_touched_fraction: Option<(f64, f64)>,
    pub top: Vec<TopShare>,
    /// (accesses per page, number of pages): the count distribution, ascending.
    pub count_histogram: Vec<(u64, u64)>,
    /// Accesses per LBA bin, `lba_bins` equal bins over the range.
    pub lba_histogram: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatternDoc {
    pub schema: String,
    /// Always `"pattern"`.
    pub kind: String,
    pub report: PatternReport,
}

impl PatternDoc {
    pub fn new(report: PatternReport) -> Self {
        PatternDoc {
            schema: SCHEMA.into(),
            kind: "pattern".into(),
            report,
        }
    }
}
