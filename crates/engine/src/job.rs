//! The job: *what* to issue, independent of the target and of the clock.
//!
//! Invariants (checked by [`Job::validate`], before any I/O):
//! - `bs > 0`, `qd > 0`, `threads > 0`, `range_bytes >= bs`, `range_bytes % bs == 0`.
//! - `offset_align` divides nothing in particular but is > 0 and, when it differs from `bs`,
//!   the pattern is random (sequential patterns step by whole blocks).
//! - At least one bound is set: `bytes` and/or `time_ns`; the job stops at whichever comes first.
//! - The psync engine issues one I/O at a time per thread, so it requires `qd == 1`.

use serde::Serialize;
use ssdiq_workload::units::{format_duration_approx, format_size, Rate};
use ssdiq_workload::{DataPattern, Op, Pattern, RwMix};

use crate::error::EngineError;

/// Most submitting threads of one job. Each has its own ring and buffers; past a thousand
/// the machine measures its scheduler, not the device.
pub const MAX_THREADS: u32 = 1024;

/// Longest job: a time bound, or what a rate-limited byte bound implies. The per-second
/// series holds a row a second; a longer run is a mistake, not a benchmark.
pub const MAX_JOB_NS: u64 = 30 * 86_400 * 1_000_000_000;

/// Nanoseconds between two starts of `bytes`-sized requests at `rate`.
fn interval_ns(rate: Rate, bytes: u64) -> f64 {
    match rate {
        Rate::IoPerSec(i) => 1e9 / i,
        Rate::BytesPerSec(b) => bytes as f64 * 1e9 / b,
    }
}

