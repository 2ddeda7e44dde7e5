//! `ssdiq sim --html`: a sweep as one page in the report's chart vocabulary: write
//! amplification over drive writes (one colour per run), the final WAF against
//! over-provisioning when the sweep varies it (with the greedy model beside it), the runs table.

use ssdiq_schema::{SimDoc, SimParams as Params, SimRun};
use ssdiq_workload::units::{format_size, format_writes};

use crate::chart::line::Stroke;
use crate::chart::{palette, Axis, LineChart, Series};
use crate::page::{simple_table, Page, Panel};

/// What tells the runs of this sweep apart, as a label per run; `group` leaves out OP and
/// seed (a colour per group: its lines are the OPs or repetitions of one configuration).
fn labels(specs: &[SimRun], group: bool) -> Vec<String> {
    type Field = (&'static str, fn(&Params) -> String);
    let fields: [Field; 8] = [
        ("", Params::gc_label),
        ("", |p| p.pattern.clone()),
        ("OP ", |p| format!("{:.1}%", p.op * 100.0)),
        ("block ", |p| format!("{} pages", p.pages_per_block)),
        ("buffer ", |p| format!("{} pages", p.write_buffer_pages)),
        ("seed ", |p| p.seed.to_string()),
        // A trace's runs by their passes over it (their drive writes differ with the OP).
        ("", |p| match &p.trace {
            Some(t) => format!(
                "{} pass{}",
                format_writes(t.passes),
                if t.passes == 1.0 { "" } else { "es" }
            ),
            None => format!("{}x", format_writes(p.writes)),
        }),
        ("reserve ", |p| p.reserve_blocks.to_string()),
    ];
    let varying: Vec<_> = fields
        .iter()
        .filter(|(prefix, _)| !(group && (*prefix == "OP " || *prefix == "seed ")))
        .filter(|(_, f)| specs.iter().any(|s| f(&s.params) != f(&specs[0].params)))
        .collect();
    specs
        .iter()
        .map(|s| {
            let parts: Vec<String> = varying
                .iter()
                .map(|(prefix, f)| format!("{prefix}{}", f(&s.params)))
                .collect();
            if parts.is_empty() {
                format!("{} {}", s.params.gc_label(), s.params.pattern)
            } else {
                parts.join(", ")
            }
        })
        .collect()
}

/// Running WAF (solid) and cumulative WAF (thin) over the workload, one colour per group.
fn over_writes(groups: &[String], results: &[SimRun]) -> LineChart {
    let mut c = LineChart::new(
        "Write amplification over the workload",
        Axis::linear("drive writes after the fill"),
        Axis::linear("WAF"),
    );
    let mut order: Vec<&String> = Vec::new();
    // Analytic figures have no series: a dashed level across the simulated runs' span.
    let span = results
        .iter()
        .filter_map(|r| r.series.last().map(|p| p.drive_writes))
        .fold(0.0f64, f64::max);
    for (label, r) in groups.iter().zip(results) {
        if !order.contains(&label) {
            order.push(label);
        }
        let colour = palette::series(order.iter().position(|g| *g == label).unwrap_or(0));
        if r.series.is_empty() && r.method == "analytic" {
            let end = if span > 0.0 { span } else { 1.0 };
            c.series.push(
                Series::new(
                    format!("{label} (analytic)"),
                    colour,
                    vec![[0.0, r.waf], [end, r.waf]],
                )
                .stroke(Stroke::Dashed),
            );
            continue;
        }
        let running = r.series.iter().map(|p| [p.drive_writes, p.running_waf]);
        let cumulative = r.series.iter().map(|p| [p.drive_writes, p.cumulative_waf]);
        c.series.push(Series::new(label, colour, running.collect()));
        c.series
            .push(Series::new("", colour, cumulative.collect()).stroke(Stroke::Thin));
    }
    c
}

/// Final WAF against OP, one line per combination of the other parameters, with the greedy
/// mean-field model for uniform writes; `None` unless the sweep has two OPs or more.
fn against_op(specs: &[SimRun], curve: &[[f64; 2]]) -> Option<LineChart> {
    let mut ops: Vec<u64> = specs.iter().map(|s| s.params.op.to_bits()).collect();
    ops.sort_unstable();
    ops.dedup();
    if ops.len() < 2 {
        return None;
    }
    let mut groups: Vec<(String, Vec<[f64; 2]>)> = Vec::new();
    let mut model: Vec<[f64; 2]> = Vec::new();
    for (r, key) in specs.iter().zip(labels(specs, true)) {
        let p = &r.params;
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push([p.op * 100.0, r.waf]),
            None => groups.push((key, vec![[p.op * 100.0, r.waf]])),
        }
        model.push([p.op * 100.0, r.greedy_model_waf]);
    }
    let mut c = LineChart::new(
        "Write amplification against over-provisioning",
        Axis::linear("OP = (physical - logical) / logical [%]"),
        Axis::linear("WAF (final half of the workload)"),
    );
    for (i, (label, mut pts)) in groups.into_iter().enumerate() {
        pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
        c.series
            .push(Series::new(label, palette::series(i), pts).markers());
    }
    // The model is of uniform writes: beside traces only it would compare unlike things.
    if specs.iter().any(|r| r.params.trace.is_none()) {
        model.sort_by(|a, b| a[0].total_cmp(&b[0]));
        model.dedup_by(|a, b| a[0] == b[0]);
        // The model's own curve where the document has it (a document of an older version
        // has only the runs' points).
        if curve.len() > model.len() {
            model = curve.to_vec();
        }
        c.series.push(
            Series::new("greedy model, uniform", palette::REFERENCE, model).stroke(Stroke::Dashed),
        );
    }
    Some(c)
}

