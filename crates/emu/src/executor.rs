//! The emulated executor: runs the same [`Job`]s as the real one against an emulated SSD
//! (`emu:PROFILE[,key=value...]`), in virtual time.
//!
//! Invariants:
//! - One thread, one discrete-event loop: every I/O slot (threads x qd, plus one per probe)
//!   has at most one pending event (its completion, or its rate-limited start); events are
//!   processed in (time, slot) order, drive-internal events first at equal times. So a seed
//!   gives bit-identical [`Stats`].
//! - Timestamps handed to the [`Recorder`] are virtual nanoseconds since the measured job
//!   started; `--time 60s` is 60 virtual seconds. Nothing reads the wall clock.
//! - The drive persists across [`Executor::run`] calls (a suite preconditions, then runs
//!   steps on the same drive) and its clock only moves forward; [`EmuExecutor::reset`] gives
//!   a fresh drive, with counters still counting like a real drive after a format.
//! - The stop flag is honoured at every request (in-flight I/O drains, stats are partial).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use ssdiq_engine::verify::Verifier;
use ssdiq_engine::EngineError;
use ssdiq_engine::Executor;
use ssdiq_engine::Job;
use ssdiq_engine::RunControl;
use ssdiq_engine::SeriesSink;
use ssdiq_engine::StreamId;
use ssdiq_engine::{Clock, FillInfo, Recorder, RecorderTotals, Stats};
use ssdiq_engine::{
    CounterLog, CounterSample, DeviceCounters, DeviceHealth, DeviceSample, WriteCounters,
};
use ssdiq_engine::{Feed, Io, Shared};
use ssdiq_workload::units::format_size;
use ssdiq_workload::{Op, Pattern, RwMix};

use crate::drive::{Drive, LBA_BYTES};
use crate::profile::Profile;

pub use crate::profile::Spec as EmuSpec;

/// Requests in flight during `--fill seq` on the emulated drive (assumption: a host filling
/// a drive with 1 MiB writes keeps a few in flight).
const FILL_QD: u32 = 8;
const FILL_CHUNK: u64 = 1 << 20;

/// Most device-log samples one job keeps (see `run_loop`).
const MAX_DEVICE_LOG: usize = 20_000;

pub struct EmuExecutor {
    drive: Drive,
    profile: Profile,
    description: String,
}

fn invalid(m: String) -> EngineError {
    EngineError::Invalid(m)
}

impl EmuExecutor {
    /// Opens `emu:NAME[,key=value...]` or `emu:path/to/profile.toml[,key=value...]`.
    pub fn open(target: &str) -> Result<EmuExecutor, EngineError> {
        Self::from_profile(Self::profile_of(target)?)
    }

    /// The profile `target` names, parsed and checked, without building the drive.
    pub fn profile_of(target: &str) -> Result<Profile, EngineError> {
        Profile::from_target(target).map_err(|e| invalid(e.to_string()))
    }

    /// An executor over a parsed profile.
    pub fn from_profile(profile: Profile) -> Result<EmuExecutor, EngineError> {
        let drive = Drive::new(&profile).map_err(|e| invalid(e.to_string()))?;
        let mut e = EmuExecutor {
            drive,
            profile,
            description: String::new(),
        };
        e.description = e.summary();
        Ok(e)
    }

    pub fn profile_name(&self) -> &str {
        &self.profile.name
    }
    pub fn profile(&self) -> &Profile {
        &self.profile
    }
    pub fn drive(&self) -> &Drive {
        &self.drive
    }

    /// One line, e.g. "emulated data-center TLC, 16GiB, 12.06% OP, greedy GC".
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The profile's description with the drive's size, OP and GC policy.
    fn summary(&self) -> String {
        format!(
            "{}, {}, {:.2}% OP, {}{}",
            self.profile.description,
            capacity_text(self.capacity_bytes()),
            self.op() * 100.0,
            self.profile.gc_phrase(),
            if self.profile.nand.suspend {
                ""
            } else {
                ", no suspension"
            }
        )
    }

