//! The HTML page of a simulation sweep (`ssdiq sim --html`, `ssdiq sim merge --html`): the
//! runs' table and their WAF series. No timings appear, so a merged sweep renders to the
//! same bytes as the single-machine one.

use std::fmt::Write;

use ssdiq_schema::{SimDoc, SimRun};

use crate::chart::{line_chart, Line, LineChart};
use crate::html::{chart_div, esc, CSS};

/// Runs per chart: one colour each.
const RUNS_PER_CHART: usize = 6;

fn gc(r: &SimRun) -> String {
    let p = &r.params;
    let two_region = p.gc.starts_with("2r-");
    if p.gc_frontier && !two_region {
        format!("{}+gcf", p.gc)
    } else {
        p.gc.clone()
    }
}

fn label(i: usize, r: &SimRun) -> String {
    format!("#{} {} {}", i + 1, gc(r), r.params.pattern)
}

fn gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
}

fn table(runs: &[SimRun]) -> String {
    let mut s = String::from(
        "<table><tr><th>#</th><th>gc</th><th>workload</th><th>capacity</th><th>fill</th><th>OP</th>\
<th>pages/block</th><th>buffer pages</th><th>seed</th><th>drive writes</th><th>WAF</th><th>cum. WAF</th>\
<th>greedy model</th><th>host page writes</th><th>flash page writes</th><th>erases</th></tr>",
    );
    for (i, r) in runs.iter().enumerate() {
        let p = &r.params;
        let waf = if r.method == "analytic" {
            format!("{:.4} (analytic)", r.waf)
        } else {
            format!("{:.4}", r.waf)
        };
        let _ = write!(
            s,
            "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>\
<td class=\"num\">{:.4}</td><td class=\"num\">{:.2}%</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
<td class=\"num\">{}</td><td class=\"num\">{:.3}</td><td class=\"num\">{}</td><td class=\"num\">{:.4}</td>\
<td class=\"num\">{:.4}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            i + 1,
            esc(&gc(r)),
            esc(&p.pattern),
            gib(p.capacity_bytes),
            p.fill,
            p.op * 100.0,
            p.pages_per_block,
            p.write_buffer_pages,
            p.seed,
            p.writes,
            waf,
            r.cumulative_waf,
            r.greedy_model_waf,
            r.host_writes,
            r.flash_writes,
            r.erases
        );
    }
    s.push_str("</table>");
    s
}

/// The page of a sweep's document.
pub fn render(doc: &SimDoc) -> String {
    let runs = &doc.runs;
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>ssdiq sim: {} run{}</title><style>{CSS}</style></head><body>",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" }
    );
    let _ = write!(s, "<h1>Flash simulation: {} run{}</h1>", runs.len(), if runs.len() == 1 { "" } else { "s" });
    if doc.partial {
        s.push_str("<p class=\"partial\">Partial: some runs of the sweep are missing.</p>");
    }
    s.push_str(&table(runs));
    s.push_str("<p class=\"note\">WAF: flash page writes / host page writes over the final half of the workload writes (the sequential fill excluded). cum. WAF: over all workload writes. greedy model: greedy GC's mean-field WAF for uniform writes at the run's geometry.</p>");
    let mut traces: Vec<String> = Vec::new();
    for r in runs {
        if let Some(t) = &r.params.trace {
            let line = format!(
                "{} ({}{}): map {}, {} page writes per pass",
                t.file,
                t.format,
                t.device.as_deref().map(|d| format!(", device {d}")).unwrap_or_default(),
                t.map,
                t.pass_page_writes
            );
            if !traces.contains(&line) {
                traces.push(line);
            }
        }
    }
    for t in traces {
        let _ = write!(s, "<p class=\"note\">trace {}</p>", esc(&t));
    }
    let with_series: Vec<(usize, &SimRun)> = runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.series.len() >= 2)
        .collect();
    if !with_series.is_empty() {
        s.push_str("<h2>Running WAF over the workload</h2>");
    }
    for group in with_series.chunks(RUNS_PER_CHART) {
        let labels: Vec<String> = group.iter().map(|(i, r)| label(*i, r)).collect();
        let lines: Vec<Line> = group
            .iter()
            .zip(&labels)
            .map(|((_, r), l)| Line {
                label: l,
                points: r
                    .series
                    .iter()
                    .filter(|p| p.running_waf.is_finite())
                    .map(|p| (p.drive_writes, p.running_waf))
                    .collect(),
            })
            .collect();
        let title = format!(
            "runs {}-{}",
            group[0].0 + 1,
            group[group.len() - 1].0 + 1
        );
        s.push_str(&chart_div(line_chart(
            &LineChart {
                title: &title,
                x_label: "drive writes",
                y_label: "running WAF",
                lines,
                band: None,
                log_x: false,
            },
            620,
            340,
        )));
    }
    s.push_str("</body></html>\n");
    s
}
