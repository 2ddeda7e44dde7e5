//! ssdiq-engine: runs one I/O job against a target and measures it.
//!
//! Data flows workload -> engine -> stats -> (CLI renders the report). This crate never prints
//! or formats for a terminal; progress reaches the caller through [`Progress`].
//!
//! - [`Job`] says *what* to issue (mix, pattern, block size, threads x queue depth, bounds,
//!   rate, probes, seed, data pattern, fill). It is target-agnostic.
//! - [`Executor`] says *how*: [`RealExecutor`] submits to the kernel through
//!   io_uring (`uring.rs`) or blocking pread/pwrite (`psync.rs`) in wall time; the emulated SSD's
//!   executor (crate `ssdiq-emu`) runs the same job in virtual time.
//! - Both produce [`Stats`], recorded through [`Recorder`] from nanosecond
//!   timestamps the executor supplies, so the statistics never depend on which clock ran.
//! - [`DeviceCounters`] is the hook through which a device reports host and media
//!   bytes written (NVMe SMART/OCP, or the emulated drive's own counters).

mod buf;
mod clock;
mod control;
mod counters;
mod data;
mod error;
mod executor;
mod feed;
mod fill;
mod hist;
mod job;
mod job_flags;
mod job_target;
mod libaio;
pub mod placement;
mod poll;
mod psync;
mod queued;
mod rate;
mod real;
mod replay;
mod series;
mod stats;
mod stripe;
mod target;
pub mod textfile;
mod uring;
mod uring_cmd;
pub mod verify;

pub use buf::{aligned_zeroed, AlignedBuf};
pub use control::{NoProgress, Progress, RunControl};
pub use counters::{
    buffer_lag, CounterLog, CounterSample, DeviceCounters, DeviceHealth, DeviceSample,
    WriteCounters,
};
pub use error::{chain, EngineError};
pub use executor::Executor;
pub use feed::{Feed, Io, Shared};
pub use hist::OpStats;
pub use job::{
    Arrivals, Bound, EngineKind, FillMode, Job, JobInfo, OnError, Probe, SqPoll, UringOptions,
    MAX_JOB_NS, SQPOLL_IDLE_MS,
};
pub use job_flags::JobFlags;
pub use job_target::Target;
pub use real::RealExecutor;
pub use replay::{Replay, ReplaySummary, Speed};
pub use series::{JobSecond, SeriesSink, StreamId};
pub use stats::{describe, Clock, FillInfo, IoReport, Recorder, RecorderTotals, Stats};
pub use target::{TargetFacts, TargetKind};
