//! Whole runs through `simulate`: the orderings and exact cases the issue asks for.

use ssdiq_flash::{simulate, GcMode, GcPolicy, Geometry, Provision, SimConfig, SimReport};
use ssdiq_workload::Pattern;

fn cfg(blocks: u64, ppb: u64, fill: f64, policy: GcPolicy, pattern: &str) -> SimConfig {
    SimConfig {
        geometry: Geometry::new(
            blocks * ppb * 4096,
            4096,
            ppb * 4096,
            Provision::Fill(fill),
            1,
        )
        .unwrap(),
        policy,
        gc_frontier: false,
        gc_frontier_share: 1.0,
        gc_mode: GcMode::Naive,
        wear_level_gap: 0,
        pattern: Pattern::parse(pattern).unwrap(),
        warmup_drive_writes: 0.0,
        drive_writes: 4.0,
        seed: 7,
        buffer_pages: 0,
        points_per_drive_write: 10,
    }
}

fn sim(c: &SimConfig) -> SimReport {
    simulate(c, |_| {}).unwrap()
}

const ALL: [GcPolicy; 8] = [
    GcPolicy::Greedy,
    GcPolicy::Fifo,
    GcPolicy::Random,
    GcPolicy::DChoices(4),
    GcPolicy::CostBenefit,
    GcPolicy::FifoScan,
    GcPolicy::TwoRGreedy,
    GcPolicy::TwoRFifo,
];

#[test]
#[ignore = "slow, about 6 s: .ci/extra/slow-tests.sh runs it"]
fn no_policy_beats_the_separated_model_but_by_greedys_finite_block_scatter() {
    for pattern in ["twozone:90/10", "readonly:0.5", "uniform"] {
        let opt = sim(&cfg(4096, 32, 0.875, GcPolicy::SeparatedModel, pattern)).waf;
        for p in ALL {
            let w = sim(&cfg(4096, 32, 0.875, p, pattern)).waf;
            eprintln!("{pattern} {p}: {w:.4} (separated model {opt:.4})");
            // Under uniform writes greedy *is* the optimum; its simulated WAF scatters
            // around the mean field by ~0.2% at 4096 blocks (docs/sources.md#wa-models), so
            // allow 1% there and nothing elsewhere.
            let slack = if pattern == "uniform" { 0.99 } else { 1.0 };
            assert!(
                w >= opt * slack,
                "{pattern}: {p} = {w} beats the separated model {opt}"
            );
        }
    }
}

#[test]
fn two_r_policies_beat_greedy_on_hot_cold() {
    // 2R-FIFO (victims from the FIFO under a utilisation threshold, merged; full merges are
    // cold) exploits the skew strongly (measured 2.38 vs 4.72 here); 2R-greedy less so
    // (3.97): its region choice mostly collects the normal region, where hot and cold pages
    // still mix. SSD-iq's Fig. 3b has the same order.
    let greedy = sim(&cfg(4096, 32, 0.875, GcPolicy::Greedy, "twozone:90/10")).waf;
    let two_r_fifo = sim(&cfg(4096, 32, 0.875, GcPolicy::TwoRFifo, "twozone:90/10")).waf;
    let two_r_greedy = sim(&cfg(4096, 32, 0.875, GcPolicy::TwoRGreedy, "twozone:90/10")).waf;
    eprintln!("90/10: greedy {greedy:.4}, 2r-fifo {two_r_fifo:.4}, 2r-greedy {two_r_greedy:.4}");
    assert!(
        two_r_fifo < greedy * 0.7,
        "2r-fifo {two_r_fifo} vs greedy {greedy}"
    );
    assert!(
        two_r_greedy < greedy * 0.95 && two_r_greedy > two_r_fifo,
        "2r-greedy {two_r_greedy} vs greedy {greedy}, 2r-fifo {two_r_fifo}"
    );
}

#[test]
fn batched_collection_separates_gc_data_and_only_helps_under_skew() {
    // Naive greedy (one log) vs batched collection (relocated pages in blocks of their own):
    // the same under uniform writes, lower under skew (SSD-iq §4's naive greedy is the
    // former; the issue-13 finding was the latter posing as greedy).
    let run = |pattern: &str, mode: GcMode| {
        let mut c = cfg(4096, 32, 0.875, GcPolicy::Greedy, pattern);
        c.gc_mode = mode;
        sim(&c).waf
    };
    let (un, ub) = (
        run("uniform", GcMode::Naive),
        run("uniform", GcMode::Batched),
    );
    let (sn, sb) = (
        run("twozone:90/10", GcMode::Naive),
        run("twozone:90/10", GcMode::Batched),
    );
    eprintln!("uniform naive {un:.4} batched {ub:.4}; 90/10 naive {sn:.4} batched {sb:.4}");
    assert!((ub / un - 1.0).abs() < 0.01, "uniform: {un} vs {ub}");
    assert!(sb < sn * 0.95, "90/10: naive {sn} vs batched {sb}");
}

