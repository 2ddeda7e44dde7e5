//! Sweeps of flash simulations: the cartesian product of parameter lists, in one fixed
//! order, run on all cores, sliced into deterministic shards for many machines, merged back,
//! and launched on Slurm.
//!
//! Crate invariants:
//! - A sweep's points are a function of its [`Axes`] alone: same axes, same points, same
//!   order, on every machine. Point `i` belongs to shard `k/n` iff `i % n == k - 1`
//!   (round-robin, so the expensive corners of a sweep spread over all shards).
//! - A run is a function of its point (the simulator is deterministic); only its `seconds`
//!   differ between machines. So [`merge`] of all shards gives the single-machine document.
//! - All input is validated, and every trace read once, before the first run starts: bad
//!   input costs nothing and writes nothing.
//! - No scheduler code: [`slurm`] writes job scripts; Slurm launches the processes.
//!
//! Modules: `axes` (the lists and their parsing types), `point` (validated points),
//! `shard`, [`run`] (executing points), [`output`] (JSON/CSV/table text), [`merge`],
//! [`slurm`].

mod axes;
mod axes_flags;
mod error;
pub mod merge;
pub mod output;
mod point;
pub mod run;
mod shard;
pub mod slurm;
pub mod slurm_nodes;

pub use axes::{Axes, BufSpec, TraceWorkload, Warmup, Workload, Writes};
pub use axes_flags::SweepFlags;
pub use error::SweepError;
pub use point::{points, Point};
pub use shard::Shard;