/// Group labels, or the run labels when only OP or the seed varies (one group).
fn labels_or_all(specs: &[SimRun]) -> Vec<String> {
    let g = labels(specs, true);
    if g.iter().all(|l| *l == g[0]) && specs.len() <= 8 {
        labels(specs, false)
    } else {
        g
    }
}

/// The drive's geometry in one line when every run has the same, else nothing.
fn geometry(runs: &[SimRun]) -> String {
    let key = |p: &Params| {
        (
            p.capacity_bytes,
            p.logical_bytes,
            p.page_bytes,
            p.block_bytes,
            p.reserve_blocks,
        )
    };
    let Some(first) = runs.first().map(|r| &r.params) else {
        return String::new();
    };
    if runs.iter().any(|r| key(&r.params) != key(first)) {
        // What the runs share still says what drive they are on.
        let same = |f: fn(&Params) -> u64| runs.iter().all(|r| f(&r.params) == f(first));
        let mut parts = Vec::new();
        if same(|p| p.capacity_bytes) {
            parts.push(format!("{} physical", format_size(first.capacity_bytes)));
        }
        if same(|p| p.page_bytes) {
            parts.push(format!("page {}", format_size(first.page_bytes)));
        }
        if same(|p| p.block_bytes) {
            parts.push(format!("block {}", format_size(first.block_bytes)));
        }
        return if parts.is_empty() {
            String::new()
        } else {
            format!(
                "geometry: {}; the rest varies (see the runs)",
                parts.join(", ")
            )
        };
    }
    format!(
        "geometry: {} physical, {} logical; page {}, block {} ({} pages) x {} blocks; fill {:.4}, OP {:.2}%, spare factor {:.2}%; GC reserve {} blocks beyond these",
        format_size(first.capacity_bytes),
        format_size(first.logical_bytes),
        format_size(first.page_bytes),
        format_size(first.block_bytes),
        first.pages_per_block,
        first.blocks,
        first.fill,
        first.op * 100.0,
        first.spare_factor * 100.0,
        first.reserve_blocks
    )
}

/// The sweep's page: its runs, and the greedy model's curve where the sweep varies OP.
pub fn page(doc: &SimDoc) -> String {
    let specs = &doc.runs[..];
    let results = specs;
    let mut traces: Vec<String> = Vec::new();
    for t in specs.iter().filter_map(|r| r.params.trace.as_ref()) {
        let line = format!("{}, map {})", t.name(), t.map);
        if !traces.contains(&line) {
            traces.push(line);
        }
    }
    let geometry = &[geometry(specs), traces.join("; ")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(". ");
    let labels = labels(specs, false);
    let groups = labels_or_all(specs);
    let mut page = Page::new(
        &format!(
            "ssdiq sim: {} run{}",
            specs.len(),
            if specs.len() == 1 { "" } else { "s" }
        ),
        geometry,
    );
    page.heading("waf", "Write amplification");
    let analytic = if specs.iter().any(|r| r.method == "analytic") {
        " Dashed: an analytic figure (separated-model), one level."
    } else {
        ""
    };
    let mut figures = vec![Panel::line(
        &over_writes(&groups, results),
        &format!("Running WAF (thick: flash writes / host writes over the last tenth of a drive write) and cumulative WAF since the fill (thin). One colour per configuration; where the sweep varies OP or the seed, a colour's lines are its OPs (more OP, lower WAF) or repetitions.{analytic}"),
    )];
    if let Some(c) = against_op(specs, &doc.greedy_model) {
        let all_traces = specs.iter().all(|r| r.params.trace.is_some());
        figures.push(Panel::line(
            &c,
            if all_traces {
                "Final WAF of each run against its over-provisioning."
            } else {
                "Final WAF of each run against its over-provisioning; dashed grey: greedy GC's mean-field model for uniform writes at the same geometry."
            },
        ));
    }
    page.grid(figures);
    page.heading("runs", "Runs");
    let rows: Vec<Vec<String>> = specs
        .iter()
        .zip(&labels)
        .enumerate()
        .map(|(i, (r, label))| {
            let p = &r.params;
            vec![
                (i + 1).to_string(),
                label.clone(),
                p.gc_label(),
                p.pattern.clone(),
                format!("{:.4}", p.fill),
                format!("{:.2}", p.op * 100.0),
                p.pages_per_block.to_string(),
                p.write_buffer_pages.to_string(),
                format_writes(p.writes),
                format!(
                    "{:.4}{}",
                    r.waf,
                    if r.method == "analytic" {
                        " (analytic)"
                    } else if r.never_collected() {
                        " (GC never ran)"
                    } else {
                        ""
                    }
                ),
                format!("{:.4}", r.cumulative_waf),
                format!("{:.4}", r.greedy_model_waf),
            ]
        })
        .collect();
    page.raw(&simple_table(
        "runs",
        &[
            "#",
            "run",
            "gc",
            "pattern",
            "fill",
            "OP [%]",
            "pages/block",
            "buffer pages",
            "drive writes",
            "WAF",
            "cum. WAF",
            "greedy model",
        ],
        &rows,
        4,
    ));
    page.finish("WAF is over the final half of the workload writes. Fill = logical / physical capacity; OP = (physical - logical) / logical.")
}
