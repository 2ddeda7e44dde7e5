//! The renderers of ssdiq results (the `ssdiq/1` schema of `ssdiq-schema`).
//!
//! Invariants: this crate depends on nothing but the model; renderers are pure functions
//! from results to text, so every number in a report comes from a result file.

pub mod chart;
pub mod charts;
pub mod colour;
pub mod csv;
pub mod document;
pub mod facts;
pub mod figures;
pub mod html;
pub mod markdown;
pub mod model;
pub mod page;
pub mod paper;
pub mod table;
pub mod terminal;

pub use model::{
    Convergence, Derived, DeviceLogPoint, Figure, LatencySummary, OpSummary, ProbeInterval,
    ProbeValue, RunInfo, RunResult, SecondPoint, SeriesPoint, Spec, StepResult, StepValue,
    TargetInfo,
};
pub use table::{build_tables, Cell, Row, Table};
