//! Statistics of one job: what every executor produces, whatever its clock.
//!
//! Invariants:
//! - Executors supply nanosecond timestamps relative to the start of the measured job
//!   (`at_ns` of completion) and latencies from submission to completion; nothing here reads
//!   a clock, so a virtual-time executor records exactly like the wall-clock one.
//! - A [`Recorder`] belongs to one thread; it allocates every histogram when created and never
//!   allocates while recording (the per-second hand-over to the [`SeriesSink`] happens once a
//!   second).
//! - [`Stats`] is the merge of all recorders; [`Stats::report`] is its serialisable summary,
//!   the `ssdiq/1` `io` document.

use std::collections::BTreeMap;
use std::sync::Arc;

use ssdiq_workload::Op;

use ssdiq_schema::io::{VerifyLog, VerifyMismatch};

use crate::counters::CounterLog;
use crate::hist::OpStats;
use crate::job::JobInfo;
use crate::series::{JobSecond, SeriesSink, StreamId};

pub use ssdiq_schema::io::{Clock, DeviceReport, ErrorLog, FillInfo, IoFailure, IoReport};

/// The symbolic name of the errnos a storage benchmark meets, for messages users search for.
pub fn errno_name(errno: i32) -> Option<&'static str> {
    Some(match errno {
        libc::EPERM => "EPERM",
        libc::EIO => "EIO",
        libc::ENXIO => "ENXIO",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::EROFS => "EROFS",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ETIMEDOUT => "ETIMEDOUT",
        libc::EDQUOT => "EDQUOT",
        libc::EREMOTEIO => "EREMOTEIO",
        libc::EILSEQ => "EILSEQ",
        libc::ENODATA => "ENODATA",
        libc::ENOLINK => "ENOLINK",
        libc::EMEDIUMTYPE => "EMEDIUMTYPE",
        libc::ECANCELED => "ECANCELED",
        _ => return None,
    })
}

/// One line naming the failed request and the error, e.g. "write of 4KiB at offset 8388608
/// failed: No space left on device (ENOSPC)".
pub fn describe(f: &IoFailure) -> String {
    let why = if f.errno == 0 {
        "short transfer".to_string()
    } else {
        let text = std::io::Error::from_raw_os_error(f.errno).to_string();
        let text = text
            .strip_suffix(&format!(" (os error {})", f.errno))
            .unwrap_or(&text)
            .to_string();
        match errno_name(f.errno) {
            Some(n) => format!("{text} ({n})"),
            None => format!("{text} (errno {})", f.errno),
        }
    };
    format!(
        "{} of {} at offset {} failed: {why}",
        f.op.name(),
        ssdiq_workload::units::format_size(f.len),
        f.offset
    )
}

struct StreamRec {
    total: OpStats,
    second: OpStats,
    /// Probe streams with per-interval summaries: the open interval's index and numbers.
    interval: Option<(u64, OpStats)>,
}

/// One probe op's latencies over one interval of `Job::probe_interval_ns` (the last one of a
/// job may be partial).
#[derive(Clone, Debug)]
pub struct ProbeInterval {
    pub index: u64,
    pub op: Op,
    pub stats: OpStats,
}

/// Per-thread recording of completions. Create one per executing thread (or one for a
/// single-threaded virtual-time executor), all sharing one [`SeriesSink`].
pub struct Recorder {
    writer: usize,
    sink: Arc<SeriesSink>,
    streams: [Option<Box<StreamRec>>; 8],
    cur_second: u64,
    interval_ns: u64,
    probe_interval_ns: Option<u64>,
    intervals: Vec<ProbeInterval>,
    /// Per member of a striped target, the main streams' ops it served (empty otherwise).
    members: Vec<BTreeMap<Op, OpStats>>,
    pub errors: ErrorLog,
    pub verify: VerifyLog,
}

