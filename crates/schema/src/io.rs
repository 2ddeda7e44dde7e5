//! `"kind": "io"`: the document `ssdiq io --json` writes, and the job and device facts in it
//! (the engine fills it in: `Stats::report`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::job::JobSecond;
use crate::latency::OpSummary;
use crate::op::Op;

/// The JSON result of `ssdiq io`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IoReport {
    pub schema: String,
    /// Always `"io"`.
    pub kind: String,
    pub job: JobInfo,
    pub clock: Clock,
    pub elapsed_s: f64,
    pub ops: BTreeMap<String, OpSummary>,
    pub probes: BTreeMap<String, OpSummary>,
    pub errors: ErrorLog,
    pub device: DeviceReport,
    pub fill: Option<FillInfo>,
    pub series: Vec<JobSecond>,
    pub partial: bool,
    /// What `--verify` checked; present only with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyLog>,
    /// Each member of a striped target (`--stripe`) with the main streams' reads and writes it
    /// served (a trim or write-zeroes range spans members: counted in `ops` only); present only
    /// for a stripe (`ops` is all of them together).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<TargetOps>,
}

/// One member of a striped target and what it served.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetOps {
    pub path: String,
    pub ops: BTreeMap<String, OpSummary>,
}

/// What `--verify` checked: the blocks read and held to their headers, and those that did not
/// hold what was written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyLog {
    pub checked: u64,
    pub mismatches: u64,
    /// The first mismatches found (at most [`VerifyLog::KEPT`]).
    pub first: Vec<VerifyMismatch>,
    /// Blocks checked by the read-back that ends a write job (included in `checked`).
    #[serde(default)]
    pub read_back: u64,
}

impl VerifyLog {
    pub const KEPT: usize = 8;

    pub fn record(&mut self, checked: u64, mismatch: Option<VerifyMismatch>) {
        self.checked += checked;
        if let Some(m) = mismatch {
            self.mismatches += 1;
            if self.first.len() < Self::KEPT {
                self.first.push(m);
            }
        }
    }

    pub fn merge(&mut self, o: &VerifyLog) {
        self.checked += o.checked;
        self.mismatches += o.mismatches;
        self.read_back += o.read_back;
        for m in &o.first {
            if self.first.len() < Self::KEPT {
                self.first.push(m.clone());
            }
        }
        self.first.sort_by_key(|m| m.offset);
    }
}

/// A block that did not hold what was written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerifyMismatch {
    pub offset: u64,
    pub what: String,
    /// The generation of the last write to the block, where the job wrote it (and no two
    /// writes to it overlapped).
    pub expected_generation: Option<u64>,
    /// The generation the block's header holds, where it has a valid one.
    pub found_generation: Option<u64>,
}

/// Which clock produced the timestamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    Wall,
    Virtual,
}

/// The first failed I/O of a job and how many failed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorLog {
    pub count: u64,
    pub first: Option<IoFailure>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IoFailure {
    pub op: Op,
    pub offset: u64,
    pub len: u64,
    /// The errno, or 0 for a short transfer.
    pub errno: i32,
    pub message: String,
    #[serde(skip)]
    pub at_ns: u64,
}

impl ErrorLog {
    /// `res` is the errno, or `None` for a short transfer of `done` bytes.
    pub fn record(&mut self, op: Op, offset: u64, len: u64, errno: Option<i32>, at_ns: u64) {
        self.count += 1;
        if self.first.is_none() {
            // Formatting allocates, but only for the first error of a thread.
            let message = match errno {
                Some(e) => std::io::Error::from_raw_os_error(e).to_string(),
                None => "short transfer".to_string(),
            };
            self.first = Some(IoFailure {
                op,
                offset,
                len,
                errno: errno.unwrap_or(0),
                message,
                at_ns,
            });
        }
    }

    pub fn merge(&mut self, other: &ErrorLog) {
        self.count += other.count;
        if let Some(o) = &other.first {
            if self.first.as_ref().is_none_or(|f| o.at_ns < f.at_ns) {
                self.first = Some(o.clone());
            }
        }
    }
}

/// Preconditioning that ran before the measured job.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FillInfo {
    pub bytes: u64,
    pub seconds: f64,
    /// The holes of a file laid out before a reading job (not a requested `--fill`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub layout: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceReport {
    pub host_bytes: Option<u64>,
    pub media_bytes: Option<u64>,
    /// Measured WAF (media / host bytes) over the measured job, when the device tells.
    pub waf: Option<f64>,
    /// Growth of the device's write buffer over the job (host bytes accepted and not yet in
    /// `media_bytes`; negative when it drained), where the device tells (the emulated drive).
    /// `waf` lags the host by this much, as a real drive's counters do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffered_change_bytes: Option<i64>,
    pub counters: CounterLog,
}

