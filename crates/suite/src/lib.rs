//! The SSD-iq benchmark: the reference procedure as a plan, the reference's way of turning a
//! step's log into a number, steady-state detection, derived metrics, and the runner that
//! executes a plan against a target.
//!
//! Data flows one way: the plan says what to run, the engine runs it on a [`SuiteTarget`],
//! `summary` turns the engine's statistics into the `run` result model of `ssdiq-report`,
//! `figures` gathers the numbers of Tables 2 and 3.
//! Nothing here prints; progress goes through [`observe::Observer`].

mod convert;
mod derived;
mod device;
mod devlog;
mod emu;
mod error;
mod figures;
mod intervals;
pub mod observe;
pub mod plan;
pub mod reference;
pub mod result_file;
mod runner;
pub mod spec;
mod steady;
mod step;
mod step_outcome;
pub mod study;
mod summary;
mod target;

pub use device::{DeviceTarget, NvmeCounters};
pub use emu::EmuTarget;
pub use figures::compute as figures_of;
pub use observe::{Observer, Silent};
pub use runner::{run, RunOptions};
pub use steady::SteadyCriteria;
pub use target::{SuiteError, SuiteTarget};
