//! The renderers of ssdiq results (the `ssdiq/1` schema of `ssdiq-schema`).
//!
//! Invariants: this crate depends on the documents of `ssdiq-schema` (and the size formatting
//! of `ssdiq-workload`) and nothing else; renderers are pure functions from results to text,
//! so every number in a report comes from a result file.
//!
//! - `chart`: line and dot charts, axes, palette (drawing); [`run_charts`]: an SSD-iq
//!   report's charts built from results; `page`: a self-contained HTML page and its panels.
//! - [`sim`]: a simulator sweep's page; [`store`]: the page store's page and table.
//! - [`html`], [`markdown`], [`terminal`], [`csv`]: the run report's renderers; [`study`]: a
//!   study's page and CSV; [`io`]: an io job's summary and per-second CSV; [`info`] and [`emu_info`]: a drive's info; [`pattern`] and [`trace`]: what a pattern and a
//!   trace do.

mod chart;
pub mod colour;
pub mod csv;
pub mod document;
pub mod emu_info;
mod facts;
mod figures;
pub mod fit;
pub mod html;
pub mod info;
pub mod io;
pub mod markdown;
mod model;
mod page;
pub mod paper;
pub mod pattern;
pub mod run_charts;
pub mod sim;
pub mod store;
pub mod study;
pub mod table;
pub mod terminal;
pub mod trace;

pub use figures::DriveFigures;
pub use model::{
    Convergence, Derived, DeviceLogPoint, Figure, LatencySummary, OpSummary, ProbeInterval,
    ProbeValue, RunInfo, RunResult, SecondPoint, SeriesPoint, Spec, StepResult, StepValue,
    TargetInfo,
};
pub use table::{build_tables, Cell, Row, Table};
