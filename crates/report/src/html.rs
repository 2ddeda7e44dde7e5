//! One self-contained HTML file: inline CSS, inline SVG, no scripts, no network at view time.

use std::fmt::Write;

use crate::chart::{line_chart, Line, LineChart};
use crate::colour::Colour;
use crate::model::{RunResult, StepResult};
use crate::table::{build_tables, Table};

const CSS: &str = "body{font-family:sans-serif;margin:2em;color:#222;max-width:1200px}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 8px}\
td.num{text-align:right}td.spec{background:#fff}td.meas{background:#eee}\
td.green{background:#b7e1b0}td.yellow{background:#f5e6a3}td.red{background:#f0aaa5}\
.note{font-size:85%;color:#555}.chart{display:inline-block;margin:4px}.partial{color:#b00}";

fn esc(s: &str) -> String {
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

fn chart_div(svg: Option<String>) -> String {
    svg.map(|s| format!("<div class=\"chart\">{s}</div>"))
        .unwrap_or_default()
}

/// Throughput over time: the main load's per-interval throughput (whole intervals only: a
/// partial one would plot as a fake dip), else one point per round.
fn throughput_points(step: &StepResult) -> Vec<(f64, f64)> {
    let mut per: std::collections::BTreeMap<u64, (f64, f64)> = Default::default();
    for p in step
        .seconds
        .iter()
        .filter(|p| !p.stream.starts_with("probe") && !p.partial)
    {
        let e = per.entry(p.t_s.to_bits()).or_insert((p.t_s, 0.0));
        e.1 += p.mb_s;
    }
    let mut pts: Vec<(f64, f64)> = per.into_values().collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    if pts.len() >= 2 {
        pts
    } else {
        step.series.iter().map(|p| (p.t_s, p.mb_s)).collect()
    }
}

fn title_of(step: &StepResult) -> String {
    let mut t = step.name.clone();
    if let Some(p) = step.pass {
        t = format!("pass {p}: {t}");
    }
    if let Some(r) = step.repetition.filter(|&r| r > 1) {
        t = format!("rep {r} {t}");
    }
    t
}

fn chart(
    title: &str,
    x: &str,
    y: &str,
    lines: Vec<Line>,
    band: Option<(f64, f64)>,
    log_x: bool,
) -> String {
    chart_div(line_chart(
        &LineChart {
            title,
            x_label: x,
            y_label: y,
            lines,
            band,
            log_x,
        },
        560,
        300,
    ))
}

/// The charts of one result: throughput and WAF of the write workloads with the steady
/// window marked, latency under load (throughput, probe latency per interval, CDF), and the
/// device log.
fn charts(r: &RunResult) -> String {
    let mut s = String::new();
    let legacy = r.steps.iter().all(|st| st.pass.is_none());
    for step in &r.steps {
        let workload = step.name.starts_with("rand_write") || (legacy && !step.series.is_empty());
        if !workload || step.series.is_empty() {
            continue;
        }
        // The steady window: from the end of the round before it to the end of its last round.
        let band = step.convergence.as_ref().and_then(|c| {
            let first = c.window_first? as usize;
            let a = if first == 0 {
                0.0
            } else {
                step.series.get(first - 1)?.t_s
            };
            let b = step.series.get((first + 4).min(step.series.len() - 1))?.t_s;
            Some((a, b))
        });
        let title = format!("{}: throughput", title_of(step));
        s.push_str(&chart(
            &title,
            "time [s]",
            "MB/s",
            vec![Line {
                label: &step.pattern,
                points: throughput_points(step),
            }],
            band,
            false,
        ));
        let waf: Vec<(f64, f64)> = step
            .series
            .iter()
            .filter_map(|p| Some((p.t_s, p.waf?)))
            .collect();
        if waf.len() >= 2 {
            let title = format!("{}: WAF per round", title_of(step));
            s.push_str(&chart(
                &title,
                "time [s]",
                "WAF",
                vec![Line {
                    label: "media / host writes",
                    points: waf,
                }],
                band,
                false,
            ));
        }
    }
    for step in r.steps.iter().filter(|s| !s.probes.is_empty()) {
        if !step.seconds.is_empty() {
            let title = format!("{}: background throughput", title_of(step));
            s.push_str(&chart(
                &title,
                "time [s]",
                "MB/s",
                vec![Line {
                    label: &step.rw,
                    points: throughput_points(step),
                }],
                None,
                false,
            ));
        }
        if step.probe_intervals.len() >= 2 {
            let series = |op: &str, f: fn(&crate::model::OpSummary) -> f64| -> Vec<(f64, f64)> {
                step.probe_intervals
                    .iter()
                    .filter(|p| !p.partial)
                    .filter_map(|p| Some((p.t_s, f(p.ops.get(op)?) / 1e3)))
                    .collect()
            };
            let lines = vec![
                Line {
                    label: "read P99.9",
                    points: series("read", |o| o.lat_ns.p99_9 as f64),
                },
                Line {
                    label: "write P99.9",
                    points: series("write", |o| o.lat_ns.p99_9 as f64),
                },
                Line {
                    label: "read avg",
                    points: series("read", |o| o.lat_ns.mean),
                },
                Line {
                    label: "write avg",
                    points: series("write", |o| o.lat_ns.mean),
                },
            ];
            let title = format!("{}: probe latency per interval", title_of(step));
            s.push_str(&chart(&title, "time [s]", "us", lines, None, false));
        }
        let lines: Vec<Line> = step
            .probes
            .iter()
            .filter(|(_, o)| !o.cdf.is_empty())
            .map(|(name, o)| Line {
                label: name,
                points: o.cdf.iter().map(|c| (c.ns as f64 / 1e3, c.p)).collect(),
            })
            .collect();
        let title = format!("{}: probe latency CDF", title_of(step));
        s.push_str(&chart(
            &title,
            "latency [us] (log)",
            "percentile",
            lines,
            None,
            true,
        ));
    }
    s.push_str(&device_charts(r));
    s
}

/// Every step of the run with its value, collapsed: the numbers behind the tables.
fn steps_table(r: &RunResult) -> String {
    if r.steps.iter().all(|s| s.value.is_none()) {
        return String::new();
    }
    let f = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |x| format!("{x:.d$}"));
    let mut s = String::from(
        "<details><summary>Steps (values by the reference rule)</summary><table><tr><th>pass</th><th>step</th><th>stage</th><th>threads x qd</th><th>s</th><th>MB/s</th><th>k IOPS</th><th>probe avg / P99.9 [us]</th><th>WA meas.</th><th>WA impl.</th><th>steady</th></tr>",
    );
    for st in &r.steps {
        let v = st.value.as_ref();
        let probes: Vec<String> = v
            .map(|v| {
                v.probes
                    .iter()
                    .map(|(op, p)| format!("{op} {:.0} / {:.0}", p.mean_ns / 1e3, p.p99_9_ns / 1e3))
                    .collect()
            })
            .unwrap_or_default();
        let steady = match &st.convergence {
            Some(c) if c.within_reference == Some(true) => {
                format!("yes ({:.2} DW)", c.drive_writes)
            }
            Some(c) if c.converged => format!("extended ({:.2} DW)", c.drive_writes),
            Some(_) => "no".into(),
            None => "-".into(),
        };
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{} x {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            st.pass.map(|p| p.to_string()).unwrap_or_default(),
            esc(&st.name),
            esc(st.stage.as_deref().unwrap_or("")),
            st.threads,
            st.qd,
            f(st.elapsed_s, 1),
            f(v.and_then(|v| v.mb_s), 0),
            f(v.and_then(|v| v.iops).map(|i| i / 1e3), 1),
            esc(&probes.join(", ")),
            f(st.waf_measured, 2),
            f(st.waf_implied, 2),
            steady
        );
    }
    s.push_str("</table></details>");
    s
}