    /// Logical capacity.
    pub fn capacity_bytes(&self) -> u64 {
        self.drive.geometry().logical_bytes()
    }
    /// The logical block size the drive is formatted with (its smallest I/O).
    pub fn logical_block_size(&self) -> u64 {
        self.profile.host.lba_bytes
    }
    /// True OP = (physical - logical) / logical.
    pub fn op(&self) -> f64 {
        self.drive.geometry().op()
    }
    pub fn spec(&self) -> EmuSpec {
        self.profile.spec
    }
    /// A fresh drive: everything unmapped; counters keep counting.
    pub fn reset(&mut self) {
        self.drive.reset();
    }
    pub fn write_counters(&self) -> WriteCounters {
        drive_write_counters(&self.drive)
    }
    /// Lets `ns` of virtual time pass with no host I/O (background work runs, e.g. the write
    /// buffer drains), like a host pausing between jobs.
    pub fn idle_for(&mut self, ns: u64) {
        let t = self.drive.now().saturating_add(ns);
        self.drive.advance(t);
    }

    /// The virtual clock, in nanoseconds since the drive was created.
    pub fn now_ns(&self) -> u64 {
        self.drive.now()
    }

    fn check(&self, job: &Job) -> Result<(), EngineError> {
        let lba = self.logical_block_size();
        for (flag, v) in [
            ("--bs", job.bs),
            ("--offset-align", job.offset_align),
            // Zero is aligned; the emulated drive checks a non-zero offset.
            (
                "--offset",
                job.offset_bytes + lba * u64::from(job.offset_bytes == 0),
            ),
        ] {
            if !v.is_multiple_of(lba) {
                return Err(invalid(format!(
                    "invalid {flag} \"{v}\": the emulated drive has {lba}-byte logical blocks; expected a multiple of {lba}"
                )));
            }
        }
        if let Some(p) = &job.fdp {
            let streams = self.profile.drive.streams.max(1);
            if u32::from(p.max_pid()) >= streams {
                return Err(invalid(format!(
                    "invalid --fdp-pid \"{p}\" for {}: identifier {} is not below the emulated drive's {streams} placement stream{} (drive.streams); expected identifiers below {streams}, or more streams (,streams=N)",
                    job.target,
                    p.max_pid(),
                    if streams == 1 { "" } else { "s" }
                )));
            }
        }
        if job.verify
            && !(job.bs.is_multiple_of(LBA_BYTES) && job.offset_bytes.is_multiple_of(LBA_BYTES))
        {
            return Err(invalid(format!(
                "invalid --bs \"{}\" with --verify on {}: the emulated drive keeps a write generation per {LBA_BYTES}-byte unit; expected --bs and --offset in multiples of {LBA_BYTES}",
                job.bs, job.target
            )));
        }
        if job.verify && !job.writes() {
            return Err(invalid(format!(
                "invalid --verify for {}: a job that only reads finds nothing a verifying job wrote on a fresh emulated drive, which keeps write generations, not data; add --fill seq, or writes",
                job.target
            )));
        }
        if job.extent() > self.capacity_bytes() {
            return Err(invalid(format!(
                "invalid {}: beyond the emulated drive's capacity of {}",
                job.extent_flags(),
                format_size(self.capacity_bytes())
            )));
        }
        Ok(())
    }

    /// `--fill seq`: the whole range once, 1 MiB sequential writes at QD 8, in virtual time.
    fn fill(&mut self, job: &Job, ctl: &RunControl<'_>, verifier: Option<&Verifier>) -> FillInfo {
        // Whole blocks of the job in each request, so --verify's generations start on one.
        let chunk = FILL_CHUNK.next_multiple_of(job.bs);
        let bs = if job.range_bytes.is_multiple_of(chunk) {
            chunk
        } else {
            job.bs
        };
        let mut f = Job::new(
            job.target.clone(),
            RwMix::parse("write").expect("static mix"),
            bs,
            job.range_bytes,
        );
        f.pattern = Pattern::Seq;
        f.qd = FILL_QD;
        f.seed = job.seed;
        let total = job.range_bytes;
        ctl.progress.fill(0, total);
        let r = self.run_loop(&f, ctl, verifier, &mut |_, bytes| {
            ctl.progress.fill(bytes, total)
        });
        ctl.progress.fill(r.bytes, total);
        FillInfo {
            bytes: r.bytes.min(total),
            seconds: r.elapsed_ns as f64 / 1e9,
            layout: false,
        }
    }

