//! The per-second points of one `ssdiq io` job (`"series"` in its JSON, and its `--log` CSV).

use serde::{Deserialize, Serialize};

/// One stream's numbers for one second of a job.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobSecond {
    /// Second since the measured job started.
    pub second: u64,
    /// `read`, `write`, `trim`, `write_zeroes`, or `probe_read` / `probe_write`.
    pub stream: String,
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub mb_s: f64,
    pub lat_mean_ns: f64,
    pub lat_p99_ns: u64,
}

impl JobSecond {
    pub const CSV_HEADER: &'static str = "second,stream,ios,bytes,iops,mb_s,lat_mean_ns,lat_p99_ns";

    pub fn csv_row(&self) -> String {
        format!(
            "{},{},{},{},{:.1},{:.3},{:.1},{}",
            self.second,
            self.stream,
            self.ios,
            self.bytes,
            self.iops,
            self.mb_s,
            self.lat_mean_ns,
            self.lat_p99_ns
        )
    }
}
