//! The emulated SSD: a timing model over the page-mapped FTL, in virtual nanoseconds.
//!
//! - [`profile`]: profiles (embedded TOML, `key=value` overrides) and their datasheet spec.
//! - [`drive`]: the drive: FTL + dies + PLP write buffer + GC + host link; requests in,
//!   completion times out.
//! - `dies`: one die's timeline (reads first, suspension). `wbuf`: the write buffer. `gc`:
//!   GC work in flight per die.
//!
//! Invariants: no wall clock, no I/O, no unseeded randomness: the same profile and the same
//! request sequence give bit-identical completion times. Memory per logical page is the FTL's
//! (about 9 bytes); everything else is O(dies + buffer + blocks).

pub mod dies;
pub mod drive;
mod gc;
pub mod profile;
mod wbuf;

pub use drive::{drive_geometry, Drive, DriveCounters, Timing, LBA_BYTES};
pub use profile::{builtin, builtin_names, Profile, ProfileError, Spec, BUILTIN};