/// The device log over the run: WAF (per sample and since the pass's reset), free blocks,
/// temperature and erase counts, each where the drive reports it.
fn device_charts(r: &RunResult) -> String {
    let log = &r.device_log;
    if log.len() < 2 {
        return String::new();
    }
    let pts = |f: &dyn Fn(&crate::model::DeviceLogPoint) -> Option<f64>| -> Vec<(f64, f64)> {
        log.iter().filter_map(|p| Some((p.t_s, f(p)?))).collect()
    };
    let mut s = String::from("<h3>Device log</h3>");
    let wafs = [
        Line {
            label: "per sample",
            points: pts(&|p| p.waf.filter(|w| *w < 50.0)),
        },
        Line {
            label: "since the pass's reset",
            points: pts(&|p| p.waf_since_reset),
        },
    ];
    let lines: Vec<Line> = wafs.into_iter().filter(|l| l.points.len() >= 2).collect();
    if !lines.is_empty() {
        s.push_str(&chart(
            "WAF over time (media / host writes)",
            "run time [s]",
            "WAF",
            lines,
            None,
            false,
        ));
    }
    for (title, y, line, f) in [
        (
            "Free blocks",
            "%",
            "free blocks",
            (|p: &crate::model::DeviceLogPoint| p.free_blocks_pct)
                as fn(&crate::model::DeviceLogPoint) -> Option<f64>,
        ),
        ("Temperature", "C", "composite", |p| p.temperature_c),
        ("Throttling status", "status", "OCP throttling", |p| {
            p.throttling.map(f64::from)
        }),
        ("Erase count (mean per block)", "erases", "mean", |p| {
            p.erase_count_avg
        }),
        ("Erase count (max per block)", "erases", "max", |p| {
            p.erase_count_max.map(|x| x as f64)
        }),
    ] {
        let points = pts(&f);
        if points.len() >= 2 {
            s.push_str(&chart(
                title,
                "run time [s]",
                y,
                vec![Line {
                    label: line,
                    points,
                }],
                None,
                false,
            ));
        }
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
        for line in [&r.derived.load_basis, &r.derived.implied_basis]
            .into_iter()
            .flatten()
        {
            let _ = write!(s, "<p class=\"note\">{}</p>", esc(line));
        }
        s.push_str(&steps_table(r));
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
            ..Default::default()
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
