//! The SSD-iq benchmark: plans of jobs, steady-state detection, derived metrics.
//!
//! Data flows one way: the plan says what to run, the engine runs it, this crate turns the
//! engine's statistics into the `run` result model of `ssdiq-report`.

pub mod derived;
pub mod plan;
pub mod spec;
pub mod steady;
