//! Static wear levelling: cold data that greedy never picks is moved once its block's erase
//! count lags the mean by more than the gap, so every block keeps cycling; with the gap off,
//! the blocks holding cold data are never erased at all.

use ssdiq_flash::{Ftl, FtlConfig, GcPolicy, Geometry, Provision};
use ssdiq_workload::SeededRng;

/// 64 blocks of 32 pages, OP 25%: a sequential fill, then uniform writes to the first
/// `hot_share` of the logical pages only (the rest is never rewritten), `drive_writes` times
/// the logical capacity.
fn run(gap: u32, hot_share: f64, drive_writes: u64) -> Ftl {
    let g = Geometry::new(64 * 32 * 4096, 4096, 32 * 4096, Provision::Op(0.25), 1).unwrap();
    let mut cfg = FtlConfig::new(g, GcPolicy::Greedy);
    cfg.wear_level_gap = gap;
    let mut ftl = Ftl::new(cfg).unwrap();
    let u = g.logical_pages;
    for lpn in 0..u {
        ftl.write(lpn, 0);
    }
    let hot = (u as f64 * hot_share) as u64;
    let mut rng = SeededRng::new(3);
    for _ in 0..drive_writes * u {
        ftl.write(rng.below(hot), 0);
    }
    ftl.check_invariants().unwrap();
    ftl
}

fn spread(ftl: &Ftl) -> (u32, f64) {
    let e = ftl.erase_counts();
    let min = *e.iter().min().unwrap();
    let mean = e.iter().map(|&c| c as f64).sum::<f64>() / e.len() as f64;
    (min, mean)
}

#[test]
fn off_leaves_cold_blocks_unerased() {
    let ftl = run(0, 0.3, 60);
    let (min, mean) = spread(&ftl);
    assert_eq!(min, 0, "a block of cold data was erased (mean {mean:.1})");
    assert!(mean > 50.0, "the hot blocks cycle: mean {mean:.1}");
    assert_eq!(ftl.counters().wear_level_victims, 0);
}

#[test]
fn on_keeps_every_block_within_reach_of_the_mean() {
    for gap in [4u32, 16] {
        let ftl = run(gap, 0.3, 60);
        let (min, mean) = spread(&ftl);
        assert!(ftl.counters().wear_level_victims > 0, "gap {gap}: no move");
        // A block is moved once its lag exceeds the gap; runs of moves are bounded, so the
        // lag overshoots by a few erases at most.
        assert!(
            mean - (min as f64) < gap as f64 + 4.0,
            "gap {gap}: min {min}, mean {mean:.1}"
        );
    }
}

#[test]
fn uniform_writes_never_need_it() {
    let off = run(0, 1.0, 20);
    let on = run(4, 1.0, 20);
    assert_eq!(on.counters().wear_level_victims, 0);
    assert_eq!(off.counters(), on.counters());
}
