//! Latency statistics of one stream (an op or a probe) over a job or a step.

use serde::{Deserialize, Serialize};

/// Latency statistics in nanoseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    #[serde(rename = "p99.9")]
    pub p99_9: u64,
    #[serde(rename = "p99.99")]
    pub p99_99: u64,
    #[serde(rename = "p99.999")]
    pub p99_999: u64,
    pub max: u64,
}

/// One operation's (or probe's) totals over a job or a step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpSummary {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    /// Decimal megabytes (10^6 bytes) per second.
    pub mb_s: f64,
    pub lat_ns: LatencySummary,
    /// Fraction of I/Os slower than 1 ms.
    pub over_1ms: f64,
    /// Latency distribution points (percentile, ns), for CDF plots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cdf: Vec<CdfPoint>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CdfPoint {
    /// Percentile in [0, 100].
    pub p: f64,
    pub ns: u64,
}
