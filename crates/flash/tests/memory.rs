//! The memory estimates of `ssdiq_flash::memory` against what the constructors really
//! allocate, counted by a global allocator: each estimate is an upper bound, within 10% +
//! 1 MiB. One test function, so no other test allocates while it counts.

use ssdiq_flash::memory::{ftl_bytes, sim_bytes};
use ssdiq_flash::{simulate, Ftl, FtlConfig, GcMode, GcPolicy, Geometry, Provision, SimConfig};
use ssdiq_workload::Pattern;

#[path = "support/counting.rs"]
mod counting;
use counting::{bounds, peak_of};

#[test]
fn estimates_bound_what_is_allocated() {
    for (cap, block, policy) in [
        (64u64 << 20, 1u64 << 20, "greedy"),
        (1 << 30, 8 << 20, "greedy"),
        (1 << 30, 1 << 20, "fifo"),
        (1 << 30, 4 << 20, "2r-greedy"),
        (1 << 30, 1 << 20, "2r-fifo"),
        (512 << 20, 256 << 10, "cost-benefit"),
        (2 << 30, 16 << 20, "dchoices:8"),
    ] {
        let g = Geometry::new(cap, 4096, block, Provision::Fill(0.875), 2).unwrap();
        let policy: GcPolicy = policy.parse().unwrap();
        let cfg = FtlConfig::new(g, policy);
        let actual = peak_of(|| Ftl::new(cfg).unwrap());
        bounds(
            &format!("ftl {cap} {block} {policy}"),
            ftl_bytes(&g, policy, cfg.frontiers()),
            actual,
        );
    }
    for (buffer_pages, pattern) in [(0u64, "uniform"), (5000, "zipf:0.9"), (0, "zns:1MiB")] {
        let g = Geometry::new(256 << 20, 4096, 1 << 20, Provision::Fill(0.875), 2).unwrap();
        let cfg = SimConfig {
            geometry: g,
            policy: GcPolicy::Greedy,
            gc_frontier: false,
            gc_frontier_share: 1.0,
            gc_mode: GcMode::Naive,
            wear_level_gap: 0,
            pattern: Pattern::parse(pattern).unwrap(),
            warmup_drive_writes: 0.0,
            drive_writes: 2.0,
            seed: 1,
            buffer_pages,
            points_per_drive_write: 10,
        };
        let actual = peak_of(|| simulate(&cfg, |_| {}).unwrap());
        bounds(
            &format!("sim {pattern} {buffer_pages}"),
            sim_bytes(&cfg),
            actual,
        );
    }
}
