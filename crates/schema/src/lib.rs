//! The result schema `ssdiq/1`: the serde types every ssdiq document is made of, defined once.
//!
//! Invariants:
//! - The serde shape of every type here *is* the documented JSON (README, golden files). Fields
//!   may be added (optional, or skipped when empty); a rename or a removal needs `ssdiq/2`.
//! - Plain data: no I/O, no formatting for humans beyond the labels that name a run or a
//!   trace in every table (`SimParams::gc_label`, `SimTrace::name`), no dependency beyond
//!   serde. The engine
//!   produces these types, the suite assembles them, the report renders them.

pub mod emu_info;
mod error;
pub mod fit;
mod gc_policy;
pub mod info;
pub mod io;
mod job;
pub mod latency;
pub mod op;
pub mod pattern;
pub mod run;
pub mod sim;
pub mod store;
mod study;
pub mod trace;

pub use fit::{CheckRow, FitCheckDoc, FitDoc, FitParam, Prediction, StageRuns};
pub use gc_policy::{GcPolicy, PolicyError};
pub use job::JobSecond;
pub use latency::{CdfPoint, LatencySummary, OpSummary};
pub use op::Op;
pub use pattern::PatternDoc;
pub use run::{
    figures, steps, Convergence, Derived, DeviceLogPoint, Figure, FreePool, ProbeInterval,
    ProbeValue, RunInfo, RunResult, SecondPoint, SeriesPoint, Spec, StepResult, StepValue,
    TargetInfo, SCHEMA,
};
pub use sim::{SimDoc, SimParams, SimRun, SimSeriesPoint, SimShardDoc, SimTrace};
pub use store::{StoreDoc, StoreRow};
pub use study::{StudyChart, StudyDoc, StudyDots, StudyPoint};
pub use trace::TraceStatsDoc;