fn rate_text(rate: Rate) -> String {
    match rate {
        Rate::IoPerSec(i) => format!("{i} IOPS"),
        Rate::BytesPerSec(b) => format!("{b} B/s"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    IoUring,
    Psync,
}

impl EngineKind {
    pub fn parse(s: &str) -> Result<Self, EngineError> {
        match s {
            "io_uring" | "io-uring" | "uring" => Ok(EngineKind::IoUring),
            "psync" => Ok(EngineKind::Psync),
            other => Err(EngineError::Invalid(format!(
                "unknown engine \"{other}\": expected io_uring or psync"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Psync => "psync",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// Stop submitting at the first I/O error, drain, and report.
    Stop,
    /// Count the error and keep going.
    Continue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FillMode {
    /// Sequentially write the whole range once before the measured job (preconditioning).
    Seq,
}

/// When the measured job stops: the first bound reached wins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Bound {
    /// Total bytes issued by the main (non-probe) streams, all threads together.
    pub bytes: Option<u64>,
    /// Duration of the measured job in nanoseconds.
    pub time_ns: Option<u64>,
}

/// One job. Paths and engine choices are honoured by the real executor; the emulated executor
/// ignores `engine`, `direct` and `target` beyond its name.
#[derive(Clone, Debug)]
pub struct Job {
    pub target: String,
    pub mix: RwMix,
    pub pattern: Pattern,
    /// Block size: bytes per request (pattern pages are blocks of this size).
    pub bs: u64,
    /// Alignment of random offsets; equals `bs` unless set lower (e.g. 512).
    pub offset_align: u64,
    /// Requests in flight per thread.
    pub qd: u32,
    pub threads: u32,
    /// Bytes of the target the job addresses, from offset 0.
    pub range_bytes: u64,
    pub bound: Bound,
    pub rate: Option<Rate>,
    /// One extra queue-depth-1 stream per listed op, measured separately.
    pub probes: Vec<Op>,
    /// Pace of each probe stream (IOPS or bandwidth); `None` issues back to back. A paced
    /// probe samples latency without adding load of its own worth mentioning.
    pub probe_rate: Option<Rate>,
    pub seed: u64,
    pub data: DataPattern,
    pub fill: Option<FillMode>,
    pub engine: EngineKind,
    /// O_DIRECT (default) or the page cache.
    pub direct: bool,
    pub on_error: OnError,
    /// Period of device-counter samples while the job runs.
    pub counter_interval_ns: u64,
}

impl Job {
    /// A job with the defaults of `ssdiq io`.
    pub fn new(target: impl Into<String>, mix: RwMix, bs: u64, range_bytes: u64) -> Self {
        Job {
            target: target.into(),
            pattern: mix.default_pattern(),
            mix,
            bs,
            offset_align: bs,
            qd: 1,
            threads: 1,
            range_bytes,
            bound: Bound {
                bytes: Some(range_bytes),
                time_ns: None,
            },
            rate: None,
            probes: Vec::new(),
            probe_rate: None,
            seed: 1,
            data: DataPattern::Random,
            fill: None,
            engine: EngineKind::IoUring,
            direct: true,
            on_error: OnError::Stop,
            counter_interval_ns: 10_000_000_000,
        }
    }

    /// True if the job modifies the target (main ops, probes or fill).
    pub fn writes(&self) -> bool {
        self.mix.writes() || self.probes.iter().any(|o| o.modifies()) || self.fill.is_some()
    }

    /// Target-independent checks. Target facts (logical block size, device size) are checked
    /// by [`crate::target::Target::open`].
    pub fn validate(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::Invalid(m));
        if self.bs == 0 {
            return bad("invalid --bs \"0\": must be > 0".into());
        }
        if self.qd == 0 {
            return bad("invalid --qd \"0\": must be >= 1".into());
        }
        if self.qd > 4096 {
            return bad(format!("invalid --qd \"{}\": at most 4096", self.qd));
        }
        if self.threads == 0 {
            return bad("invalid --threads \"0\": must be >= 1".into());
        }
        if self.threads > MAX_THREADS {
            return bad(format!(
                "invalid --threads \"{}\": at most {MAX_THREADS}",
                self.threads
            ));
        }
        if self.engine == EngineKind::Psync && self.qd != 1 {
            return bad(format!(
                "invalid --qd \"{}\" with --engine psync: psync issues one I/O at a time per thread; use --threads or --engine io_uring",
                self.qd
            ));
        }
        if self.offset_align == 0 || self.offset_align > self.bs {
            return bad(format!(
                "invalid --offset-align \"{}\": must be between 1 and --bs ({})",
                self.offset_align, self.bs
            ));
        }
        if self.offset_align != self.bs && self.pattern.is_sequential() {
            return bad(format!(
                "invalid --offset-align \"{}\": only random patterns take an alignment below --bs; {} steps by whole blocks",
                self.offset_align, self.pattern
            ));
        }
        if self.range_bytes < self.bs {
            return bad(format!(
                "invalid --size \"{}\": smaller than one block of --bs {}",
                format_size(self.range_bytes),
                format_size(self.bs)
            ));
        }
        if !self.range_bytes.is_multiple_of(self.bs) {
            return bad(format!(
                "invalid --size \"{}\": not a multiple of --bs {}",
                format_size(self.range_bytes),
                format_size(self.bs)
            ));
        }
        if self.bound.bytes.is_none() && self.bound.time_ns.is_none() {
            return bad("no bound: give --size or --time".into());
        }
        if self.bound.bytes == Some(0) || self.bound.time_ns == Some(0) {
            return bad("the bound is zero: give a positive --size or --time".into());
        }
        if let Some(t) = self.bound.time_ns.filter(|&t| t > MAX_JOB_NS) {
            return bad(format!(
                "invalid --time: {} is longer than a job may run (30 days, 720h)",
                format_duration_approx(t as f64 / 1e9)
            ));
        }
        self.check_rates()?;
        if self.probes.contains(&Op::Trim) || self.probes.contains(&Op::WriteZeroes) {
            return bad("invalid --probe: only read and write probes are supported".into());
        }
        // Build every stream once so a pattern that cannot split over threads fails now.
        for t in 0..self.threads {
            ssdiq_workload::RequestStream::new(&self.pattern, self.mix, self.stream_config(t))
                .map_err(|e| EngineError::Invalid(e.to_string()))?;
        }
        Ok(())
    }

    /// A rate must let the job make progress within its bounds: two requests within the time
    /// bound, and a byte bound reached within [`MAX_JOB_NS`]. Otherwise the job would sit in
    /// a rate wait for years (or forever), which is a typo, not a measurement.
    fn check_rates(&self) -> Result<(), EngineError> {
        let time = self.bound.time_ns;
        let too_slow = |flag: &str, rate: Rate| {
            let gap = interval_ns(rate, self.bs);
            match time {
                Some(t) if gap > t as f64 => Err(EngineError::Invalid(format!(
                    "invalid {flag} \"{}\": one {} request every {}, longer than --time {}; give a higher rate or a longer --time",
                    rate_text(rate),
                    format_size(self.bs),
                    format_duration_approx(gap / 1e9),
                    format_duration_approx(t as f64 / 1e9)
                ))),
                _ => Ok(()),
            }
        };
        if let Some(r) = self.rate {
            too_slow("--rate", r)?;
            if let (None, Some(bytes)) = (time, self.bound.bytes) {
                let total = bytes.div_ceil(self.bs) as f64 * interval_ns(r, self.bs);
                if total > MAX_JOB_NS as f64 {
                    return Err(EngineError::Invalid(format!(
                        "invalid --rate \"{}\": {} would take {} at this rate, longer than 30 days; give a higher rate or a --time",
                        rate_text(r),
                        format_size(bytes),
                        format_duration_approx(total / 1e9)
                    )));
                }
            }
        }
        if let Some(r) = self.probe_rate.filter(|_| !self.probes.is_empty()) {
            too_slow("--probe-rate", r)?;
        }
        Ok(())
    }

    /// Units the pattern draws: `offset_align`-sized slots at which a `bs` request fits.
    pub fn slots(&self) -> u64 {
        (self.range_bytes - self.bs) / self.offset_align + 1
    }

    pub fn stream_config(&self, thread: u32) -> ssdiq_workload::StreamConfig {
        ssdiq_workload::StreamConfig {
            pages: self.slots(),
            page_bytes: self.bs,
            seed: self.seed,
            thread,
            threads: self.threads,
        }
    }

    /// The job as written into result files.
    pub fn info(&self) -> JobInfo {
        JobInfo {
            target: self.target.clone(),
            rw: self.mix.to_string(),
            pattern: self.pattern.to_string(),
            bs: self.bs,
            offset_align: self.offset_align,
            qd: self.qd,
            threads: self.threads,
            range_bytes: self.range_bytes,
            size_bound: self.bound.bytes,
            time_bound_s: self.bound.time_ns.map(|t| t as f64 / 1e9),
            rate: self.rate.map(RateInfo::from),
            probes: self.probes.iter().map(|o| o.name().to_string()).collect(),
            probe_rate: self.probe_rate.map(RateInfo::from),
            seed: self.seed,
            data: self.data.to_string(),
            fill: self.fill,
            engine: self.engine,
            direct: self.direct,
            on_error: self.on_error,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RateInfo {
    pub bytes_per_s: Option<f64>,
    pub iops: Option<f64>,
}

impl From<Rate> for RateInfo {
    fn from(r: Rate) -> Self {
        match r {
            Rate::BytesPerSec(b) => RateInfo {
                bytes_per_s: Some(b),
                iops: None,
            },
            Rate::IoPerSec(i) => RateInfo {
                bytes_per_s: None,
                iops: Some(i),
            },
        }
    }
}

/// The serialisable description of a job (the `"job"` object of the JSON result).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobInfo {
    pub target: String,
    pub rw: String,
    pub pattern: String,
    pub bs: u64,
    pub offset_align: u64,
    pub qd: u32,
    pub threads: u32,
    pub range_bytes: u64,
    pub size_bound: Option<u64>,
    pub time_bound_s: Option<f64>,
    pub rate: Option<RateInfo>,
    pub probes: Vec<String>,
    /// Pace of each probe; `null` when probes issue back to back.
    pub probe_rate: Option<RateInfo>,
    pub seed: u64,
    pub data: String,
    pub fill: Option<FillMode>,
    pub engine: EngineKind,
    pub direct: bool,
    pub on_error: OnError,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> Job {
        Job::new("f", RwMix::parse("randread").unwrap(), 4096, 1 << 20)
    }

    #[test]
    fn validation_rejects_bad_jobs() {
        assert!(job().validate().is_ok());
        let mut j = job();
        j.qd = 0;
        assert!(j.validate().unwrap_err().to_string().contains("--qd"));
        let mut j = job();
        j.engine = EngineKind::Psync;
        j.qd = 4;
        assert!(j.validate().is_err());
        let mut j = job();
        j.range_bytes = 4096 * 3 + 1;
        assert!(j.validate().is_err());
        let mut j = job();
        j.offset_align = 512;
        assert!(j.validate().is_ok());
        assert_eq!(j.slots(), (1 << 20) / 512 - 7);
        j.pattern = Pattern::Seq;
        assert!(j.validate().is_err());
        assert!(EngineKind::parse("libaio").is_err());
    }
}
