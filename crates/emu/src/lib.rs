//! ssdiq-emu: the emulated SSD, a timing model over the flash crate's page-mapped FTL, run by
//! the engine's jobs in virtual nanoseconds.
//!
//! - `target`: the `emu:` target grammar, parsed once ([`Profile::from_target`]).
//! - `target_spec`: a command's target, parsed once ([`TargetSpec`]: the emulated drive with
//!   its profile, or a path).
//! - [`profile`]: profiles (embedded TOML, `key=value` overrides) and their datasheet spec.
//! - `drive`: the drive: FTL + dies + PLP write buffer + GC scheduler + host link; requests
//!   in, completion times out.
//! - `dies`: one die's timeline (reads first, suspension). `wbuf`: the write buffer. `gc`: the
//!   GC work in flight per die and how it is paced against host programs. `slc`: the SLC
//!   cache. `map_cache`: a DRAM-less drive's cached map pages. `readahead`: sequential reads read ahead
//!   into DRAM.
//! - `executor`: [`EmuExecutor`], the engine's `Executor` for the drive.
//! - [`memory`]: what a drive will allocate, before it does.
//! - [`facts`]: what `ssdiq info` tells of a drive and of the shipped profiles.
//!
//! Invariants: no wall clock, no unseeded randomness: the same profile and the same request
//! sequence give bit-identical completion times. The FTL is the flash crate's, not a copy: the
//! drive decides *when* its work runs on the dies, the FTL *what* it is. Memory per logical
//! page is the FTL's (about 9 bytes); everything else is O(dies + buffer + blocks).

mod bits;
mod channels;
mod dies;
mod drive;
mod error;
mod executor;
pub mod facts;
mod gc;
mod map_cache;
pub mod memory;
pub mod profile;
mod readahead;
mod slc;
mod target;
mod target_spec;
mod wbuf;

pub use drive::{
    check_geometry, drive_geometry, map_cache_pages, min_capacity_mib, Drive, DriveCounters,
    Timing, LBA_BYTES,
};
pub use executor::{capacity_text, drive_health, drive_write_counters, EmuExecutor, EmuSpec};
pub use profile::{
    builtin, builtin_names, sources, ParamSource, Profile, ProfileError, Spec, BUILTIN,
};
pub use target::{is_emu_target, profile_file, target_inputs, EmuTarget, EMU_PREFIX};
pub use target_spec::TargetSpec;
