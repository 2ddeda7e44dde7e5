//! The simulator against the analytic oracles of docs/sources.md#wa-models, under its test
//! recipe: sequential fill, 2 drive writes of warm-up, WAF measured over 2 more, N >= 10^4
//! blocks, and the oracle evaluated at the effective fill U / (T - r b) where r counts the
//! reserved free blocks plus the open (frontier) blocks.
//!
//! Tolerance: the 1%. Why that is not loose for a noise source: at N = 10^4 blocks of
//! 32 pages a measurement window of 2 drive writes holds ~10^5 GC victims; the relative
//! standard error of the mean relocation count is then ~0.1%, and the finite-N bias the
//! reference reports is ~0.2%. A wrong policy (e.g. FIFO vs greedy, +16% at OP 10% b=32) or a
//! wrong OP accounting (one extra reserved block ~ +0.05%, a 1%-wrong fill ~ +10%) fails.

use ssdiq_flash::analytic::{dchoices_waf, greedy_waf, lrw_waf, random_waf, single_frontier_waf};
use ssdiq_flash::{Ftl, FtlConfig, GcPolicy, Geometry, Provision};
use ssdiq_workload::SeededRng;

const BLOCKS: u64 = 10_240;
const RESERVE: u32 = 1;

fn geometry(ppb: u64, op: f64) -> Geometry {
    Geometry::new(
        BLOCKS * ppb * 4096,
        4096,
        ppb * 4096,
        Provision::Op(op),
        RESERVE,
    )
    .unwrap()
}

/// Effective alpha = (T - r b) / U for `open` frontiers.
fn alpha_eff(g: &Geometry, open: u32) -> f64 {
    1.0 / g.effective_fill(open)
}

/// Fill sequentially, warm up `warm_dw` drive writes, measure 2; `class_of(lpn)` picks the stream.
/// Writes are drawn from `classes`: (write fraction, space fraction), class i owning a
/// contiguous LBA range (no scrambling needed: the FTL does not care where pages are).
fn run(
    g: Geometry,
    policy: GcPolicy,
    gc_frontier: bool,
    classes: &[(f64, f64)],
    separate: bool,
    warm_dw: u64,
) -> (f64, Ftl) {
    let u = g.logical_pages;
    let mut cfg = FtlConfig::new(g, policy);
    cfg.gc_frontier = gc_frontier;
    cfg.streams = if separate { classes.len() as u32 } else { 1 };
    let mut ftl = Ftl::new(cfg).unwrap();
    let mut starts = vec![0u64];
    for c in classes {
        starts.push((starts.last().unwrap() + (c.1 * u as f64).round() as u64).min(u));
    }
    *starts.last_mut().unwrap() = u;
    let mut cum = vec![];
    let mut acc = 0.0;
    for c in classes {
        acc += c.0;
        cum.push(acc);
    }
    let class_of = |l: u64| starts[1..].iter().position(|&e| l < e).unwrap();
    for l in 0..u {
        ftl.write(l, if separate { class_of(l) as u32 } else { 0 });
    }
    let mut rng = SeededRng::new(42);
    let mut step = |ftl: &mut Ftl, n: u64| {
        for _ in 0..n {
            let x = rng.unit_f64();
            let i = cum.iter().position(|&c| x < c).unwrap_or(classes.len() - 1);
            let l = starts[i] + rng.below(starts[i + 1] - starts[i]);
            ftl.write(l, if separate { i as u32 } else { 0 });
        }
    };
    step(&mut ftl, warm_dw * u);
    let (h0, f0) = (
        ftl.counters().host_programs,
        ftl.counters().flash_programs(),
    );
    step(&mut ftl, 2 * u);
    let c = ftl.counters();
    let waf = (c.flash_programs() - f0) as f64 / (c.host_programs - h0) as f64;
    (waf, ftl)
}

fn uniform(g: Geometry, p: GcPolicy, gc_frontier: bool) -> f64 {
    run(g, p, gc_frontier, &[(1.0, 1.0)], false, 2).0
}

fn assert_within(sim: f64, oracle: f64, rel: f64, what: &str) {
    let err = (sim - oracle).abs() / oracle;
    assert!(
        err <= rel,
        "{what}: simulated {sim:.4} vs oracle {oracle:.4} ({:.2}% off)",
        err * 100.0
    );
    eprintln!(
        "{what}: simulated {sim:.4} vs oracle {oracle:.4} ({:+.3}%)",
        (sim / oracle - 1.0) * 100.0
    );
}

#[test]
fn greedy_uniform_matches_finite_block_mean_field() {
    for (ppb, op) in [(32u64, 0.10), (32, 0.28), (64, 0.07)] {
        let g = geometry(ppb, op);
        let w = uniform(g, GcPolicy::Greedy, false);
        let oracle = greedy_waf(1.0 / alpha_eff(&g, 1), ppb as u32);
        assert_within(w, oracle, 0.01, &format!("greedy b={ppb} OP {op}"));
    }
}