impl Recorder {
    /// `writer` is this recorder's index below the sink's writer count; `streams` are the
    /// streams it will record (others are created on first use, which allocates).
    pub fn new(sink: Arc<SeriesSink>, writer: usize, streams: &[StreamId]) -> Self {
        let interval_ns = sink.interval_ns();
        let mut r = Recorder {
            writer,
            sink,
            streams: Default::default(),
            cur_second: 0,
            interval_ns,
            probe_interval_ns: None,
            intervals: Vec::new(),
            members: Vec::new(),
            errors: ErrorLog::default(),
            verify: VerifyLog::default(),
        };
        for &s in streams {
            r.stream(s);
        }
        r
    }

    /// Also summarise probe streams per interval of `ns` (see `ProbeInterval`).
    pub fn with_probe_intervals(mut self, ns: Option<u64>) -> Self {
        self.probe_interval_ns = ns.filter(|&n| n > 0);
        self
    }

    fn stream(&mut self, s: StreamId) -> &mut StreamRec {
        self.streams[s.index()].get_or_insert_with(|| {
            Box::new(StreamRec {
                total: OpStats::default(),
                second: OpStats::default(),
                interval: None,
            })
        })
    }

    /// One completed I/O: finished at `at_ns` after `lat_ns`, moving `bytes`.
    #[inline]
    pub fn record(&mut self, s: StreamId, at_ns: u64, lat_ns: u64, bytes: u64) {
        let second = at_ns / self.interval_ns;
        if second > self.cur_second {
            self.roll(second);
        }
        if let (Some(pi), true) = (self.probe_interval_ns, s.is_probe()) {
            self.record_interval(s, at_ns / pi, lat_ns, bytes);
        }
        let r = self.stream(s);
        r.total.record(lat_ns, bytes);
        r.second.record(lat_ns, bytes);
    }

    fn record_interval(&mut self, s: StreamId, index: u64, lat_ns: u64, bytes: u64) {
        let rec = self.stream(s);
        let done = match &mut rec.interval {
            Some((k, st)) if *k == index => {
                st.record(lat_ns, bytes);
                return;
            }
            slot => slot.take(),
        };
        let mut st = OpStats::default();
        st.record(lat_ns, bytes);
        rec.interval = Some((index, st));
        if let Some((k, stats)) = done {
            self.intervals.push(ProbeInterval {
                index: k,
                op: s.op(),
                stats,
            });
        }
    }

    /// One completed I/O of a main stream that member `member` of a striped target served
    /// (besides [`Recorder::record`], which counts it for the whole).
    pub fn record_member(&mut self, member: usize, op: Op, lat_ns: u64, bytes: u64) {
        if self.members.len() <= member {
            self.members.resize_with(member + 1, BTreeMap::new);
        }
        self.members[member]
            .entry(op)
            .or_default()
            .record(lat_ns, bytes);
    }

    /// A read checked by `--verify`: `checked` blocks, the first mismatch among them.
    #[cold]
    pub fn verified(&mut self, checked: u64, mismatch: Option<VerifyMismatch>) {
        self.verify.record(checked, mismatch);
    }

    /// A failed I/O (counted in errors, not in latency).
    pub fn fail(&mut self, op: Op, offset: u64, len: u64, errno: Option<i32>, at_ns: u64) {
        self.errors.record(op, offset, len, errno, at_ns);
    }

    #[cold]
    fn roll(&mut self, second: u64) {
        self.flush_second();
        self.cur_second = second;
        self.sink.close(self.writer, second);
    }

    fn flush_second(&mut self) {
        for (i, slot) in self.streams.iter_mut().enumerate() {
            if let Some(r) = slot {
                if r.second.ios > 0 {
                    self.sink
                        .push(self.cur_second, StreamId::from_index(i), &r.second);
                    r.second.hist.reset();
                    r.second.ios = 0;
                    r.second.bytes = 0;
                    r.second.lat_sum_ns = 0;
                    r.second.lat_max_ns = 0;
                    r.second.over_1ms = 0;
                }
            }
        }
    }

