//! The text a sweep's runs become: the JSON document, the CSV of every WAF series, and the
//! summary table. One set of functions for a single-machine sweep and for a merge, so both
//! write the same bytes.

use std::fmt::Write as _;

use ssdiq_flash::Geometry;
use ssdiq_schema::sim::{SimShardDoc, KIND_SIM, KIND_SIM_SHARD};
use ssdiq_schema::{SimDoc, SimRun, SCHEMA};
use ssdiq_workload::units::{format_size, format_writes};

use crate::point::Point;
use crate::shard::Shard;

/// The `"kind": "sim"` document.
pub fn sim_doc(runs: Vec<SimRun>, partial: bool) -> SimDoc {
    let greedy_model = greedy_model_curve(&runs);
    SimDoc {
        schema: SCHEMA.into(),
        kind: KIND_SIM.into(),
        runs,
        partial,
        greedy_model,
    }
}

/// Points of the model curve between the sweep's smallest and largest OP.
const MODEL_POINTS: usize = 48;

/// Greedy GC's mean-field WAF for uniform writes (`ssdiq_flash::analytic::greedy_waf`, as each
/// run's `greedy_model_waf`) at [`MODEL_POINTS`] OPs across the sweep, at the geometry of its
/// first run without a trace; empty unless the sweep has two OPs or more. The model is convex
/// in OP: a line between the swept OPs would draw it straight.
fn greedy_model_curve(runs: &[SimRun]) -> Vec<[f64; 2]> {
    let Some(first) = runs.iter().find(|r| r.params.trace.is_none()) else {
        return Vec::new();
    };
    let ops = runs.iter().map(|r| r.params.op);
    let (lo, hi) = ops.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), o| {
        (a.min(o), b.max(o))
    });
    if hi - lo < 1e-9 {
        return Vec::new();
    }
    let p = &first.params;
    (0..MODEL_POINTS)
        .filter_map(|i| {
            let op = lo + (hi - lo) * i as f64 / (MODEL_POINTS - 1) as f64;
            let g = Geometry::new(
                p.capacity_bytes,
                p.page_bytes,
                p.block_bytes,
                ssdiq_flash::Provision::Op(op),
                p.reserve_blocks,
            )
            .ok()?;
            let waf = ssdiq_flash::analytic::greedy_waf(g.effective_fill(1), g.pages_per_block);
            waf.is_finite().then_some([op * 100.0, waf])
        })
        .collect()
}

/// The `"kind": "sim-shard"` document of `shard`: its finished runs (`runs[i]` is the run of
/// the shard's `i`-th point, `None` if it did not run) and the whole sweep's point list.
pub fn shard_doc(shard: Shard, all: &[Point], runs: Vec<Option<SimRun>>) -> SimShardDoc {
    let mine = shard.select(all);
    let partial = runs.iter().any(Option::is_none) || runs.len() < mine.len();
    SimShardDoc {
        schema: SCHEMA.into(),
        kind: KIND_SIM_SHARD.into(),
        shard: shard.id(),
        points: all.iter().map(|p| p.params.clone()).collect(),
        runs: mine
            .iter()
            .zip(runs)
            .filter_map(|(p, r)| {
                r.map(|run| ssdiq_schema::sim::IndexedRun {
                    index: p.index,
                    run,
                })
            })
            .collect(),
        partial,
    }
}

/// Every run's WAF series, one row per series point.
pub fn csv(runs: &[SimRun]) -> String {
    let mut s = String::from(
        "run,gc,pattern,fill,op,pages_per_block,write_buffer_pages,seed,drive_writes,host_writes,flash_writes,running_waf,cumulative_waf\n",
    );
    for (i, r) in runs.iter().enumerate() {
        let p = &r.params;
        for pt in &r.series {
            let _ = writeln!(
                s,
                "{},{},\"{}\",{},{},{},{},{},{},{},{},{},{}",
                i + 1,
                p.gc_label(),
                p.pattern.replace('"', "\"\""),
                p.fill,
                p.op,
                p.pages_per_block,
                p.write_buffer_pages,
                p.seed,
                pt.drive_writes,
                pt.host_writes,
                pt.flash_writes,
                pt.running_waf,
                pt.cumulative_waf
            );
        }
    }
    s
}

