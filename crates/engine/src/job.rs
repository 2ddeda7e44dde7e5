//! The job: *what* to issue, independent of the target and of the clock.
//!
//! Invariants (checked by [`Job::validate`], before any I/O):
//! - `bs > 0`, `qd > 0`, `threads > 0`, `range_bytes >= bs`, `range_bytes % bs == 0`.
//! - `offset_align` divides nothing in particular but is > 0 and, when it differs from `bs`,
//!   the pattern is random (sequential patterns step by whole blocks).
//! - At least one bound is set: `bytes` and/or `time_ns`; the job stops at whichever comes first.
//! - The psync engine issues one I/O at a time per thread, so it requires `qd == 1`.

use std::sync::Arc;

pub use ssdiq_schema::io::{
    Arrivals, EngineKind, FillMode, JobInfo, OnError, RateInfo, ReplayInfo,
};

use serde::Serialize;
use ssdiq_workload::units::{format_duration_approx, format_size, Rate};
use ssdiq_workload::{DataPattern, Op, Pattern, RwMix};

use crate::error::EngineError;

/// io_uring's setup and registration options, each with fio's meaning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UringOptions {
    /// `--hipri`: polled completions (IORING_SETUP_IOPOLL); needs O_DIRECT and a block
    /// device with poll queues.
    pub hipri: bool,
    /// `--sqpoll`: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL).
    pub sqpoll: Option<SqPoll>,
    /// `--fixedbufs`: the I/O buffers are registered (no page pinning per I/O).
    pub fixedbufs: bool,
    /// `--registerfiles`: the file is registered (no fd lookup per I/O).
    pub registerfiles: bool,
}

/// The submission-queue polling thread's placement and idle time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SqPoll {
    /// `--sqpoll-cpu`: the CPU the thread is bound to.
    pub cpu: Option<u32>,
    /// `--sqpoll-idle`: milliseconds without submissions before the thread sleeps.
    pub idle_ms: u32,
}

/// fio's default `sqthread_poll` idle time (the kernel's, 1 s), in ms.
pub const SQPOLL_IDLE_MS: u32 = 1000;

impl UringOptions {
    /// What the job file and the JSON call each option that is on (fio's names).
    pub fn names(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.hipri {
            v.push("hipri".to_string());
        }
        if let Some(s) = self.sqpoll {
            v.push(match s.cpu {
                Some(c) => format!("sqthread_poll(cpu {c}, idle {} ms)", s.idle_ms),
                None => format!("sqthread_poll(idle {} ms)", s.idle_ms),
            });
        }
        if self.fixedbufs {
            v.push("fixedbufs".to_string());
        }
        if self.registerfiles {
            v.push("registerfiles".to_string());
        }
        v
    }

    /// The file and the buffers registered: the suite's and the store's jobs.
    pub fn registered() -> Self {
        UringOptions {
            fixedbufs: true,
            registerfiles: true,
            ..Default::default()
        }
    }
}

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

/// A latency probe: one extra stream of 4 KiB-class requests beside the main load, measured
/// apart from it. `read_percent` 100 reads, 0 writes, anything between mixes them per request
/// (the SSD-iq probe thread is half reads, half writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub read_percent: u8,
}

impl Probe {
    pub const READ: Probe = Probe { read_percent: 100 };
    pub const WRITE: Probe = Probe { read_percent: 0 };

    /// `read`, `write`, or `rw:R` (R percent reads).
    pub fn parse(s: &str) -> Option<Probe> {
        match s.trim() {
            "read" => Some(Probe::READ),
            "write" => Some(Probe::WRITE),
            other => {
                let r = other.strip_prefix("rw:")?.parse::<u8>().ok()?;
                (r <= 100).then_some(Probe { read_percent: r })
            }
        }
    }

    pub fn name(self) -> String {
        match self.read_percent {
            100 => "read".into(),
            0 => "write".into(),
            r => format!("rw:{r}"),
        }
    }

    pub fn ops(self) -> Vec<Op> {
        match self.read_percent {
            100 => vec![Op::Read],
            0 => vec![Op::Write],
            _ => vec![Op::Read, Op::Write],
        }
    }

