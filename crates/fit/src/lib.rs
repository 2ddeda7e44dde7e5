//! ssdiq-fit: a digital twin of a measured drive. From the figures of an `ssdiq run` (or a
//! paper's row) it fits an emulated profile, measuring each candidate with the protocol's own
//! steps on the emulated SSD, and checks the twin against figures it was or was not fitted to.
//!
//! Data flows one way: `observed` (what the drive showed) -> `fitter` (the twin's profile,
//! each value with its source) -> [`check`] (drive beside twin). Nothing here prints or
//! parses command lines.

pub mod check;
mod emu_target;
mod error;
mod fitter;
mod load_curve;
mod observed;
pub mod paper;
pub mod predict;
pub mod profile_text;
pub mod range;
pub mod roundtrip;
pub mod roundtrip_wide;
pub mod sensitivity;
mod skew_curve;
pub mod twin;

pub use check::{compare, Row};
pub use error::FitError;
pub use fitter::{fit, nearest_base, Fit, FitOptions, How, Param};
pub use load_curve::{measure_curve, LoadCurve};
pub use observed::Observed;
pub use skew_curve::{measure_skew, skew_study, SkewCurve};
