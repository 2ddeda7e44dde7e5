//! The ssdiq flash model: a page-mapped FTL with pluggable GC policies, an LRU write buffer,
//! placement streams, trim, counters, and the analytic WAF oracles it is tested against.
//!
//! Crate invariants:
//! - Pure: no clock, no I/O, no global state; every random choice comes from a seed.
//! - The FTL is driven one host operation at a time ([`Ftl::write`], [`Ftl::trim`]) and
//!   reports the flash work each caused ([`WriteEffect`]); GC can also be stepped on its own
//!   ([`Ftl::collect_one`]). The emulated SSD (crate `ssdiq-emu`) builds its timing model on
//!   this.
//! - Memory is about 4 bytes per logical page plus 4 per physical page, plus O(blocks).
//!
//! Modules: `geometry` (shape, OP/fill), `ftl` (mapping, frontiers, GC step),
//! `victim` (policies), `lists` (O(1) block lists), `buffer` (LRU write buffer),
//! `counters`, [`analytic`] (oracles), `classes` (frequency classes for `optimal`),
//! `runner` (one simulation with its WAF series), [`memory`] (what each of them will allocate,
//! estimated before it does).

pub mod analytic;
mod buffer;
mod classes;
mod counters;
mod error;
mod ftl;
mod geometry;
mod lists;
pub mod memory;
mod runner;
mod two_r;
mod victim;

pub use buffer::{Buffered, WriteBuffer};
pub use classes::{pattern_classes, Classes};
pub use counters::{Counters, GcEffect, WriteEffect};
pub use ftl::{Ftl, FtlConfig, FtlError, GcMode};
pub use geometry::{Geometry, GeometryError, Provision};
pub use lists::{BlockLists, NIL};
pub use runner::{
    fill_and_warm, simulate, simulate_with, SeriesPoint, SimConfig, SimError, SimReport,
};
pub use ssdiq_schema::{GcPolicy, PolicyError};