    pub fn writes(self) -> bool {
        self.read_percent < 100
    }
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
    /// Each thread addresses its own 1/threads of the range, random patterns too (fio's
    /// jobs on separate files); otherwise random patterns draw over the whole range.
    pub own_regions: bool,
    /// First byte the job addresses (fio's `offset`); its I/Os fall in
    /// `[offset_bytes, offset_bytes + range_bytes)`.
    pub offset_bytes: u64,
    /// Bytes of the target the job addresses, from `offset_bytes`.
    pub range_bytes: u64,
    pub bound: Bound,
    pub rate: Option<Rate>,
    /// How `rate` spaces the main load's I/Os.
    pub arrivals: Arrivals,
    /// Extra streams measured separately from the main load (`ssdiq io --probe`).
    pub probes: Vec<Probe>,
    /// Pace of each probe stream (IOPS or bandwidth); `None` issues back to back (closed
    /// loop, latency from submission). A paced probe is open loop: its I/Os are due at fixed
    /// intervals whatever the target does, and latency is timed from the due time, so a
    /// stall shows in the tail instead of pausing the sampling (no coordinated omission).
    pub probe_rate: Option<Rate>,
    /// I/Os each probe may have in flight (a paced probe whose target stalls queues the due
    /// I/Os beyond this in the host; their wait counts).
    pub probe_qd: u32,
    /// False: a paced probe is a closed-loop throttle instead (fio's `rate_iops`: latency
    /// from submission, at most 10 ms of credit after a stall), which under-samples stalls;
    /// for comparison with tools that measure that way.
    pub probe_open_loop: bool,
    /// Length of one point of the time series (`Stats::series`), 1 s by default.
    pub series_interval_ns: u64,
    /// When set, probe latencies are also summarised per interval of this length
    /// (`Stats::probe_intervals`), like iob's per-minute statistics of its latency thread.
    pub probe_interval_ns: Option<u64>,
    /// When set, the device's health counters are sampled at every multiple of this
    /// (`Stats::device_log`); needs an executor with device counters.
    pub device_log_ns: Option<u64>,
    pub seed: u64,
    /// Where a skewed pattern puts its hot (or read-only) pages, when not from `seed`: jobs
    /// that continue one workload set the same value so the layout does not move between them.
    pub layout_seed: Option<u64>,
    pub data: DataPattern,
    pub fill: Option<FillMode>,
    pub engine: EngineKind,
    /// io_uring's options (fio's meanings). [`Job::new`] registers the file and buffers (the
    /// suite's and the store's jobs); `ssdiq io` takes them from its flags, off unless given,
    /// as fio's.
    pub uring: UringOptions,
    /// `--fdp-pid` (uring-cmd, or an emulated drive's placement streams): the FDP placement
    /// identifier the job's writes carry (reclaim group and handle, as the drive's DSPEC),
    /// for all or by region of the range; `None`: no directive.
    pub fdp: Option<crate::placement::FdpPlacement>,
    /// `--stripe` (RAID0): `target` lists block devices separated by commas, and the range is
    /// dealt over them in chunks of this many bytes ([`crate::stripe`]); `None`: one target.
    pub stripe: Option<u64>,
    /// `--verify`: every written block carries a checksummed header, every read block is
    /// checked, and a job that writes reads its range back at the end ([`crate::verify`]).
    pub verify: bool,
    /// O_DIRECT (default) or the page cache.
    pub direct: bool,
    pub on_error: OnError,
    /// Period of device-counter samples while the job runs.
    pub counter_interval_ns: u64,
    /// A recording to replay instead of the pattern and mix: its requests, in units of
    /// `bs` from offset 0, at its times. The job ends with the recording (or a bound).
    pub replay: Option<Arc<crate::replay::Replay>>,
    /// How many blocks of a larger device each block of the range stands for (1: itself):
    /// an emulated drive scaled down from its full size sets it, so patterns whose shape
    /// depends on the block count (`zipf`) draw as over the full-size drive
    /// (`ssdiq_workload::StreamConfig::represents`). Not part of the job's description.
    pub represents: f64,
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
            own_regions: false,
            offset_bytes: 0,
            range_bytes,
            bound: Bound {
                bytes: Some(range_bytes),
                time_ns: None,
            },
            rate: None,
            arrivals: Arrivals::Paced,
            probes: Vec::new(),
            probe_rate: None,
            probe_qd: 1,
            probe_open_loop: true,
            series_interval_ns: 1_000_000_000,
            probe_interval_ns: None,
            device_log_ns: None,
            seed: 1,
            layout_seed: None,
            data: DataPattern::Random,
            fill: None,
            engine: EngineKind::IoUring,
            uring: UringOptions::registered(),
            fdp: None,
            stripe: None,
            verify: false,
            direct: true,
            on_error: OnError::Stop,
            counter_interval_ns: 10_000_000_000,
            replay: None,
            represents: 1.0,
        }
    }

    /// The ops the main streams may issue: the mix's, trims for patterns that discard, and
    /// reads, writes and trims for a replay.
    pub fn main_ops(&self) -> Vec<Op> {
        if self.replay.is_some() {
            return vec![Op::Read, Op::Write, Op::Trim];
        }
        let mut v = self.mix.ops();
        if matches!(self.pattern, Pattern::Zns { .. }) {
            v.push(Op::Trim);
        }
        v
    }

    /// The largest request a main stream issues (executors size their buffers by it).
    pub fn max_io_bytes(&self) -> u64 {
        match &self.replay {
            Some(r) => r.max_request_bytes.max(self.bs),
            None => self.bs,
        }
    }

    /// True if the job reads the target (main ops or probes).
    pub fn reads(&self) -> bool {
        self.mix.ops().contains(&Op::Read) || self.probes.iter().any(|p| p.read_percent > 0)
    }

    /// True if the job modifies the target (main ops, probes or fill).
    pub fn writes(&self) -> bool {
        let main = match &self.replay {
            Some(r) => r.writes,
            None => self.mix.writes(),
        };
        main || self.probes.iter().any(|p| p.writes()) || self.fill.is_some()
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
        if self.verify
            && self.replay.is_none()
            && self.fill.is_none()
            && !self
                .mix
                .ops()
                .iter()
                .any(|o| matches!(o, Op::Read | Op::Write))
        {
            return bad(format!(
                "invalid --verify with --rw {}: the job neither reads nor writes a block to check (add reads or writes, or --fill seq)",
                self.mix
            ));
        }
        if self.verify {
            if self.offset_align != self.bs {
                return bad(format!(
                    "invalid --offset-align \"{}\" with --verify: a verified block is one request of --bs ({}) at a multiple of it",
                    self.offset_align, self.bs
                ));
            }
            if self.bs < crate::verify::HEADER_BYTES as u64 {
                return bad(format!(
                    "invalid --bs \"{}\" with --verify: a block holds a {}-byte header",
                    self.bs,
                    crate::verify::HEADER_BYTES
                ));
            }
            let table =
                crate::verify::Verifier::table_bytes(self.offset_bytes + self.range_bytes, self.bs);
            if self.writes() && table > crate::verify::MAX_TABLE_BYTES {
                return bad(format!(
                    "invalid --verify over {}: the generations of its {} blocks of --bs would take {} of memory (at most {}); verify a smaller --size or a larger --bs",
                    format_size(self.range_bytes),
                    (self.offset_bytes + self.range_bytes).div_ceil(self.bs),
                    format_size(table),
                    format_size(crate::verify::MAX_TABLE_BYTES)
                ));
            }
        }
        if self.engine == EngineKind::UringCmd && !self.direct {
            return bad("invalid --buffered with --engine uring-cmd: NVMe passthrough commands never pass the page cache".into());
        }
        if let Some(chunk) = self.stripe {
            if chunk == 0 || !chunk.is_multiple_of(self.bs) {
                return bad(format!(
                    "invalid --stripe \"{chunk}\": not a whole number of --bs blocks ({}), so a request would span two devices",
                    self.bs
                ));
            }
            if !self.offset_align.is_multiple_of(self.bs) {
                return bad(format!(
                    "invalid --offset-align \"{}\" with --stripe: a request of --bs ({}) must start on a multiple of it, so it stays on one device",
                    self.offset_align, self.bs
                ));
            }
            if !self.offset_bytes.is_multiple_of(self.bs) {
                return bad(format!(
                    "invalid --offset \"{}\" with --stripe: not a multiple of --bs ({})",
                    self.offset_bytes, self.bs
                ));
            }
            if self.replay.is_some() {
                return bad(
                    "invalid --trace with --stripe: a trace's requests may span two devices".into(),
                );
            }
            if self.engine == EngineKind::UringCmd {
                return bad(
                    "invalid --stripe with --engine uring-cmd: a stripe is of block devices".into(),
                );
            }
        }
        if let Some(p) = &self.fdp {
            let emulated = self.target.starts_with("emu:");
            if self.engine != EngineKind::UringCmd && !emulated {
                return bad(format!(
                    "invalid --fdp-pid with --engine {}: a placement handle travels in the NVMe write command (use --engine uring-cmd on /dev/ngXnY, or an emulated drive)",
                    self.engine.name()
                ));
            }
            p.resolve(self.offset_bytes, self.range_bytes, self.bs)
                .map_err(EngineError::Invalid)?;
        }
        if self.engine == EngineKind::IoUring && self.uring.hipri && !self.direct {
            return bad("invalid --hipri with --buffered: polled completions need O_DIRECT".into());
        }
        if self.engine == EngineKind::Libaio && !self.direct {
            return bad("invalid --buffered with --engine libaio: Linux AIO is asynchronous only with O_DIRECT (buffered, io_submit blocks); use --engine io_uring or psync".into());
        }
        if self.engine == EngineKind::Psync && self.qd != 1 {
            return bad(format!(
                "invalid --qd \"{}\" with --engine psync: psync issues one I/O at a time per thread; use --threads or --engine io_uring",
                self.qd
            ));
        }
        // A zns: stream trims each zone before it rewrites it: without writes, a job would only
        // discard data (on a real drive, for good).
        if matches!(self.pattern, Pattern::Zns { .. })
            && self.replay.is_none()
            && !self.mix.ops().contains(&Op::Write)
        {
            return bad(format!(
                "invalid --pattern \"{}\" for a job that does not write: zns: trims each zone before rewriting it, so it needs --rw write (or a mix with writes)",
                self.pattern
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
        if self.bound.bytes.is_none() && self.bound.time_ns.is_none() && self.replay.is_none() {
            return bad("no bound: give --size or --time".into());
        }
        if self.bound.bytes == Some(0) || self.bound.time_ns == Some(0) {
            return bad("the bound is zero: give a positive --size or --time".into());
        }
        if self.probe_qd == 0 || self.probe_qd > 4096 {
            return bad(format!(
                "invalid --probe-qd \"{}\": expected 1 to 4096",
                self.probe_qd
            ));
        }
        if self.engine == EngineKind::Psync && self.probe_qd != 1 && !self.probes.is_empty() {
            return bad(format!(
                "invalid --probe-qd \"{}\" with --engine psync: psync issues one I/O at a time per thread",
                self.probe_qd
            ));
        }
        if self.arrivals == Arrivals::Poisson && self.rate.is_none() {
            return bad(
                "invalid --arrivals \"poisson\": needs --rate (the mean arrival rate)".into(),
            );
        }
        if self.series_interval_ns < 1_000_000 {
            return bad("series interval below 1 ms".into());
        }
        if let Some(t) = self.bound.time_ns.filter(|&t| t > MAX_JOB_NS) {
            return bad(format!(
                "invalid --time: {} is longer than a job may run (30 days, 720h)",
                format_duration_approx(t as f64 / 1e9)
            ));
        }
        self.check_rates()?;
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

    /// The end of the bytes the job addresses: `offset_bytes + range_bytes`.
    pub fn extent(&self) -> u64 {
        self.offset_bytes.saturating_add(self.range_bytes)
    }

    /// The flags that set [`Self::extent`], for a message that says it is too far:
    /// `--size "4MiB"`, or `--offset "2MiB" with --size "4MiB" (ending at 6MiB)`.
    pub fn extent_flags(&self) -> String {
        let size = format_size(self.range_bytes);
        if self.offset_bytes == 0 {
            format!("--size \"{size}\"")
        } else {
            format!(
                "--offset \"{}\" with --size \"{size}\" (ending at {})",
                format_size(self.offset_bytes),
                format_size(self.extent())
            )
        }
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
            layout_seed: self.layout_seed.unwrap_or(self.seed),
            thread,
            threads: self.threads,
            own_region: self.own_regions,
            represents: self.represents,
        }
    }

    /// The job as written into result files.
    pub fn info(&self) -> JobInfo {
        JobInfo {
            target: self.target.clone(),
            rw: if self.replay.is_some() {
                "replay".into()
            } else {
                self.mix.to_string()
            },
            pattern: if self.replay.is_some() {
                "trace".into()
            } else {
                self.pattern.to_string()
            },
            bs: self.bs,
            offset_align: self.offset_align,
            qd: self.qd,
            threads: self.threads,
            own_regions: self.own_regions,
            offset_bytes: self.offset_bytes,
            range_bytes: self.range_bytes,
            size_bound: self.bound.bytes,
            time_bound_s: self.bound.time_ns.map(|t| t as f64 / 1e9),
            rate: self.rate.map(RateInfo::from),
            arrivals: self.arrivals,
            probes: self.probes.iter().map(|p| p.name()).collect(),
            probe_rate: self.probe_rate.map(RateInfo::from),
            probe_qd: self.probe_qd,
            probe_open_loop: self.probe_open_loop,
            seed: self.seed,
            layout_seed: self.layout_seed,
            data: self.data.to_string(),
            fill: self.fill,
            engine: self.engine,
            engine_options: self.uring.names(),
            verify: self.verify,
            stripe_bytes: self.stripe,
            fdp_pid: match &self.fdp {
                Some(crate::placement::FdpPlacement::All(p)) => Some(*p),
                _ => None,
            },
            fdp_regions: self
                .fdp
                .as_ref()
                .and_then(|p| p.resolve(self.offset_bytes, self.range_bytes, self.bs).ok())
                .map(|r| {
                    r.regions()
                        .iter()
                        .map(|&(from_bytes, to_bytes, pid)| ssdiq_schema::io::FdpRegion {
                            from_bytes,
                            to_bytes,
                            pid,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            direct: self.direct,
            on_error: self.on_error,
            replay: self.replay.as_ref().map(|r| ReplayInfo {
                speed: r.speed,
                max_request_bytes: r.max_request_bytes,
            }),
        }
    }
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
        assert!(EngineKind::parse("spdk").is_err());
        // Polling and AIO only with O_DIRECT.
        let mut j = job();
        j.engine = EngineKind::Libaio;
        assert!(j.validate().is_ok());
        j.direct = false;
        assert!(j.validate().unwrap_err().to_string().contains("libaio"));
        let mut j = job();
        j.uring.hipri = true;
        j.direct = false;
        assert!(j.validate().unwrap_err().to_string().contains("--hipri"));
        let mut j = job();
        j.arrivals = Arrivals::Poisson;
        assert!(j.validate().unwrap_err().to_string().contains("--rate"));
        j.rate = Some(Rate::IoPerSec(1000.0));
        assert!(j.validate().is_ok());
    }

    #[test]
    fn a_zns_job_must_write() {
        let mut j = job();
        j.pattern = Pattern::parse("zns:64KiB").unwrap();
        let e = j.validate().unwrap_err().to_string();
        assert!(
            e.contains("zns: trims each zone before rewriting it"),
            "{e}"
        );
        j.mix = RwMix::parse("write").unwrap();
        assert!(j.validate().is_ok());
        j.mix = RwMix::parse("rw:70").unwrap();
        assert!(j.validate().is_ok());
    }

    #[test]
    fn probes_parse_and_name() {
        assert_eq!(Probe::parse("read"), Some(Probe::READ));
        assert_eq!(Probe::parse("rw:50").unwrap().name(), "rw:50");
        assert_eq!(Probe::parse("rw:50").unwrap().ops(), [Op::Read, Op::Write]);
        assert_eq!(Probe::parse("rw:101"), None);
        assert_eq!(Probe::parse("trim"), None);
    }
}