impl DeviceReport {
    /// Why `waf` may not be the drive's write amplification yet: the share of the job's host
    /// bytes still in (or, negative, drained from) the drive's buffer when the job ended
    /// ([`buffer_lag`]); `Some(0.0)` for a WAF below 1 from a drive that does
    /// not tell its buffer.
    pub fn waf_lag(&self) -> Option<f64> {
        let waf = self.waf?;
        let host = self.host_bytes?;
        match self.buffered_change_bytes {
            Some(b) => buffer_lag(b, host),
            // Below 1 by more than the host counter's granularity: a SMART data unit is
            // 512,000 bytes, so two samples' difference can be one unit high (FEMU's fill:
            // 0.9996 for a drive that wrote each byte once).
            None => (host > 0 && waf * (host as f64) < host as f64 - 512_000.0).then_some(0.0),
        }
    }
}

/// One snapshot of a device's cumulative write counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteCounters {
    /// Bytes the host wrote, as counted by the device.
    pub host_bytes: u64,
    /// Bytes programmed to flash, if the device reports it (OCP, emulated drive).
    pub media_bytes: Option<u64>,
    /// Host bytes the device has accepted and not yet programmed (in its write buffer), so
    /// not yet in `media_bytes`: the emulated drive knows it, real drives do not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffered_bytes: Option<u64>,
}

/// The share of `host` bytes a device's write buffer grew by (`change`; negative: drained),
/// when it is over 2% and so worth saying beside a WAF: the counters lag the host that much.
/// One rule for `io`'s WAF and a run step's.
pub fn buffer_lag(change: i64, host: u64) -> Option<f64> {
    let share = change as f64 / host.max(1) as f64;
    (host > 0 && share.abs() > 0.02).then_some(share)
}

/// One sample taken at `t_ns` nanoseconds after the measured job started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterSample {
    pub t_ns: u64,
    #[serde(flatten)]
    pub counters: WriteCounters,
}

/// Before/after snapshots and the periodic samples between them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterLog {
    pub before: Option<WriteCounters>,
    pub after: Option<WriteCounters>,
    pub samples: Vec<CounterSample>,
}

impl CounterLog {
    /// Host bytes written during the job, by the device's count.
    pub fn host_bytes(&self) -> Option<u64> {
        Some(
            self.after?
                .host_bytes
                .saturating_sub(self.before?.host_bytes),
        )
    }

    /// Media bytes written during the job.
    pub fn media_bytes(&self) -> Option<u64> {
        Some(
            self.after?
                .media_bytes?
                .saturating_sub(self.before?.media_bytes?),
        )
    }

    /// How much the device's write buffer grew over the job (negative: it drained), where the
    /// device tells: host bytes of the job not yet counted in media bytes, or earlier writes
    /// counted now.
    pub fn buffered_change(&self) -> Option<i64> {
        Some(self.after?.buffered_bytes? as i64 - self.before?.buffered_bytes? as i64)
    }

    /// Measured write amplification: media / host bytes over the job.
    pub fn waf(&self) -> Option<f64> {
        let host = self.host_bytes()?;
        let media = self.media_bytes()?;
        (host > 0).then(|| media as f64 / host as f64)
    }
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// The serialisable description of a job (the `"job"` object of the JSON result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobInfo {
    pub target: String,
    pub rw: String,
    pub pattern: String,
    pub bs: u64,
    pub offset_align: u64,
    pub qd: u32,
    pub threads: u32,
    /// Present (true) when every thread has its own region (`--own-regions`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub own_regions: bool,
    /// Present when the job starts past byte 0 (`--offset`).
    #[serde(skip_serializing_if = "is_zero")]
    pub offset_bytes: u64,
    pub range_bytes: u64,
    pub size_bound: Option<u64>,
    pub time_bound_s: Option<f64>,
    pub rate: Option<RateInfo>,
    pub arrivals: Arrivals,
    pub probes: Vec<String>,
    /// Pace of each probe; `null` when probes issue back to back.
    pub probe_rate: Option<RateInfo>,
    pub probe_qd: u32,
    pub probe_open_loop: bool,
    pub seed: u64,
    /// Present when the pattern's hot pages are placed from another seed than `seed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_seed: Option<u64>,
    pub data: String,
    pub fill: Option<FillMode>,
    pub engine: EngineKind,
    /// The engine's options, as fio names them (`hipri`, `sqthread_poll`, `fixedbufs`,
    /// `registerfiles`); present when any is set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engine_options: Vec<String>,
    /// Present (true) with `--verify`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
    /// `--stripe`: the chunk in bytes of a RAID0 over the target's devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe_bytes: Option<u64>,
    /// `--fdp-pid`: the FDP placement identifier of every write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdp_pid: Option<u16>,
    /// `--fdp-pid` by region: the identifier of the writes in each region of the range.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fdp_regions: Vec<FdpRegion>,
    pub direct: bool,
    pub on_error: OnError,
    /// Present when the job replays a recording.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplayInfo>,
}

