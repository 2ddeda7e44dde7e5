//! The executor trait: how a [`Job`] is run. The real executor (io_uring/psync, wall time) and
//! the emulated SSD (virtual time) implement it and return the same [`Stats`].

use crate::control::RunControl;
use crate::error::EngineError;
use crate::job::Job;
use crate::stats::Stats;

pub trait Executor {
    /// Runs `job` to its bound, or until `ctl.stop` is set (then `Stats::partial` is true).
    /// Returns `Invalid`/`Refused` errors before issuing any I/O.
    fn run(&mut self, job: &Job, ctl: &RunControl<'_>) -> Result<Stats, EngineError>;
}