#[test]
fn greedy_gets_worse_with_skew_on_one_frontier() {
    // §2.5(a) and SSD-iq Fig. 3b "naive greedy".
    let u = sim(&cfg(4096, 32, 0.875, GcPolicy::Greedy, "uniform")).waf;
    let s = sim(&cfg(4096, 32, 0.875, GcPolicy::Greedy, "twozone:90/10")).waf;
    assert!(s > u * 1.03, "uniform {u} vs 90/10 {s}");
}

#[test]
fn write_buffer_lowers_waf_at_zipf_1() {
    let mut c = cfg(2048, 64, 0.875, GcPolicy::Greedy, "zipf:1.0");
    let without = sim(&c);
    c.buffer_pages = c.geometry.logical_pages / 200; // 0.5%
    let with = sim(&c);
    eprintln!(
        "zipf 1.0: {:.4} -> {:.4} with buffer",
        without.waf, with.waf
    );
    assert!(with.buffer_hits > 0);
    assert!(
        with.waf < without.waf * 0.9,
        "{} vs {}",
        with.waf,
        without.waf
    );
}

#[test]
fn one_zns_front_with_block_multiple_zones_has_waf_exactly_one() {
    // 1024 blocks of 32 pages, fill 0.875: 896 logical blocks = 224 zones of 4 blocks, so
    // the fill ends on a block boundary and each zone fills whole blocks.
    for zone in ["zns:512KiB", "zns:128KiB"] {
        let r = sim(&cfg(1024, 32, 0.875, GcPolicy::Greedy, zone));
        assert_eq!(r.flash_writes, r.host_writes, "{zone}");
        assert_eq!(r.gc_relocations, 0);
        assert!(r.trims > 0);
    }
    // Two open zones share one frontier: blocks mix zones and GC has to copy.
    let r = sim(&cfg(1024, 32, 0.875, GcPolicy::Greedy, "zns:512KiBx2"));
    assert!(r.waf > 1.0);
}

#[test]
fn series_has_a_point_every_tenth_of_a_drive_write() {
    let r = sim(&cfg(1024, 32, 0.875, GcPolicy::Greedy, "uniform"));
    assert_eq!(r.series.len(), 40);
    let last = r.series.last().unwrap();
    assert_eq!(last.host_writes, r.host_writes);
    assert!((last.cumulative_waf - r.cumulative_waf).abs() < 1e-12);
    // Deterministic for a seed.
    let again = sim(&cfg(1024, 32, 0.875, GcPolicy::Greedy, "uniform"));
    assert_eq!(r, again);
}

/// A GC frontier share spans naive greedy (0: the same run, program for program) and a
/// separate GC log (1, the default share, which the oracle and reference tests pin), and under
/// skew its WAF falls as the share grows, since more of the data that survives GC leaves the
/// host log (near 1 it levels off: within 2% of the GC log's).
#[test]
fn a_gc_frontier_share_runs_between_naive_greedy_and_a_gc_log() {
    let base = cfg(2048, 64, 0.85, GcPolicy::Greedy, "twozone:90/10");
    let naive = sim(&base);
    let with = |share: f64| {
        sim(&SimConfig {
            gc_frontier: true,
            gc_frontier_share: share,
            ..base.clone()
        })
    };
    let none = with(0.0);
    assert_eq!(
        (none.flash_writes, none.host_writes),
        (naive.flash_writes, naive.host_writes),
        "share 0 is naive greedy"
    );
    let log = with(1.0);
    let wafs: Vec<f64> = [0.0, 0.3, 0.6].iter().map(|&s| with(s).waf).collect();
    for w in wafs.windows(2) {
        assert!(
            w[1] < 0.98 * w[0],
            "WAF falls as the GC frontier's share grows: {wafs:?}"
        );
    }
    let top = with(0.9).waf;
    assert!(
        top < wafs[2] && (top / log.waf - 1.0).abs() < 0.02,
        "share 0.9: {top}, GC log {}",
        log.waf
    );
}

#[test]
fn a_gc_frontier_share_is_checked() {
    let base = cfg(256, 64, 0.85, GcPolicy::Greedy, "uniform");
    for (frontier, share, want) in [
        (true, 1.5, "between 0 and 1"),
        (true, f64::NAN, "between 0 and 1"),
        (false, 0.5, "needs a GC frontier"),
    ] {
        let c = SimConfig {
            gc_frontier: frontier,
            gc_frontier_share: share,
            ..base.clone()
        };
        let e = simulate(&c, |_| {}).unwrap_err().to_string();
        assert!(e.contains(want), "{share}: {e}");
    }
}