/// A region of a job's range and the FDP placement identifier its writes carry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FdpRegion {
    /// Its first byte, from the start of the range.
    pub from_bytes: u64,
    /// The byte after its last, from the start of the range.
    pub to_bytes: u64,
    pub pid: u16,
}

/// How a job replays a recording (the `"replay"` object of the job in JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayInfo {
    pub speed: Speed,
    pub max_request_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateInfo {
    pub bytes_per_s: Option<f64>,
    pub iops: Option<f64>,
}

/// How fast a recording is replayed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    /// Every request as soon as a slot is free (closed loop at the job's queue depth).
    Max,
    /// Times divided by this factor: 1 is the recorded timing, 2 twice as fast.
    Scale(f64),
}

impl Speed {
    /// `max`, or a factor like `1`, `2x`, `0.5`.
    pub fn parse(s: &str) -> Result<Speed, String> {
        if s.eq_ignore_ascii_case("max") {
            return Ok(Speed::Max);
        }
        s.strip_suffix('x')
            .unwrap_or(s)
            .parse::<f64>()
            .ok()
            .filter(|f| *f > 0.0 && f.is_finite())
            .map(Speed::Scale)
            .ok_or_else(|| {
                format!(
                    "invalid --replay-speed \"{s}\": expected max or a factor like 1, 2x or 0.5"
                )
            })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    IoUring,
    /// Linux kernel AIO (`io_submit`/`io_getevents`) with O_DIRECT, as fio's and iob's libaio.
    Libaio,
    Psync,
    /// NVMe read and write commands through io_uring's `IORING_OP_URING_CMD` on the generic
    /// char device (`/dev/ngXnY`), as fio's `io_uring_cmd`: no block layer.
    UringCmd,
}

impl EngineKind {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "io_uring" | "io-uring" | "uring" => Ok(EngineKind::IoUring),
            "libaio" => Ok(EngineKind::Libaio),
            "psync" => Ok(EngineKind::Psync),
            "uring-cmd" | "uring_cmd" | "io_uring_cmd" => Ok(EngineKind::UringCmd),
            other => Err(format!(
                "unknown engine \"{other}\": expected io_uring, libaio, psync or uring-cmd"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Psync => "psync",
            EngineKind::UringCmd => "uring-cmd",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// Stop submitting at the first I/O error, drain, and report.
    Stop,
    /// Count the error and keep going.
    Continue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FillMode {
    /// Sequentially write the whole range once before the measured job (preconditioning).
    Seq,
}

/// How the main load's `rate` schedules its I/Os.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    /// A throttle: starts evenly spaced by the rate, at most 10 ms of credit banked when the
    /// target falls behind; latency is timed from submission (closed loop, like fio's rate).
    #[default]
    Paced,
    /// An open-loop Poisson process: exponential gaps with the rate as mean, a schedule that
    /// never skips ahead, latency timed from each I/O's scheduled arrival.
    Poisson,
}

impl Arrivals {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "paced" => Ok(Arrivals::Paced),
            "poisson" => Ok(Arrivals::Poisson),
            other => Err(format!(
                "invalid --arrivals \"{other}\": expected paced or poisson"
            )),
        }
    }
}

/// What the replay did, for the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplaySummary {
    pub speed: Speed,
    pub requests: u64,
    /// Requests taken more than 1 ms after their start time.
    pub late: u64,
    pub lag_mean_us: f64,
    pub lag_p99_us: f64,
    pub lag_max_us: f64,
    /// Why the source ended early, if it did.
    pub error: Option<String>,
}

/// What the JSON result of `io --trace` says about the replay.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    pub file: String,
    pub format: String,
    pub device: Option<String>,
    pub map: crate::trace::MapKind,
    /// Records of the trace (one pass).
    pub records: u64,
    /// Records replayed (fewer than `records` if a bound or a signal ended the job).
    pub records_replayed: u64,
    /// Records that needed more than one request (longer than the largest request, or
    /// placed apart by the map).
    pub split_records: u64,
    #[serde(flatten)]
    pub summary: ReplaySummary,
}
