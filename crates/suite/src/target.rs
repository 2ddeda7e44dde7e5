//! What the suite runs against: a drive it can reset, run jobs on, and ask for its write
//! counters.
//!
//! Invariants:
//! - `reset` is the only destructive call besides the jobs themselves; whoever builds a
//!   target for a block device has passed the safety checks of `ssdiq io` first.
//! - `counters` are cumulative device counts (host and, if known, media bytes); the suite
//!   takes differences around every round, so a target's counters may start anywhere.
//! - `idle` issues no I/O; it only lets time pass (and samples the device log), and ends
//!   early when the stop flag is set.

pub use crate::error::SuiteError;
use ssdiq_engine::{Clock, DeviceHealth, DeviceSample, Executor, RunControl, WriteCounters};
use ssdiq_schema::{Spec, TargetInfo};

impl SuiteError {
    /// True for errors raised before anything was written.
    pub fn is_usage(&self) -> bool {
        match self {
            SuiteError::Invalid(_) => true,
            SuiteError::Engine(e) => e.is_usage(),
            SuiteError::Reset { .. } => false,
        }
    }
}

/// A drive under test.
pub trait SuiteTarget {
    /// The string jobs name as their target (a path, or `emu:...`).
    fn job_target(&self) -> String;
    /// Bytes the benchmark addresses (a multiple of every step's block size).
    fn capacity_bytes(&self) -> u64;
    /// Who the drive is, for the result's `target` object.
    fn identity(&self) -> TargetInfo;
    /// The logical block size the drive is formatted with: its smallest I/O.
    fn logical_block_bytes(&self) -> u64 {
        4096
    }
    /// The datasheet the drive carries itself (emulated profiles), if any.
    fn builtin_spec(&self) -> Option<Spec> {
        None
    }
    /// Which clock the executor measures with.
    fn clock(&self) -> Clock;
    /// Brings the drive to a known, empty state. Returns what was done, in a few words.
    fn reset(&mut self) -> Result<String, SuiteError>;
    /// Cumulative write counters, if the drive reports them.
    fn counters(&mut self) -> Option<WriteCounters>;
    /// Whether the drive keeps a device log (health samples during jobs and idles): the
    /// emulated SSD and NVMe drives.
    fn logs_device(&self) -> bool {
        false
    }
    /// One device-log sample, if the drive keeps a log.
    fn health(&mut self) -> Option<DeviceHealth> {
        None
    }
    /// Lets `ns` pass without I/O (on the target's clock), sampling the device log every
    /// `sample_ns` when it keeps one; sample times are from the start of the idle.
    fn idle(&mut self, ns: u64, sample_ns: u64, ctl: &RunControl<'_>) -> Vec<DeviceSample>;
    fn executor(&mut self) -> &mut dyn Executor;
}