    /// The event loop of one job. `progress(elapsed_ns, bytes_issued)` is called now and then.
    fn run_loop(
        &mut self,
        job: &Job,
        ctl: &RunControl<'_>,
        verifier: Option<&Verifier>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> LoopResult {
        let t0 = self.drive.now();
        let shared = Shared::new(job, &ctl.stop);
        let mut feeds: Vec<Feed> = (0..job.threads).map(|t| Feed::main(job, t)).collect();
        for (i, &probe) in job.probes.iter().enumerate() {
            feeds.push(Feed::probe(job, probe, i as u32));
        }
        let mut slots: Vec<Slot> = Vec::new();
        for t in 0..job.threads as usize {
            for _ in 0..job.qd {
                slots.push(Slot::new(t));
            }
        }
        for i in 0..job.probes.len() {
            for _ in 0..job.probe_qd {
                slots.push(Slot::new(job.threads as usize + i));
            }
        }
        let sink = Arc::new(SeriesSink::with_interval(1, job.series_interval_ns));
        let mut streams: Vec<StreamId> = job.main_ops().into_iter().map(StreamId::main).collect();
        for p in &job.probes {
            streams.extend(p.ops().into_iter().map(StreamId::probe));
        }
        let mut l = Loop {
            drive: &mut self.drive,
            shared: &shared,
            feeds,
            slots,
            heap: BinaryHeap::new(),
            rec: Recorder::new(sink.clone(), 0, &streams)
                .with_probe_intervals(job.probe_interval_ns),
            t0,
            main_left: job.threads as usize * job.qd as usize,
            parked: 0,
            last_ns: 0,
            idle_until: 0,
            admitted: Vec::new(),
            queue_limit: self
                .profile
                .queue_limit()
                .map_or(usize::MAX, |q| q as usize),
            in_drive: 0,
            host_queue: VecDeque::new(),
            placement: job
                .fdp
                .as_ref()
                .and_then(|p| p.resolve(job.offset_bytes, job.range_bytes, job.bs).ok())
                .unwrap_or_default(),
            verifier,
        };
        for s in 0..l.slots.len() {
            l.issue(s, t0);
        }
        let mut counters = CounterLog::default();
        let mut next_sample = job.counter_interval_ns;
        let mut device_log = Vec::new();
        let mut log_every = job.device_log_ns.filter(|&n| n > 0);
        let mut next_log = 0u64;
        let mut steps = 0u64;
        let mut stalled = false;
        loop {
            let next_io = l.heap.peek().map_or(u64::MAX, |r| r.0 .0);
            let next_dev = l.drive.next_event();
            if let Some(every) = log_every {
                // Sample at each boundary the next event would pass: the drive's state then
                // is its state after the last event before the boundary.
                let next = next_io.min(next_dev);
                let mut every = every;
                while next != u64::MAX && next.saturating_sub(t0) >= next_log {
                    device_log.push(DeviceSample {
                        t_ns: next_log,
                        health: drive_health(l.drive),
                    });
                    next_log += every;
                    // A job that outlasts its period far (requests in flight at a deadline
                    // finishing hours later) keeps a bounded log: every other sample goes, and
                    // the period doubles.
                    if device_log.len() >= MAX_DEVICE_LOG {
                        let mut i = 0;
                        device_log.retain(|_| {
                            i += 1;
                            i % 2 == 1
                        });
                        every *= 2;
                        next_log = device_log.last().map_or(0, |s| s.t_ns) + every;
                        log_every = Some(every);
                    }
                }
            }
            if next_io == u64::MAX && l.parked == 0 {
                break;
            }
            if next_dev <= next_io {
                if next_io == u64::MAX {
                    // Only writes waiting for buffer room are left: a stop request ends the
                    // job with them in flight, and a drive that can never free room for them
                    // is a fault of the model, reported, never a hang.
                    if shared.stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if l.drive.stuck() {
                        stalled = true;
                        break;
                    }
                }
                if next_dev == u64::MAX {
                    debug_assert!(false, "writes parked with no device event pending");
                    break;
                }
                l.drive.advance(next_dev);
                l.collect_admitted();
                continue;
            }
            let Reverse((t, s, kind)) = l.heap.pop().expect("peeked");
            l.drive.advance(t);
            let s = s as usize;
            if kind == COMPLETE {
                l.in_drive -= 1;
                if let Some(w) = l.host_queue.pop_front() {
                    l.send(w, t);
                }
                let sl = l.slots[s];
                if let (Some(v), Op::Write) = (l.verifier, sl.io.op) {
                    v.written(sl.io.offset, sl.io.len, sl.generation);
                }
                let from = sl.due.map_or(sl.submit, |d| d.min(sl.submit));
                l.rec.record(sl.io.stream, t - t0, t - from, sl.io.len);
                l.last_ns = t - t0;
                l.issue(s, t);
            } else {
                l.submit(s, t);
            }
            steps += 1;
            if steps.is_multiple_of(1 << 16) {
                let rel = t - t0;
                progress(rel, shared.issued());
                if rel >= next_sample {
                    next_sample = rel + job.counter_interval_ns;
                    counters.samples.push(CounterSample {
                        t_ns: rel,
                        counters: drive_write_counters(&*l.drive),
                    });
                }
            }
        }
        // A rate-limited job whose next start fell past its time bound idled until then.
        let elapsed = l.last_ns.max(l.idle_until);
        if elapsed > l.last_ns {
            l.drive.advance(t0 + elapsed);
        }
        progress(elapsed, shared.issued());
        if log_every.is_some() {
            device_log.push(DeviceSample {
                t_ns: elapsed,
                health: drive_health(l.drive),
            });
        }
        LoopResult {
            totals: Some(l.rec.finish()),
            sink,
            elapsed_ns: elapsed,
            bytes: shared.issued(),
            samples: counters.samples,
            device_log,
            halted: shared.halt.load(Ordering::Relaxed),
            stalled: stalled.then_some(l.parked),
        }
    }
}

pub use ssdiq_workload::units::capacity_text;

/// What the emulated drive can say of itself for the device log: its write counters, free
/// superblocks and the mean erase count per superblock (the FTL keeps no per-block counts).
/// No temperature and no throttling: the model has neither.
pub fn drive_health(d: &Drive) -> DeviceHealth {
    let c = d.counters();
    let blocks = d.geometry().blocks.max(1);
    DeviceHealth {
        host_bytes: Some(c.host_write_bytes),
        media_bytes: Some(c.media_write_bytes),
        free_blocks_pct: Some(d.ftl().free_blocks() as f64 * 100.0 / blocks as f64),
        erase_count_avg: Some(c.erases as f64 / blocks as f64),
        ..Default::default()
    }
}

/// The drive's write counters as the engine reads a device's: host and media bytes, and the
/// host bytes accepted and not yet programmed (the executor and the store's device share it).
pub fn drive_write_counters(d: &Drive) -> WriteCounters {
    let c = d.counters();
    WriteCounters {
        host_bytes: c.host_write_bytes,
        media_bytes: Some(c.media_write_bytes),
        buffered_bytes: Some(d.buffered_pages() * LBA_BYTES),
    }
}

struct LoopResult {
    totals: Option<RecorderTotals>,
    sink: Arc<SeriesSink>,
    elapsed_ns: u64,
    bytes: u64,
    samples: Vec<CounterSample>,
    device_log: Vec<DeviceSample>,
    halted: bool,
    /// Writes still waiting for buffer room when the drive stopped making progress.
    stalled: Option<usize>,
}

const COMPLETE: u8 = 0;
const START: u8 = 1;

#[derive(Clone, Copy)]
struct Slot {
    feed: usize,
    io: Io,
    submit: u64,
    /// Absolute due time of an open-loop I/O; its latency is timed from it.
    due: Option<u64>,
    /// `--verify`: the first generation of the slot's write.
    generation: u32,
}

impl Slot {
    fn new(feed: usize) -> Slot {
        Slot {
            feed,
            io: Io {
                stream: StreamId::main(Op::Read),
                op: Op::Read,
                offset: 0,
                len: 0,
            },
            submit: 0,
            due: None,
            generation: 0,
        }
    }
}

/// The state of one job's event loop.
struct Loop<'a, 'b> {
    drive: &'a mut Drive,
    shared: &'a Shared<'b>,
    feeds: Vec<Feed>,
    slots: Vec<Slot>,
    /// (absolute time, slot, COMPLETE | START).
    heap: BinaryHeap<Reverse<(u64, u32, u8)>>,
    rec: Recorder,
    t0: u64,
    /// Main slots still issuing; probes stop when none is.
    main_left: usize,
    /// Writes waiting for buffer room inside the drive.
    parked: usize,
    last_ns: u64,
    /// The time bound, once a rate-limited start was dropped for falling past it.
    idle_until: u64,
    admitted: Vec<(u64, u64)>,
    /// Commands the drive holds at once (a SATA drive's NCQ depth; else unlimited), the
    /// commands it holds, and the slots whose command waits in the host for a free tag, in
    /// submission order (their latency counts the wait, as the kernel's queue does).
    queue_limit: usize,
    in_drive: usize,
    host_queue: VecDeque<usize>,
    /// `--fdp-pid`: the placement stream of each write, by offset.
    placement: ssdiq_engine::placement::Resolved,
    /// `--verify`: the generations written and the blocks read checked against them.
    verifier: Option<&'a Verifier>,
}

impl Loop<'_, '_> {
    /// Slot `s` is free at absolute time `now`: ask its feed for the next I/O.
    fn issue(&mut self, s: usize, now: u64) {
        let f = self.slots[s].feed;
        let rel = now - self.t0;
        match self.feeds[f].next_timed(self.shared, rel) {
            None => self.end_slot(f),
            Some((io, at)) => {
                self.slots[s].io = io;
                self.slots[s].due = None;
                if self.feeds[f].is_timed(self.shared) {
                    if at >= self.shared.deadline_ns() {
                        // It would start after the time bound: the slot is done, and the job
                        // idles until its end instead of jumping ahead in virtual time.
                        self.idle_until = self.shared.deadline_ns();
                        self.end_slot(f);
                        return;
                    }
                    let open_loop = self
                        .shared
                        .rate_for(&self.feeds[f])
                        .is_some_and(|r| r.open_loop());
                    if open_loop {
                        self.slots[s].due = Some(self.t0 + at);
                    }
                    if at > rel {
                        self.heap.push(Reverse((self.t0 + at, s as u32, START)));
                        return;
                    }
                }
                self.submit(s, now);
            }
        }
    }

