//! The SSD-iq benchmark: plans of jobs, steady-state detection, derived metrics, and the
//! runner that executes a plan against a target.
//!
//! Data flows one way: the plan says what to run, the engine runs it on a [`SuiteTarget`],
//! [`summary`] turns the engine's statistics into the `run` result model of `ssdiq-report`.
//! Nothing here prints; progress goes through [`observe::Observer`].

pub mod convert;
pub mod derived;
pub mod device;
pub mod emu;
pub mod observe;
pub mod plan;
pub mod runner;
pub mod spec;
pub mod steady;
pub mod step;
pub mod summary;
pub mod target;

pub use device::DeviceTarget;
pub use emu::EmuTarget;
pub use observe::{Observer, Silent};
pub use runner::{run, RunOptions};
pub use target::{SuiteError, SuiteTarget};