    /// Hands over the last open second; returns the totals for [`Stats::collect`].
    pub fn finish(mut self) -> RecorderTotals {
        self.flush_second();
        self.sink.close(self.writer, u64::MAX);
        let mut streams = BTreeMap::new();
        let mut intervals = std::mem::take(&mut self.intervals);
        for (i, slot) in self.streams.iter_mut().enumerate() {
            if let Some(mut r) = slot.take() {
                if let Some((index, stats)) = r.interval.take() {
                    intervals.push(ProbeInterval {
                        index,
                        op: StreamId::from_index(i).op(),
                        stats,
                    });
                }
                streams.insert(StreamId::from_index(i), r.total);
            }
        }
        RecorderTotals {
            streams,
            intervals,
            members: self.members,
            errors: self.errors,
            verify: self.verify,
        }
    }
}

pub struct RecorderTotals {
    streams: BTreeMap<StreamId, OpStats>,
    intervals: Vec<ProbeInterval>,
    members: Vec<BTreeMap<Op, OpStats>>,
    errors: ErrorLog,
    verify: VerifyLog,
}

/// Everything measured in one job.
#[derive(Clone, Debug)]
pub struct Stats {
    pub clock: Clock,
    /// Length of the measured job (fill excluded).
    pub elapsed_ns: u64,
    pub ops: BTreeMap<Op, OpStats>,
    pub probes: BTreeMap<Op, OpStats>,
    pub series: Vec<JobSecond>,
    pub errors: ErrorLog,
    /// True if the job was interrupted or stopped on an error before its bound.
    pub partial: bool,
    pub counters: CounterLog,
    pub fill: Option<FillInfo>,
    /// Length of one point of `series`.
    pub series_interval_ns: u64,
    /// Per-interval probe summaries, by (interval, op), when the job asked for them.
    pub probe_intervals: Vec<ProbeInterval>,
    /// Device-log samples, when the job asked for them and the device tells.
    pub device_log: Vec<crate::counters::DeviceSample>,
    /// What `--verify` checked (`None` without it).
    pub verify: Option<VerifyLog>,
    /// Each member of a striped target: its path and the main streams' ops it served.
    pub targets: Vec<(String, BTreeMap<Op, OpStats>)>,
}

impl Stats {
    /// Merges the recorders of a job (all sharing `sink`) that ran for `elapsed_ns`.
    pub fn collect(
        clock: Clock,
        elapsed_ns: u64,
        parts: Vec<RecorderTotals>,
        sink: &SeriesSink,
    ) -> Stats {
        let mut ops: BTreeMap<Op, OpStats> = BTreeMap::new();
        let mut probes: BTreeMap<Op, OpStats> = BTreeMap::new();
        let mut errors = ErrorLog::default();
        let mut verify = VerifyLog::default();
        let mut intervals: BTreeMap<(u64, Op), OpStats> = BTreeMap::new();
        let mut members: Vec<BTreeMap<Op, OpStats>> = Vec::new();
        for p in parts {
            if members.len() < p.members.len() {
                members.resize_with(p.members.len(), BTreeMap::new);
            }
            for (m, ops) in p.members.iter().enumerate() {
                for (op, st) in ops {
                    members[m].entry(*op).or_default().merge(st);
                }
            }
            for (s, st) in p.streams {
                let map = if s.is_probe() { &mut probes } else { &mut ops };
                map.entry(s.op()).or_default().merge(&st);
            }
            for i in p.intervals {
                match intervals.entry((i.index, i.op)) {
                    std::collections::btree_map::Entry::Vacant(v) => {
                        v.insert(i.stats);
                    }
                    std::collections::btree_map::Entry::Occupied(mut o) => {
                        o.get_mut().merge(&i.stats)
                    }
                }
            }
            errors.merge(&p.errors);
            verify.merge(&p.verify);
        }
        let (series, series_interval_ns) = sink.finish(elapsed_ns);
        Stats {
            clock,
            elapsed_ns,
            ops,
            probes,
            series,
            errors,
            partial: false,
            counters: CounterLog::default(),
            fill: None,
            series_interval_ns,
            probe_intervals: intervals
                .into_iter()
                .map(|((index, op), stats)| ProbeInterval { index, op, stats })
                .collect(),
            device_log: Vec::new(),
            // The executor keeps it only for a job with --verify.
            verify: Some(verify),
            // The executor names the members.
            targets: members
                .into_iter()
                .map(|ops| (String::new(), ops))
                .collect(),
        }
    }