/// The WAF column: four decimals, "a" for an analytic figure, "n" for a run whose GC never
/// collected (its WAF says nothing of GC).
pub fn waf_text(r: &SimRun) -> String {
    if r.method == "analytic" {
        format!("{:.4}a", r.waf)
    } else if r.never_collected() {
        format!("{:.4}n", r.waf)
    } else {
        format!("{:.4}", r.waf)
    }
}

pub const TABLE_NOTE: &str = "WAF: over the final half of the workload writes. b: pages per block; buffer: write-buffer pages. greedy* = greedy mean-field model for uniform writes at this geometry.";

/// The note for analytic runs, printed when the sweep has one.
const ANALYTIC_NOTE: &str = "a = analytic (separated-model: greedy's mean-field model with write frequencies separated; not a bound).";

/// The summary table, one row per run.
pub fn table(runs: &[SimRun]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>3} {:<16} {:<22} {:>6} {:>7} {:>5} {:>7} {:>6} {:>8} {:>8} {:>8} {:>7}",
        "#",
        "gc",
        "pattern",
        "fill",
        "OP",
        "b",
        "buffer",
        "writes",
        "WAF",
        "cum.WAF",
        "greedy*",
        "secs"
    );
    for (i, r) in runs.iter().enumerate() {
        let p = &r.params;
        let _ = writeln!(
            s,
            "{:>3} {:<16} {:<22} {:>6.4} {:>6.2}% {:>5} {:>7} {:>5}x {:>8} {:>8.4} {:>8.4} {:>7.1}",
            i + 1,
            p.gc_label(),
            p.pattern,
            p.fill,
            p.op * 100.0,
            p.pages_per_block,
            p.write_buffer_pages,
            format_writes(p.writes),
            waf_text(r),
            r.cumulative_waf,
            r.greedy_model_waf,
            r.seconds
        );
    }
    let _ = writeln!(s, "{TABLE_NOTE}");
    if runs.iter().any(|r| r.method == "analytic") {
        let _ = writeln!(s, "{ANALYTIC_NOTE}");
    }
    if runs.iter().any(SimRun::never_collected) {
        let _ = writeln!(
            s,
            "n = GC never ran: the workload wrote less than the drive's free space, so this WAF says nothing of GC (write more: --writes, or a longer trace)."
        );
    }
    s
}

/// One line describing a geometry.
pub fn describe_geometry(g: &Geometry) -> String {
    format!(
        "geometry: {} physical, {} logical; page {}, block {} ({} pages) x {} blocks; fill {:.4}, OP {:.2}%, spare factor {:.2}%; GC reserve {} blocks beyond these",
        format_size(g.physical_bytes()),
        format_size(g.logical_bytes()),
        format_size(g.page_bytes),
        format_size(g.ppb() * g.page_bytes),
        g.pages_per_block,
        g.blocks,
        g.fill(),
        g.op() * 100.0,
        g.spare_factor() * 100.0,
        g.reserve_blocks
    )
}

/// One line per trace of the sweep: how it lands on the drive.
pub fn describe_traces(points: &[Point]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in points {
        let Some(t) = &p.params.trace else { continue };
        let line = format!(
            "{}): {} page writes per pass{}; map {} onto {} logical pages; {} pass{}",
            t.name(),
            t.pass_page_writes,
            t.written_pages
                .map(|w| format!(" to {w} distinct pages"))
                .unwrap_or_default(),
            t.map,
            p.params.logical_pages,
            format_writes(t.passes),
            if t.passes == 1.0 { "" } else { "es" }
        );
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}
