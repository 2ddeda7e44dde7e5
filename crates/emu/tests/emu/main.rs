//! The emulated SSD end to end, one module per area, in one test binary (one link instead
//! of seven). `memory` stays its own binary: its counting allocator is process-wide.

mod dram_less;
mod drive;
mod dynamics;
mod executor;
mod fidelity;
mod fuzz_profile;
mod host_interface;
mod limits;
mod profile_sources;
mod readahead;
mod sectors;
mod slc_cache;
mod support;
