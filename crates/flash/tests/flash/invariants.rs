//! Random operation sequences keep every FTL invariant, for every policy and with several
//! streams, a GC frontier (taking all relocated pages or a share of them), trims and explicit
//! GC steps.

use proptest::prelude::*;
use ssdiq_flash::{Ftl, FtlConfig, GcMode, GcPolicy, Geometry, Provision};

#[derive(Clone, Debug)]
enum Op {
    Write(u64, u32),
    Trim(u64),
    Collect,
}

fn policy() -> impl Strategy<Value = GcPolicy> {
    prop_oneof![
        Just(GcPolicy::Greedy),
        Just(GcPolicy::Fifo),
        Just(GcPolicy::Random),
        Just(GcPolicy::DChoices(3)),
        Just(GcPolicy::CostBenefit),
        Just(GcPolicy::FifoScan),
        Just(GcPolicy::TwoRGreedy),
        Just(GcPolicy::TwoRFifo),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            20 => (0u64..1_000_000, 0u32..3).prop_map(|(l, s)| Op::Write(l, s)),
            2 => (0u64..1_000_000).prop_map(Op::Trim),
            1 => Just(Op::Collect),
        ],
        1..3000,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn invariants_hold(policy in policy(), streams in 1u32..4, gc_frontier: bool,
                       share in prop_oneof![Just(1.0), 0.0..1.0f64],
                       batched: bool, reserve in 1u32..4, hot in 1u64..100,
                       wear_level_gap in prop_oneof![Just(0u32), 1u32..4], ops in ops()) {
        // 40 blocks of 8 pages, OP 50%: small enough that GC runs constantly.
        let g = Geometry::new(40 * 8 * 4096, 4096, 8 * 4096, Provision::Fill(0.6), reserve)
            .unwrap();
        let u = g.logical_pages;
        let mode = if batched { GcMode::Batched } else { GcMode::Naive };
        // 2R merges in place: no GC frontier.
        let gc_frontier = gc_frontier && !policy.is_two_r();
        let gc_frontier_share = if gc_frontier { share } else { 1.0 };
        let mut ftl = Ftl::new(FtlConfig {
            geometry: g,
            policy,
            streams,
            gc_frontier,
            gc_frontier_share,
            mode,
            wear_level_gap,
            seed: 1,
        })
        .unwrap();
        let mut host = 0u64;
        for op in ops {
            match op {
                // Skew a part of the writes onto a few pages to exercise hot/cold paths.
                Op::Write(l, s) => {
                    let lpn = if l % 2 == 0 { l % hot.min(u) } else { l % u };
                    let e = ftl.write(lpn, s % streams);
                    prop_assert_eq!(e.programs, 1);
                    host += 1;
                }
                Op::Trim(l) => { ftl.trim(l % u); }
                Op::Collect => { ftl.collect_one(); }
            }
            if let Err(e) = ftl.check_invariants() {
                prop_assert!(false, "{}", e);
            }
        }
        let c = ftl.counters();
        prop_assert_eq!(c.host_programs, host);
        prop_assert_eq!(c.erases, c.victim_valid.iter().sum::<u64>());
        prop_assert_eq!(c.flash_programs(), c.host_programs + c.gc_programs);
    }
}
