//! ssdiq-engine: runs one I/O job against a target and measures it.
//!
//! Data flows workload -> engine -> stats -> (CLI renders the report). This crate never prints
//! or formats for a terminal; progress reaches the caller through [`control::Progress`].
//!
//! - [`job::Job`] says *what* to issue (mix, pattern, block size, threads x queue depth, bounds,
//!   rate, probes, seed, data pattern, fill). It is target-agnostic.
//! - [`executor::Executor`] says *how*: [`real::RealExecutor`] submits to the kernel through
//!   io_uring ([`uring`]) or blocking pread/pwrite ([`psync`]) in wall time; the emulated SSD's
//!   executor (crate `ssdiq-emu`) runs the same job in virtual time.
//! - Both produce [`stats::Stats`], recorded through [`stats::Recorder`] from nanosecond
//!   timestamps the executor supplies, so the statistics never depend on which clock ran.
//! - [`counters::DeviceCounters`] is the hook through which a device reports host and media
//!   bytes written (NVMe SMART/OCP, or the emulated drive's own counters).

pub mod buf;
mod clock;
pub mod control;
pub mod counters;
mod data;
pub mod error;
pub mod executor;
pub mod feed;
mod fill;
pub mod hist;
pub mod job;
mod job_flags;
mod psync;
mod rate;
mod real;
mod replay;
pub mod series;
pub mod stats;
pub mod target;
pub mod textfile;
mod uring;

pub use control::{NoProgress, Progress, RunControl};
pub use counters::{DeviceCounters, DeviceHealth, DeviceSample, WriteCounters};
pub use error::EngineError;
pub use executor::Executor;
pub use job::{Arrivals, Bound, EngineKind, FillMode, Job, JobInfo, OnError, Probe};
pub use job_flags::JobFlags;
pub use real::RealExecutor;
pub use replay::{Replay, ReplaySummary, Speed};
pub use stats::{Clock, IoReport, Recorder, Stats};
