//! `"kind": "trace-stats"`: what `ssdiq trace stats --json` measured of a trace (the trace
//! crate's statistics fill it in; their definitions are stated there and in the output).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::pattern::TopShare;
use crate::run::SCHEMA;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpStats {
    pub requests: u64,
    pub bytes: u64,
    pub mean_bytes: f64,
    /// Fraction of these requests that start where the previous one of the same op and
    /// device ended (not meaningful for trims: 0).
    pub sequential_fraction: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Footprint {
    pub page_bytes: u64,
    /// Distinct pages read or written.
    pub pages: u64,
    pub bytes: u64,
    pub read_pages: u64,
    pub written_pages: u64,
    /// Pages read but never written.
    pub read_only_pages: u64,
    pub min_offset: u64,
    /// One past the highest byte read or written.
    pub max_end: u64,
    /// Pages beyond 2^48 pages into a device, left out of the counts above.
    pub uncounted_pages: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeBucket {
    /// Requests of more than half this and at most this many bytes (the first bucket: at
    /// most this many; the last, `u64::MAX`: every request above 512 MiB).
    pub up_to_bytes: u64,
    pub read: u64,
    pub write: u64,
    pub trim: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InterArrival {
    pub mean_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p99_9_us: f64,
    pub max_us: f64,
    /// Records stamped earlier than the record before them.
    pub backwards: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WriteSkew {
    /// Page writes (a write of n pages is n page writes).
    pub page_writes: u64,
    pub written_pages: u64,
    pub mean_writes_per_page: f64,
    pub max_writes_per_page: u64,
    /// Share of page writes to the most written X% of the written pages.
    pub top: Vec<TopShare>,
    /// (writes per page, pages), ascending.
    pub count_histogram: Vec<(u64, u64)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceCount {
    pub device: String,
    pub requests: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceStats {
    pub file: String,
    pub format: String,
    /// The device filter, if one was given.
    pub device: Option<String>,
    pub lines: u64,
    pub requests: u64,
    pub duration_s: f64,
    pub requests_per_s: f64,
    pub device_count: u64,
    /// The busiest devices, most requests first.
    pub devices: Vec<DeviceCount>,
    pub read: OpStats,
    pub write: OpStats,
    pub trim: OpStats,
    /// Reads / (reads + writes), by requests and by bytes.
    pub read_fraction: f64,
    pub read_bytes_fraction: f64,
    pub footprint: Footprint,
    pub sizes: Vec<SizeBucket>,
    pub inter_arrival: InterArrival,
    pub write_skew: WriteSkew,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceStatsDoc {
    pub schema: String,
    /// Always `"trace-stats"`.
    pub kind: String,
    pub trace: TraceStats,
}

impl TraceStatsDoc {
    pub fn new(trace: TraceStats) -> Self {
        TraceStatsDoc {
            schema: SCHEMA.into(),
            kind: "trace-stats".into(),
            trace,
        }
    }
}

/// How a trace's pages land on a target (the trace crate's `map` module says how each works).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MapKind {
    Compact,
    Modulo,
    Direct,
}

pub const MAP_NAMES: &str = "compact, modulo or direct";

impl FromStr for MapKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "compact" => Ok(MapKind::Compact),
            "modulo" => Ok(MapKind::Modulo),
            "direct" => Ok(MapKind::Direct),
            _ => Err(format!("invalid --trace-map \"{s}\": expected {MAP_NAMES}")),
        }
    }
}

impl fmt::Display for MapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MapKind::Compact => "compact",
            MapKind::Modulo => "modulo",
            MapKind::Direct => "direct",
        })
    }
}
