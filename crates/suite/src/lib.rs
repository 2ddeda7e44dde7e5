//! The SSD-iq benchmark: plans of jobs, steady-state detection, derived metrics.
//!
//! This crate grows with issue 7; today it holds the steady-state detector.

pub mod steady;
