//! The heap an emulated drive will allocate, estimated from its profile before it does, so a
//! caller can refuse a drive that would not fit (instead of aborting in the allocator).
//!
//! Invariant (tested against a counting allocator in `tests/memory.rs`): the estimate is at
//! least the heap `Drive::new` allocates and at most 10% + 1 MiB above it.

use ssdiq_flash::memory::ftl_bytes;

use crate::drive::LBA_BYTES;
use crate::profile::{Profile, ProfileError};

/// Heap of an emulated drive built from `profile`: its FTL, the write buffer's bitmap and
/// FIFO, and per-die state. A `Drive::reset` builds the new FTL before the old one is
/// dropped, so a caller that resets (a whole benchmark run) needs `ftl` twice: see
/// [`DriveMemory::peak_with_reset`].
pub fn drive_bytes(profile: &Profile) -> Result<DriveMemory, ProfileError> {
    let geometry = crate::drive::drive_geometry(profile)?;
    let policy = profile.drive.policy;
    let frontiers = profile.drive.streams
        + u32::from(profile.drive.gc_frontier || policy.implies_gc_frontier());
    let ftl = ftl_bytes(&geometry, policy, frontiers);
    let buffer_pages = (profile.buffer.buffer_kib * 1024 / LBA_BYTES).max(1);
    let window = ((buffer_pages as f64 * profile.scale()?).round() as u64).min(buffer_pages);
    let n = &profile.nand;
    let dies = (n.channels * n.dies_per_channel) as u64;
    // The buffer's two bitmaps (buffered, recently inserted), its FIFO and window ring
    // (capacity hints capped at 2^20), per-die and per-channel state.
    let rest = 2 * geometry.logical_pages.div_ceil(64) * 8
        + 4 * buffer_pages.min(1 << 20)
        + 4 * window.min(1 << 20)
        + 256 * dies
        + 8 * n.channels as u64
        + if profile.drive.streams > 1 {
            2 * geometry.logical_pages
        } else {
            0
        }
        + slc_bytes(profile, geometry.logical_pages)
        + if profile.dram_less() {
            crate::map_cache::MapCache::heap_bytes(
                geometry.logical_pages,
                crate::drive::map_seg_pages(n.page_kib),
            )
        } else {
            0
        };
    Ok(DriveMemory { ftl, rest })
}

/// The SLC cache's bitmap (a bit per logical page) and its ring (4 bytes per cached page).
fn slc_bytes(profile: &Profile, logical_pages: u64) -> u64 {
    if profile.slc.slc_share <= 0.0 {
        return 0;
    }
    crate::slc::heap_bytes(
        crate::slc::max_pages(profile.slc.slc_share, logical_pages),
        logical_pages,
    )
}

/// What an emulated drive holds; see [`drive_bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriveMemory {
    pub ftl: u64,
    pub rest: u64,
}

impl DriveMemory {
    pub fn total(&self) -> u64 {
        self.ftl + self.rest
    }
    /// The peak while `Drive::reset` replaces the FTL.
    pub fn peak_with_reset(&self) -> u64 {
        2 * self.ftl + self.rest
    }
}
