//! Traces through the simulator, against exact oracles: a trace holding a pattern's page
//! writes reproduces the pattern's run bit for bit; `compact` makes a run independent of
//! where the trace's pages sit; a sequential trace has WAF 1.

use std::io::Write;
use std::path::Path;

use ssdiq_flash::{GcMode, GcPolicy, Provision};
use ssdiq_schema::SimRun;
use ssdiq_sweep::run::run_point;
use ssdiq_sweep::{points, Axes, BufSpec, TraceWorkload, Warmup, Workload, Writes};
use ssdiq_trace::{MapKind, TraceOptions};
use ssdiq_workload::{Draw, PageStream, Pattern, StreamConfig};

const CAP: u64 = 64 << 20;
const BLOCK: u64 = 128 << 10;
const PAGE: u64 = 4096;

fn axes(workload: Workload, writes: Writes, policy: GcPolicy) -> Axes {
    Axes {
        capacities: vec![CAP],
        pages: vec![PAGE],
        blocks: vec![BLOCK],
        provisions: vec![Provision::Fill(0.875)],
        reserves: vec![2],
        policies: vec![policy],
        modes: vec![GcMode::Naive],
        warmups: vec![Warmup::DriveWrites(0.0)],
        gc_frontier: false,
        gc_frontier_shares: vec![1.0],
        wear_level_gaps: vec![0],
        workloads: vec![workload],
        writes: vec![writes],
        seeds: vec![7],
        buffers: vec![BufSpec::Fraction(0.0)],
    }
}

fn run(a: &Axes) -> SimRun {
    let p = points(a).unwrap();
    assert_eq!(p.len(), 1);
    run_point(&p[0], |_| {}).unwrap()
}

/// Writes MSR lines: one 4 KiB write per page of `pages`, each page mapped by `place`.
fn msr(path: &Path, pages: &[u64], place: impl Fn(u64) -> (u32, u64)) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for (i, &p) in pages.iter().enumerate() {
        let (disk, page) = place(p);
        writeln!(
            f,
            "{},hm,{disk},Write,{},4096,100",
            128_166_372_003_061_629u64 + i as u64 * 10,
            page * PAGE
        )
        .unwrap();
    }
}

fn trace(path: &Path, map: MapKind) -> Workload {
    Workload::Trace(TraceWorkload {
        options: TraceOptions {
            // Some traces here spread their pages over two devices, on purpose.
            device: Some(ssdiq_trace::ALL_DEVICES.into()),
            ..TraceOptions::new(path)
        },
        map,
    })
}

fn same_but_seconds(a: &SimRun, b: &SimRun) {
    let strip = |r: &SimRun| SimRun {
        seconds: 0.0,
        params: ssdiq_schema::SimParams {
            pattern: String::new(),
            trace: None,
            ..r.params.clone()
        },
        ..r.clone()
    };
    assert_eq!(strip(a), strip(b));
}

#[test]
fn a_trace_of_a_patterns_writes_reproduces_the_pattern_run() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = Pattern::parse("zipf:0.9").unwrap();
    let by_pattern = run(&axes(
        Workload::Pattern(pattern.clone()),
        Writes::DriveWrites(3.0),
        GcPolicy::Greedy,
    ));
    let u = by_pattern.params.logical_pages;
    let mut s = PageStream::new(&pattern, StreamConfig::single(u, PAGE, 7)).unwrap();
    let pages: Vec<u64> = (0..3 * u)
        .map(|_| match s.next_draw() {
            Draw::Page(p) => p,
            Draw::Trim { .. } => unreachable!("zipf does not trim"),
        })
        .collect();
    let path = dir.path().join("zipf.csv");
    msr(&path, &pages, |p| (0, p));
    let by_trace = run(&axes(
        trace(&path, MapKind::Direct),
        Writes::Passes(1.0),
        GcPolicy::Greedy,
    ));
    assert_eq!(by_trace.params.writes, 3.0);
    assert_eq!(by_trace.host_writes, 3 * u);
    same_but_seconds(&by_pattern, &by_trace);
    assert!(
        by_trace.waf > 1.2,
        "a skewed workload at fill 0.875 amplifies: {}",
        by_trace.waf
    );
}

#[test]
fn compact_runs_do_not_depend_on_where_pages_sit() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = Pattern::parse("twozone:80/20").unwrap();
    let u = 14_336;
    let mut s = PageStream::new(&pattern, StreamConfig::single(u, PAGE, 3)).unwrap();
    let pages: Vec<u64> = (0..2 * u)
        .map(|_| match s.next_draw() {
            Draw::Page(p) => p,
            Draw::Trim { .. } => unreachable!(),
        })
        .collect();
    let near = dir.path().join("near.csv");
    let far = dir.path().join("far.csv");
    msr(&near, &pages, |p| (0, p));
    // The same writes spread over two disks and a terabyte of address space.
    msr(&far, &pages, |p| {
        ((p % 2) as u32, (p * 7919) % (1 << 28) + (1 << 28))
    });
    for policy in [GcPolicy::Greedy, GcPolicy::CostBenefit] {
        let a = run(&axes(
            trace(&near, MapKind::Compact),
            Writes::Passes(1.0),
            policy,
        ));
        let b = run(&axes(
            trace(&far, MapKind::Compact),
            Writes::Passes(1.0),
            policy,
        ));
        same_but_seconds(&a, &b);
    }
}

#[test]
fn a_sequential_trace_has_waf_one_and_passes_loop_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let u = 14_336u64;
    let pages: Vec<u64> = (0..u).collect();
    let path = dir.path().join("seq.csv");
    msr(&path, &pages, |p| (0, p));
    let r = run(&axes(
        trace(&path, MapKind::Compact),
        Writes::Passes(3.0),
        GcPolicy::Greedy,
    ));
    assert_eq!(r.host_writes, 3 * u);
    assert_eq!(r.waf, 1.0);
    assert_eq!(r.cumulative_waf, 1.0);
    assert_eq!(r.params.trace.as_ref().unwrap().passes, 3.0);
}

#[test]
fn traces_that_do_not_fit_or_cannot_run_are_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    let pages: Vec<u64> = (0..20_000).collect();
    msr(&path, &pages, |p| (0, p));
    let e = points(&axes(
        trace(&path, MapKind::Compact),
        Writes::Passes(1.0),
        GcPolicy::Greedy,
    ))
    .unwrap_err();
    assert!(e.is_input());
    assert!(e.to_string().contains("past 16384 distinct pages"), "{e}");
    let e = points(&axes(
        trace(&path, MapKind::Modulo),
        Writes::Passes(1.0),
        GcPolicy::SeparatedModel,
    ))
    .unwrap_err();
    assert!(e.to_string().contains("separated-model"), "{e}");
    let e = points(&axes(
        Workload::Pattern(Pattern::Uniform),
        Writes::Passes(1.0),
        GcPolicy::Greedy,
    ))
    .unwrap_err();
    assert!(e.to_string().contains("--trace"), "{e}");
    // Modulo folds the 20000 pages onto the drive and runs.
    let r = run(&axes(
        trace(&path, MapKind::Modulo),
        Writes::Passes(1.0),
        GcPolicy::Greedy,
    ));
    assert_eq!(r.host_writes, 20_000);
}
