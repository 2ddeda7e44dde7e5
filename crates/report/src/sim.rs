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

fn capacity(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.2} MiB", b as f64 / (1u64 << 20) as f64)
    }
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
            capacity(p.capacity_bytes),
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
    let _ = write!(
        s,
        "<h1>Flash simulation: {} run{}</h1>",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" }
    );
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
                t.device
                    .as_deref()
                    .map(|d| format!(", device {d}"))
                    .unwrap_or_default(),
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
        let title = format!("runs {}-{}", group[0].0 + 1, group[group.len() - 1].0 + 1);
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

#[cfg(test)]
mod tests {
    use super::*;
    use ssdiq_schema::{SimParams, SimSeriesPoint};

    fn run(gc: &str, pattern: &str, waf: f64) -> SimRun {
        SimRun {
            params: SimParams {
                capacity_bytes: 64 << 20,
                logical_bytes: 56 << 20,
                page_bytes: 4096,
                block_bytes: 128 << 10,
                pages_per_block: 32,
                blocks: 512,
                logical_pages: 14336,
                reserve_blocks: 2,
                fill: 0.875,
                op: 1.0 / 7.0,
                spare_factor: 0.125,
                gc: gc.into(),
                gc_frontier: gc.starts_with("2r-"),
                pattern: pattern.into(),
                writes: 2.0,
                seed: 1,
                write_buffer_pages: 0,
                trace: None,
            },
            method: "simulated".into(),
            waf,
            cumulative_waf: waf,
            host_writes: 28672,
            flash_writes: 100_000,
            erases: 3000,
            gc_relocations: 70_000,
            buffer_hits: 0,
            trims: 0,
            mean_victim_valid: Some(24.0),
            greedy_model_waf: 3.88,
            seconds: 0.25,
            series: (1..=20)
                .map(|i| SimSeriesPoint {
                    drive_writes: i as f64 / 10.0,
                    host_writes: i * 1433,
                    flash_writes: i * 5000,
                    running_waf: waf,
                    cumulative_waf: waf,
                })
                .collect(),
        }
    }

    #[test]
    fn table_and_one_chart_per_six_runs_and_no_timings() {
        let runs: Vec<SimRun> = (0..7)
            .map(|i| {
                run(
                    if i % 2 == 0 { "greedy" } else { "2r-fifo" },
                    "<zipf:0.9>",
                    3.0 + i as f64,
                )
            })
            .collect();
        let doc = SimDoc {
            schema: "ssdiq/1".into(),
            kind: "sim".into(),
            runs,
            partial: true,
        };
        let html = render(&doc);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert_eq!(html.matches("<tr>").count(), 1 + 7);
        assert_eq!(html.matches("<svg").count(), 2, "runs 1-6 and 7");
        assert!(html.contains("&lt;zipf:0.9&gt;"), "escaped");
        assert!(html.contains("64.00 MiB"));
        assert!(html.contains("Partial"));
        assert!(
            !html.contains("0.25"),
            "no run times: merged sweeps render identically"
        );
        assert!(!html.contains("<script"));
    }
}