    /// The `ssdiq/1` `io` document.
    pub fn report(&self, job: JobInfo) -> IoReport {
        let verify = self.verify.clone().filter(|_| job.verify);
        let sum = |m: &BTreeMap<Op, OpStats>| {
            m.iter()
                .map(|(op, s)| (op.name().to_string(), s.summary(self.elapsed_ns)))
                .collect()
        };
        IoReport {
            schema: ssdiq_schema::SCHEMA.into(),
            kind: "io".into(),
            job,
            clock: self.clock,
            elapsed_s: self.elapsed_ns as f64 / 1e9,
            ops: sum(&self.ops),
            probes: sum(&self.probes),
            errors: self.errors.clone(),
            device: DeviceReport {
                host_bytes: self.counters.host_bytes(),
                media_bytes: self.counters.media_bytes(),
                waf: self.counters.waf(),
                buffered_change_bytes: self.counters.buffered_change(),
                counters: self.counters.clone(),
            },
            fill: self.fill,
            series: self.series.clone(),
            partial: self.partial,
            verify,
            targets: self
                .targets
                .iter()
                .map(|(path, ops)| ssdiq_schema::io::TargetOps {
                    path: path.clone(),
                    ops: ops
                        .iter()
                        .map(|(op, s)| (op.name().to_string(), s.summary(self.elapsed_ns)))
                        .collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorders_merge_into_series_and_totals() {
        let sink = Arc::new(SeriesSink::new(2));
        let r_s = StreamId::main(Op::Read);
        let p_w = StreamId::probe(Op::Write);
        let mut a = Recorder::new(sink.clone(), 0, &[r_s]);
        let mut b = Recorder::new(sink.clone(), 1, &[r_s, p_w]);
        // Second 0: 100 reads from a, 100 from b; second 1 empty; second 2: 10 from a.
        for i in 0..100u64 {
            a.record(r_s, i * 1_000_000, 1000 + i, 4096);
            b.record(r_s, i * 1_000_000 + 5, 2000, 4096);
        }
        b.record(p_w, 500_000_000, 5_000_000, 4096);
        for i in 0..10u64 {
            a.record(r_s, 2_000_000_000 + i, 3000, 4096);
        }
        b.fail(Op::Read, 8192, 4096, Some(5), 77);
        a.fail(Op::Read, 4096, 4096, None, 99);
        let stats = Stats::collect(
            Clock::Virtual,
            2_500_000_000,
            vec![a.finish(), b.finish()],
            &sink,
        );
        assert_eq!(stats.ops[&Op::Read].ios, 210);
        assert_eq!(stats.probes[&Op::Write].over_1ms, 1);
        let reads: Vec<_> = stats.series.iter().filter(|p| p.stream == "read").collect();
        assert_eq!(reads.len(), 3);
        assert_eq!(reads[0].ios, 200);
        assert_eq!(reads[1].ios, 0);
        assert_eq!(reads[2].ios, 10);
        assert_eq!(reads[2].iops, 20.0); // 10 I/Os in the last half second
        assert_eq!(reads[0].lat_p99_ns, 2000);
        assert_eq!(stats.errors.count, 2);
        assert_eq!(stats.errors.first.as_ref().unwrap().offset, 8192);
        assert_eq!(
            describe(stats.errors.first.as_ref().unwrap()),
            "read of 4KiB at offset 8192 failed: Input/output error (EIO)"
        );
        let json = serde_json::to_value(
            stats.report(
                crate::Job::new(
                    "x",
                    ssdiq_workload::RwMix::parse("read").unwrap(),
                    4096,
                    4096,
                )
                .info(),
            ),
        )
        .unwrap();
        assert_eq!(json["ops"]["read"]["ios"], 210);
        assert!(json["ops"]["read"]["lat_ns"]["p99.999"].is_u64());
        assert_eq!(json["probes"]["write"]["over_1ms"], 1.0);
        assert_eq!(json["clock"], "virtual");
    }
}
