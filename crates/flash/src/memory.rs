//! Memory estimates, made before anything is allocated, so a caller can refuse a simulation
//! that would not fit (instead of aborting in the allocator after
//! minutes) and run sweeps within the memory available.
//!
//! Invariants (tested against a counting allocator in `tests/memory.rs`):
//! - Each estimate is at least the heap its constructor allocates and at most 10% + 1 MiB
//!   above it: every term below mirrors one allocation of the type it names.
//! - Estimates are pure arithmetic on the configuration: nothing here allocates.

use crate::geometry::Geometry;
use crate::runner::SimConfig;
use ssdiq_schema::GcPolicy;
use ssdiq_workload::Pattern;

/// Bytes of a `BlockLists` of `lists` lists over `blocks` blocks (six u32 vectors).
fn block_lists(lists: u64, blocks: u64) -> u64 {
    12 * lists + 12 * blocks
}

/// Heap of `Ftl::new` for this geometry, policy and number of write frontiers.
pub fn ftl_bytes(g: &Geometry, policy: GcPolicy, frontiers: u32) -> u64 {
    // The FTL holds the geometry's blocks plus its GC reserve.
    let nb = g.ftl_blocks() as u64;
    let ppb = g.pages_per_block as u64;
    // l2p and p2l: a u32 per logical and per physical page.
    let maps = 4 * g.logical_pages + 4 * nb * ppb;
    // valid u32, state u8, closed_at u64, owner u16, full_set u32, full_pos u32, free u32.
    let per_block = nb * (4 + 1 + 8 + 2 + 4 + 4 + 4);
    let buckets = if policy.needs_buckets() {
        block_lists(ppb + 1, nb)
    } else {
        block_lists(1, 0)
    };
    let fifo = block_lists(1, nb);
    let victim_valid = 8 * (ppb + 1);
    // Fixed: frontiers and small vectors, rounded up.
    const FIXED: u64 = 16 << 10;
    FIXED
        + maps
        + per_block
        + buckets
        + fifo
        + victim_valid
        + 8 * frontiers as u64
        + two_r_bytes(policy, nb, ppb)
}

/// Heap of 2R's state (`two_r.rs`): regions and their buckets (2r-greedy), the host queue, and
/// the merge's scratch space (two victims' pages, victims and their fills) at its largest.
fn two_r_bytes(policy: GcPolicy, nb: u64, ppb: u64) -> u64 {
    if !policy.is_two_r() {
        return 0;
    }
    let regions = if policy == GcPolicy::TwoRGreedy {
        nb + block_lists(2 * (ppb + 1), nb)
    } else {
        block_lists(1, 0)
    };
    // Vectors grow by doubling: twice their largest length.
    regions + 2 * (8 * nb + 2 * 4 * ppb + 2 * 4 * nb)
}

/// Peak heap of the simulator's LRU write buffer of `pages` pages: a hash map (u64 -> u32,
/// load factor 7/8, power-of-two buckets with a control byte each) and four arrays. Evictions
/// leave tombstones, and the map once grows to twice its buckets while the old table still
/// exists: three tables at the peak.
pub fn write_buffer_bytes(pages: u64) -> u64 {
    if pages == 0 {
        return 0;
    }
    let buckets = (pages * 8 / 7 + 1).next_power_of_two();
    3 * buckets * (16 + 1) + pages * (8 + 4 + 4 + 4)
}

/// Heap a page stream of `pattern` over `pages` pages keeps (zone lists of `zns`).
pub fn stream_bytes(pattern: &Pattern, pages: u64, page_bytes: u64) -> u64 {
    match pattern {
        Pattern::Zns { zone_bytes, .. } if page_bytes > 0 && *zone_bytes >= page_bytes => {
            8 * (pages / (zone_bytes / page_bytes))
        }
        _ => 0,
    }
}

/// Peak heap of one `simulate` run: FTL, write buffer, stream and WAF series.
pub fn sim_bytes(cfg: &SimConfig) -> u64 {
    let g = &cfg.geometry;
    if cfg.policy == GcPolicy::SeparatedModel {
        return 1 << 20;
    }
    let frontiers = 1 + u32::from(cfg.gc_frontier || cfg.policy.implies_gc_frontier());
    let points = (cfg.drive_writes * cfg.points_per_drive_write.max(1) as f64).ceil() as u64 + 2;
    let series = points.next_power_of_two() * std::mem::size_of::<crate::SeriesPoint>() as u64;
    // Fixed: the page stream's generators, the lookahead queue, the report.
    const FIXED: u64 = 64 << 10;
    FIXED
        + ftl_bytes(g, cfg.policy, frontiers)
        + write_buffer_bytes(cfg.buffer_pages)
        + stream_bytes(&cfg.pattern, g.logical_pages, g.page_bytes)
        + series
}
