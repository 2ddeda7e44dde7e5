//! One self-contained HTML file: inline CSS, inline SVG, no scripts, no network at view time.

use std::fmt::Write;

use crate::chart::{line_chart, Line, LineChart};
use crate::colour::Colour;
use crate::model::{RunResult, StepResult};
use crate::table::{build_tables, Table};

pub(crate) const CSS: &str = "body{font-family:sans-serif;margin:2em;color:#222;max-width:1200px}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 8px}\
td.num{text-align:right}td.spec{background:#fff}td.meas{background:#eee}\
td.green{background:#b7e1b0}td.yellow{background:#f5e6a3}td.red{background:#f0aaa5}\
.note{font-size:85%;color:#555}.chart{display:inline-block;margin:4px}.partial{color:#b00}";

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn html_table(t: &Table) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<h2>{}</h2><table><tr><th>Metric</th><th></th>",
        esc(&t.title)
    );
    for c in &t.columns {
        let _ = write!(s, "<th>{}</th>", esc(c));
    }
    s.push_str("</tr>");
    for r in &t.rows {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td>",
            esc(&r.metric),
            esc(&r.variant)
        );
        for c in &r.cells {
            let class = match c.colour {
                Some(Colour::Green) => "green",
                Some(Colour::Yellow) => "yellow",
                Some(Colour::Red) => "red",
                None if c.spec => "spec",
                None => "meas",
            };
            let _ = write!(s, "<td class=\"num {class}\">{}</td>", esc(&c.text));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    for n in &t.notes {
        let _ = write!(s, "<p class=\"note\">{}</p>", esc(n));
    }
    s
}

pub(crate) fn chart_div(svg: Option<String>) -> String {
    svg.map(|s| format!("<div class=\"chart\">{s}</div>"))
        .unwrap_or_default()
}

/// Throughput over time: one point per round, or per second when the step ran a single round
/// (latency under load), since one point draws no line.
fn throughput_points(step: &StepResult) -> Vec<(f64, f64)> {
    if step.series.len() >= 2 {
        return step.series.iter().map(|p| (p.t_s, p.mb_s)).collect();
    }
    let mut per_second: std::collections::BTreeMap<u64, (f64, f64)> = Default::default();
    for p in step
        .seconds
        .iter()
        .filter(|p| !p.stream.starts_with("probe"))
    {
        let e = per_second.entry(p.t_s.to_bits()).or_insert((p.t_s, 0.0));
        e.1 += p.mb_s;
    }
    let mut pts: Vec<(f64, f64)> = per_second.into_values().collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    if pts.len() >= 2 {
        pts
    } else {
        step.series.iter().map(|p| (p.t_s, p.mb_s)).collect()
    }
}

/// The charts of one result: throughput and WAF over time per step, probe latency CDFs.
fn charts(r: &RunResult) -> String {
    let mut s = String::new();
    for step in &r.steps {
        if step.series.is_empty() {
            continue;
        }
        let band = step.convergence.as_ref().and_then(|c| {
            let first = c.window_first? as usize;
            let a = step.series.get(first)?.t_s;
            let b = step.series.get((first + 4).min(step.series.len() - 1))?.t_s;
            Some((a, b))
        });
        let title = format!("{}: throughput", step.name);
        s.push_str(&chart_div(line_chart(
            &LineChart {
                title: &title,
                x_label: "time [s]",
                y_label: "MB/s",
                lines: vec![Line {
                    label: &step.pattern,
                    points: throughput_points(step),
                }],
                band,
                log_x: false,
            },
            560,
            300,
        )));
        let waf: Vec<(f64, f64)> = step
            .series
            .iter()
            .filter_map(|p| Some((p.t_s, p.waf?)))
            .collect();
        if waf.len() >= 2 {
            let title = format!("{}: WAF", step.name);
            s.push_str(&chart_div(line_chart(
                &LineChart {
                    title: &title,
                    x_label: "time [s]",
                    y_label: "WAF",
                    lines: vec![Line {
                        label: "media / host writes",
                        points: waf,
                    }],
                    band,
                    log_x: false,
                },
                560,
                300,
            )));
        }
    }
    for step in r.steps.iter().filter(|s| !s.probes.is_empty()) {
        let lines: Vec<Line> = step
            .probes
            .iter()
            .filter(|(_, o)| !o.cdf.is_empty())
            .map(|(name, o)| Line {
                label: name,
                points: o.cdf.iter().map(|c| (c.ns as f64 / 1e3, c.p)).collect(),
            })
            .collect();
        let title = format!("{}: probe latency CDF", step.name);
        s.push_str(&chart_div(line_chart(
            &LineChart {
                title: &title,
                x_label: "latency [us] (log)",
                y_label: "percentile",
                lines,
                band: None,
                log_x: true,
            },
            560,
            300,
        )));
    }
    s
}

