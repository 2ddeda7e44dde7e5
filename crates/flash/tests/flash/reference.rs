//! The simulator against figures measured with SSD-iq's reference simulator (the artifact's
//! `sim/`, MIT): `CAPACITY=1G ERASE=1M RUNS=5 bench/sim-vs-reference.sh` printed the
//! reference's WAF below, each the mean of 5 runs (it seeds itself from random_device; its runs
//! scatter by ~0.1% on greedy rows and ~0.5% on 2R rows at this size). Only the numbers are
//! here, never its code.
//!
//! Both sides: 1 GiB physical, 4 KiB pages, 1 MiB erase units (one row 64 MiB), fill 0.875
//! unless named; sequential fill, one physical capacity of pattern writes as warm-up, 10 drive
//! writes, WAF over the last 5. Tolerances from issue 13: greedy rows 1%, 2R rows 3%
//! (measured when pinned: all within 0.5%). ssdiq's former behaviour (batched collection, the
//! reserve inside the capacity, 2R as one victim to a GC frontier) was 2-32% off on the rows
//! issue 13 measured at 16 GiB.

use ssdiq_flash::{simulate, GcMode, GcPolicy, Geometry, Provision, SimConfig};
use ssdiq_workload::Pattern;

struct Row {
    gc: &'static str,
    pattern: &'static str,
    fill: f64,
    block_mib: u64,
    reference: f64,
}

const fn row(
    gc: &'static str,
    pattern: &'static str,
    fill: f64,
    block_mib: u64,
    reference: f64,
) -> Row {
    Row {
        gc,
        pattern,
        fill,
        block_mib,
        reference,
    }
}

const GREEDY: [Row; 12] = [
    row("greedy", "uniform", 0.934579, 1, 7.6036), // OP 7%
    row("greedy", "uniform", 0.892857, 1, 4.7655), // OP 12%
    row("greedy", "uniform", 0.78125, 1, 2.4629),  // OP 28%
    row("greedy", "uniform", 0.875, 1, 4.1246),
    row("greedy", "uniform", 0.875, 64, 4.3987), // 16 erase units of 64 MiB
    row("greedy", "twozone:70/30", 0.875, 1, 4.2503),
    row("greedy", "twozone:80/20", 0.875, 1, 4.4809),
    row("greedy", "twozone:90/10", 0.875, 1, 5.0927),
    row("greedy", "twozone:95/5", 0.875, 1, 5.9175),
    row("greedy", "zipf:0.8", 0.875, 1, 5.1606),
    row("greedy", "zipf:1.0", 0.875, 1, 6.1671),
    row("greedy", "zipf:1.2", 0.875, 1, 7.0384),
];

const TWO_R: [Row; 8] = [
    row("2r-greedy", "uniform", 0.875, 1, 4.1379),
    row("2r-greedy", "twozone:80/20", 0.875, 1, 4.3318),
    row("2r-greedy", "twozone:90/10", 0.875, 1, 4.4185),
    row("2r-greedy", "zipf:1.0", 0.875, 1, 4.4179),
    row("2r-fifo", "uniform", 0.875, 1, 4.1577),
    row("2r-fifo", "twozone:80/20", 0.875, 1, 4.0482),
    row("2r-fifo", "twozone:90/10", 0.875, 1, 2.5455),
    row("2r-fifo", "zipf:1.0", 0.875, 1, 3.2973),
];

fn waf(r: &Row) -> f64 {
    let g = Geometry::new(1 << 30, 4096, r.block_mib << 20, Provision::Fill(r.fill), 1).unwrap();
    let cfg = SimConfig {
        geometry: g,
        policy: r.gc.parse::<GcPolicy>().unwrap(),
        gc_frontier: false,
        gc_frontier_share: 1.0,
        gc_mode: GcMode::Naive,
        wear_level_gap: 0,
        pattern: Pattern::parse(r.pattern).unwrap(),
        // The reference's warm-up: one physical capacity of pattern writes.
        warmup_drive_writes: g.physical_pages() as f64 / g.logical_pages as f64,
        drive_writes: 10.0,
        seed: 1,
        buffer_pages: 0,
        points_per_drive_write: 1,
    };
    simulate(&cfg, |_| {}).unwrap().waf
}

fn check(rows: &[Row], tolerance: f64) {
    let mut worst = 0.0f64;
    for r in rows {
        let w = waf(r);
        let diff = w / r.reference - 1.0;
        eprintln!(
            "{} {} fill {} {} MiB: ssdiq {w:.4}, reference {:.4} ({:+.2}%)",
            r.gc,
            r.pattern,
            r.fill,
            r.block_mib,
            r.reference,
            diff * 100.0
        );
        worst = worst.max(diff.abs());
        assert!(
            diff.abs() <= tolerance,
            "{} {} fill {}: ssdiq {w:.4} vs reference {:.4}",
            r.gc,
            r.pattern,
            r.fill,
            r.reference
        );
    }
    eprintln!("worst {:.2}%", worst * 100.0);
}

#[test]
fn greedy_is_the_reference_naive_greedy() {
    check(&GREEDY, 0.01);
}

#[test]
fn two_r_is_the_reference_two_r() {
    check(&TWO_R, 0.03);
}
