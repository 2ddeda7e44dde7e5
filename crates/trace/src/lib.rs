//! Block traces as request sources for ssdiq: streaming parsers for blkparse text (and the
//! kernel's blk tracer), MSR Cambridge, Alibaba, SPC and FIU traces; their statistics; and
//! the mapping of a trace's address space onto a simulated drive or a real target.
//!
//! Crate invariants:
//! - Streaming: a trace is read front to back in constant memory; what grows is only the
//!   footprint structures that statistics (one entry per distinct page of a short request, a
//!   few per long one) and compaction (one per distinct page, bounded by the caller) need.
//! - Every record is a [`TraceRecord`] in bytes and nanoseconds; the consumers turn records
//!   into the workload crate's page [`ssdiq_workload::Request`]s and [`ssdiq_workload::Draw`]s
//!   (`replay`, `draws`), so the simulator and the engine take traces like patterns.
//! - Bad input is an error naming the file and the line, never a silently skipped record.
//! - No clock, no I/O beyond reading the trace file.

mod draws;
mod error;
mod fields;
mod format;
mod map;
mod page_counts;
mod parse;
mod reader;
mod record;
mod replay;
mod replay_setup;
pub mod scan;
mod stats;

pub use draws::{Mapping, TraceDraws};
pub use error::TraceError;
pub use format::{BlkAction, Format, FORMAT_NAMES};
pub use map::{Compaction, MapKind};
pub use reader::{detect, TraceOptions, TraceReader, ALL_DEVICES};
pub use record::TraceRecord;
pub use replay::TraceReplay;
pub use replay_setup::TraceSetup;
pub use scan::{scan, Scan};
pub use stats::{TraceStats, TraceStatsBuilder};