/// A report for one or several drives (several: the tables put them side by side).
pub fn render(results: &[&RunResult]) -> String {
    let (t2, t3) = build_tables(results);
    let names: Vec<String> = results.iter().map(|r| r.target.name.clone()).collect();
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>ssdiq: {}</title><style>{CSS}</style></head><body>",
        esc(&names.join(" vs "))
    );
    let _ = write!(s, "<h1>SSD-iq report: {}</h1>", esc(&names.join(", ")));
    for r in results.iter().filter(|r| r.partial) {
        let _ = write!(
            s,
            "<p class=\"partial\">{}: partial result (the run was interrupted).</p>",
            esc(&r.target.name)
        );
    }
    s.push_str(&html_table(&t2));
    s.push_str(&html_table(&t3));
    for r in results {
        let clock = if r.clock == "virtual" {
            " (emulated drive, virtual time)"
        } else {
            ""
        };
        let _ = write!(s, "<h2>{}{}</h2>", esc(&r.target.name), clock);
        s.push_str(&charts(r));
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;

    #[test]
    fn self_contained_with_tables_and_charts() {
        let mut r = RunResult {
            schema: SCHEMA.into(),
            kind: "run".into(),
            target: TargetInfo {
                name: "emu:<test>".into(),
                capacity_bytes: 1 << 30,
                ..Default::default()
            },
            clock: "virtual".into(),
            ..Default::default()
        };
        let mut step = StepResult {
            name: steps::RAND_WRITE_UNIFORM.into(),
            pattern: "uniform".into(),
            ..Default::default()
        };
        step.series = (0..20)
            .map(|i| SeriesPoint {
                t_s: i as f64,
                mb_s: 300.0,
                iops: 0.0,
                waf: Some(4.0),
            })
            .collect();
        step.convergence = Some(Convergence {
            converged: true,
            rounds: 20,
            window_first: Some(3),
            drive_writes: 1.0,
        });
        r.steps.push(step);
        let mut lat = StepResult {
            name: steps::LATENCY_UNDER_LOAD.into(),
            ..Default::default()
        };
        lat.probes.insert(
            "read".into(),
            OpSummary {
                cdf: vec![
                    CdfPoint {
                        p: 50.0,
                        ns: 60_000,
                    },
                    CdfPoint {
                        p: 99.9,
                        ns: 480_000,
                    },
                ],
                ..Default::default()
            },
        );
        r.steps.push(lat);
        let html = render(&[&r]);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("emu:&lt;test&gt;"), "names are escaped");
        assert_eq!(
            html.matches("<svg").count(),
            3,
            "throughput, WAF and CDF charts"
        );
        assert!(html.contains("Table 2") && html.contains("Table 3"));
        assert!(!html.contains("<script"));
        // The only URLs are SVG namespace identifiers, which are never fetched.
        assert_eq!(
            html.matches("http").count(),
            html.matches("http://www.w3.org/").count()
        );
    }
}