    /// A slot of feed `f` issues nothing more; probes stop when no main slot is left.
    fn end_slot(&mut self, f: usize) {
        if !self.feeds[f].is_probe() {
            self.main_left -= 1;
            if self.main_left == 0 {
                self.shared.main_done.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Submits slot `s`'s I/O at absolute time `now`: to the drive, or to the host's queue
    /// if the drive holds all the commands it can.
    fn submit(&mut self, s: usize, now: u64) {
        self.slots[s].submit = now;
        if self.in_drive >= self.queue_limit {
            self.host_queue.push_back(s);
            return;
        }
        self.send(s, now);
    }

    /// Hands slot `s`'s I/O to the drive at absolute time `now`.
    fn send(&mut self, s: usize, now: u64) {
        self.in_drive += 1;
        let io = self.slots[s].io;
        if let Some(v) = self.verifier {
            self.verify(v, s, &io);
        }
        let done = match io.op {
            Op::Read => Some(self.drive.read_bytes(now, io.offset, io.len)),
            Op::Write => {
                let stream = self.placement.pid_at(io.offset).unwrap_or(0);
                self.drive
                    .write_bytes(now, io.offset, io.len, s as u64, stream)
            }
            // Write-zeroes deallocates: the emulated drive reads deallocated blocks as zeros.
            Op::Trim | Op::WriteZeroes => Some(self.drive.trim_bytes(now, io.offset, io.len)),
        };
        match done {
            Some(t) => self.heap.push(Reverse((t, s as u32, COMPLETE))),
            None => self.parked += 1,
        }
        // A trim may have made room for parked writes.
        self.collect_admitted();
    }

    /// `--verify` as slot `s`'s I/O reaches the drive: a write takes its generations, a read
    /// checks what each of its blocks holds now (the drive serves it from this state), a trim
    /// clears its blocks.
    fn verify(&mut self, v: &Verifier, s: usize, io: &Io) {
        match io.op {
            Op::Write => {
                let first = v.assign(io.offset, io.len);
                self.slots[s].generation = first;
                self.drive
                    .note_generations(io.offset, io.len, first, v.block_bytes());
            }
            Op::Read => {
                let bs = v.block_bytes();
                for at in (io.offset..io.offset + io.len).step_by(bs as usize) {
                    let (checked, m) = v.check_found(at, self.drive.found(at, bs));
                    self.rec.verified(checked, m);
                }
            }
            Op::Trim | Op::WriteZeroes => v.cleared(io.offset, io.len),
        }
    }

    fn collect_admitted(&mut self) {
        if !self.drive.has_completed() {
            return;
        }
        self.drive.take_completed(&mut self.admitted);
        for &(tag, t) in &self.admitted {
            self.heap.push(Reverse((t, tag as u32, COMPLETE)));
            self.parked -= 1;
        }
        self.admitted.clear();
    }
}

impl Executor for EmuExecutor {
    fn run(&mut self, job: &Job, ctl: &RunControl<'_>) -> Result<Stats, EngineError> {
        job.validate()?;
        self.check(job)?;
        // A scaled drive stands for its full-size one: patterns whose shape depends on the
        // page count draw as over the full-size drive's pages (docs/emulator.md).
        let folded;
        let job = match self.profile.scale() {
            Ok(scale) if scale < 1.0 && job.represents == 1.0 => {
                folded = Job {
                    represents: 1.0 / scale,
                    ..job.clone()
                };
                &folded
            }
            _ => job,
        };
        // The fill's blocks carry generations too, as a real target's carry headers.
        let verifier = job.verify.then(|| {
            self.drive.keep_generations();
            Verifier::new(
                job.seed,
                job.bs,
                job.offset_bytes + job.range_bytes,
                job.writes(),
            )
        });
        let fill = job.fill.map(|_| self.fill(job, ctl, verifier.as_ref()));
        let interrupted_by_fill = ctl.stopped();
        let mut log = CounterLog {
            before: Some(self.write_counters()),
            ..Default::default()
        };
        let mut r = self.run_loop(job, ctl, verifier.as_ref(), &mut |ns, bytes| {
            ctl.progress.running(ns, bytes)
        });
        if let Some(parked) = r.stalled {
            return Err(EngineError::io(
                format!(
                    "the emulated drive can free no buffer room for {parked} waiting writes (an emulator fault: please report the target and flags)"
                ),
                std::io::Error::from(std::io::ErrorKind::TimedOut),
            ));
        }
        log.after = Some(self.write_counters());
        log.samples = std::mem::take(&mut r.samples);
        let totals = r.totals.take().expect("set by run_loop");
        let mut stats = Stats::collect(Clock::Virtual, r.elapsed_ns, vec![totals], &r.sink);
        stats.device_log = std::mem::take(&mut r.device_log);
        stats.partial = interrupted_by_fill || ctl.stopped() || r.halted;
        stats.counters = log;
        stats.fill = fill;
        // A write job with --verify reads its range back: each block against the
        // generation it was last written with, through the drive's state as the job left it.
        if let (Some(v), true) = (&verifier, job.writes() && !ctl.stopped()) {
            let mut log = ssdiq_schema::io::VerifyLog::default();
            let bs = v.block_bytes();
            for at in (job.offset_bytes..job.offset_bytes + job.range_bytes).step_by(bs as usize) {
                let (checked, m) = v.check_found(at, self.drive.found(at, bs));
                log.record(checked, m);
                log.read_back += checked;
            }
            stats
                .verify
                .get_or_insert_with(Default::default)
                .merge(&log);
        }
        Ok(stats)
    }
}

impl DeviceCounters for EmuExecutor {
    fn snapshot(&mut self) -> Option<WriteCounters> {
        Some(self.write_counters())
    }

    fn health(&mut self) -> Option<DeviceHealth> {
        Some(drive_health(&self.drive))
    }
}