#[test]
fn greedy_with_gc_frontier_is_the_same_under_uniform_writes() {
    let g = geometry(32, 0.10);
    let w = uniform(g, GcPolicy::Greedy, true);
    let oracle = greedy_waf(1.0 / alpha_eff(&g, 2), 32);
    assert_within(w, oracle, 0.01, "greedy + GC frontier b=32 OP 10%");
}

#[test]
fn fifo_uniform_matches_lrw() {
    for op in [0.10, 0.28] {
        let g = geometry(32, op);
        let (w, ftl) = run(g, GcPolicy::Fifo, false, &[(1.0, 1.0)], false, 2);
        let a = alpha_eff(&g, 1);
        assert_within(w, lrw_waf(a), 0.01, &format!("fifo OP {op}"));
        // Victims hold x b valid pages on average (the victim valid fraction of docs/sources.md#wa-models); checked over the
        // whole run, which is dominated by steady state.
        let x = ftl.counters().mean_victim_valid() / 32.0;
        let want = ssdiq_flash::analytic::lrw_x(a);
        assert!((x - want).abs() < 0.01, "victim fraction {x} vs {want}");
    }
}

#[test]
fn random_uniform_matches_inverse_spare_factor() {
    let g = geometry(32, 0.28);
    let w = uniform(g, GcPolicy::Random, false);
    assert_within(w, random_waf(alpha_eff(&g, 1)), 0.01, "random OP 28%");
}

#[test]
fn dchoices_uniform_matches_mean_field() {
    for d in [2u32, 10] {
        let g = geometry(32, 0.10);
        let w = uniform(g, GcPolicy::DChoices(d), false);
        let oracle = dchoices_waf(1.0 / alpha_eff(&g, 1), 32, d);
        assert_within(w, oracle, 0.01, &format!("dchoices:{d} OP 10% b=32"));
    }
}

#[test]
#[ignore = "slow, about 7 s: .ci/extra/slow-tests.sh runs it"]
fn cost_benefit_is_close_to_but_not_better_than_greedy_on_uniform() {
    let g = geometry(32, 0.10);
    let greedy = greedy_waf(1.0 / alpha_eff(&g, 1), 32);
    let w = uniform(g, GcPolicy::CostBenefit, false);
    // Greedy is optimal for uniform writes (Lange et al.); cost-benefit pays a little for
    // its age term. 0.5% below the oracle is the statistical allowance from the module docs.
    assert!(
        w >= greedy * 0.995 && w <= greedy * 1.10,
        "{w} vs greedy {greedy}"
    );
}

#[test]
fn fifo_hot_cold_one_frontier_matches_fluid_limit() {
    // Hot/cold limit (a): FIFO's expected victim occupancy does not depend on b, so b = 32 meets the
    // b -> inf formula.
    let g = geometry(32, 0.10);
    let classes = [(0.8, 0.2), (0.2, 0.8)];
    let (w, _) = run(g, GcPolicy::Fifo, false, &classes, false, 2);
    assert_within(
        w,
        single_frontier_waf(alpha_eff(&g, 1), &classes),
        0.01,
        "fifo 80/20",
    );
}

#[test]
fn separation_alone_does_not_reach_the_optimal_split_under_greedy() {
    // Hot/cold limit (b): with perfect hot/cold separation (one stream per zone, GC copies stay in
    // their zone) and global greedy, b -> inf gives exactly the uniform WAF whatever the
    // skew. 50/50 is uniform traffic through two streams, so it must meet the uniform
    // oracle (this checks the multi-stream bookkeeping and the r = reserve + 2 accounting).
    // With b = 64 skewed runs measure 2-3% *below* the uniform value (a finite-b effect:
    // 5.12 at 80/20 here, vs 5.26 uniform), and far above the optimal split of limit (c)
    // (3.89 at 80/20): separation without an OP split gains little.
    let g = geometry(64, 0.10);
    let uniform = greedy_waf(1.0 / alpha_eff(&g, 2), 64);
    // The cold zone gets 1 - r of the writes on 1 - f of the space, so it turns over only
    // every (1 - f)/(1 - r) drive writes (up to 9 here): warm up for 10.
    let (w, _) = run(
        g,
        GcPolicy::Greedy,
        false,
        &[(0.5, 0.5), (0.5, 0.5)],
        true,
        10,
    );
    assert_within(w, uniform, 0.01, "separated greedy 50/50");
    for classes in [[(0.8, 0.2), (0.2, 0.8)], [(0.9, 0.1), (0.1, 0.9)]] {
        let (w, _) = run(g, GcPolicy::Greedy, false, &classes, true, 10);
        let opt = ssdiq_flash::analytic::optimal_split(alpha_eff(&g, 2), &classes, Some(64)).waf;
        eprintln!(
            "separated greedy {:?}: {w:.4}, uniform {uniform:.4}, optimal split {opt:.4}",
            classes[0]
        );
        assert!(
            w <= uniform * 1.01,
            "separation made greedy worse: {w} vs {uniform}"
        );
        assert!(
            w >= opt * 1.2,
            "separated greedy {w} close to the optimal split {opt}"
        );
    }
}
