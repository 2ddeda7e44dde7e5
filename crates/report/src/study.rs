//! A study's page (`study.html`: its charts in the report's vocabulary, its findings and the
//! points table) and its `points.csv` (one row per point, one column per value). Which charts
//! a study draws is the study's own (`StudyChart`, `StudyDots` in its catalogue entry).

use std::collections::BTreeSet;

use ssdiq_schema::{StudyChart, StudyDoc, StudyDots, StudyPoint};
use ssdiq_workload::units::format_size;

use crate::chart::{palette, Axis, Band, DotChart, DotRow, LineChart, Series, Stroke};
use crate::page::{simple_table, Page, Panel};

fn value_keys(points: &[StudyPoint]) -> Vec<String> {
    let keys: BTreeSet<&String> = points.iter().flat_map(|p| p.values.keys()).collect();
    keys.into_iter().cloned().collect()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `points.csv`: one row per point, one column per value.
pub fn csv(doc: &StudyDoc) -> String {
    let keys = value_keys(&doc.points);
    let mut s = String::from("series,x,x_label,target_s");
    for k in &keys {
        s.push(',');
        s.push_str(k);
    }
    s.push('\n');
    for p in &doc.points {
        s.push_str(&format!(
            "{},{},{},{:.6}",
            csv_field(&p.series),
            p.x,
            csv_field(&p.x_label),
            p.target_s
        ));
        for k in &keys {
            s.push(',');
            if let Some(v) = p.values.get(k) {
                s.push_str(&format!("{v}"));
            }
        }
        s.push('\n');
    }
    s
}

fn series_names(points: &[StudyPoint]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for p in points {
        if !out.contains(&p.series.as_str()) {
            out.push(&p.series);
        }
    }
    out
}

fn chart(doc: &StudyDoc, spec: &StudyChart) -> LineChart {
    let axis = |label: &str, log: bool| {
        if log {
            Axis::log(label)
        } else {
            Axis::linear(label)
        }
    };
    let mut c = LineChart::new(
        spec.title,
        axis(spec.x, spec.x_log),
        axis(spec.y, spec.y_log),
    );
    // In x order: a study may measure a series out of order (gc-unit confirms a size at twice
    // it before going on), and a line drawn in measuring order would double back.
    let points_of = |series: &str, key: &str| -> Vec<[f64; 2]> {
        let mut pts: Vec<[f64; 2]> = doc
            .points
            .iter()
            .filter(|p| p.series == series)
            .filter_map(|p| p.values.get(key).map(|v| [p.x, *v]))
            .collect();
        pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
        pts
    };
    if spec.title.contains("two-zone") || spec.x == "run" || spec.x == "round" {
        c.x = c.x.clone().not_from_zero();
    }
    if spec.metrics.len() == 1 {
        let (key, _) = spec.metrics[0];
        for (i, s) in series_names(&doc.points)
            .into_iter()
            .filter(|s| spec.only.is_none_or(|o| o == *s))
            .enumerate()
        {
            let pts = points_of(s, key);
            if !pts.is_empty() {
                c.series
                    .push(Series::new(s, palette::series(i), pts).markers());
            }
        }
    } else if let Some(s) = spec.only {
        let strokes = [Stroke::Thin, Stroke::Solid, Stroke::Dashed];
        for (i, (key, label)) in spec.metrics.iter().enumerate() {
            let pts = points_of(s, key);
            if !pts.is_empty() {
                c.series.push(
                    Series::new(*label, palette::series(i), pts)
                        .stroke(strokes[i % strokes.len()])
                        .markers(),
                );
            }
        }
    }
    // gc-unit: where the answer is, on the zone-size axis (MiB), and where the drive says
    // its unit is, when it says (an emulated drive's superblock), drawn wider beneath.
    if let Some(sb) = doc.target.gc_unit_bytes.filter(|_| doc.study == "gc-unit") {
        let mib = sb as f64 / (1u64 << 20) as f64;
        c.bands.push(Band {
            label: format!("the drive's superblock: {}", format_size(sb)),
            colour: palette::REFERENCE,
            from: mib - 0.6,
            to: mib + 0.6,
        });
    }
    if let Some(unit) = doc
        .result
        .get("gc_unit_bytes")
        .filter(|_| doc.study == "gc-unit")
    {
        let mib = unit / (1u64 << 20) as f64;
        c.bands.push(Band {
            label: format!("GC unit found: {}", format_size(*unit as u64)),
            colour: palette::STEADY,
            from: mib - 0.25,
            to: mib + 0.25,
        });
    }
    c
}

/// Studies whose points are tests, not a sweep: one row per test, one mark per series.
fn dot_charts(doc: &StudyDoc, charts: &[StudyDots]) -> Vec<Panel> {
    let mut out = Vec::new();
    for StudyDots {
        title,
        key,
        axis,
        caption,
    } in charts
    {
        // The points this chart shows: those with its value.
        let points: Vec<StudyPoint> = doc
            .points
            .iter()
            .filter(|p| p.values.contains_key(*key))
            .cloned()
            .collect();
        let series = series_names(&points);
        let mut c = DotChart::new(*title, Axis::log(*axis), &series);
        let mut tests: Vec<(&str, f64)> = Vec::new();
        for p in &points {
            if !tests.iter().any(|t| t.1 == p.x) {
                tests.push((&p.x_label, p.x));
            }
        }
        for (label, x) in tests {
            let values = series
                .iter()
                .map(|s| {
                    points
                        .iter()
                        .find(|p| p.series == *s && p.x == x)
                        .and_then(|p| p.values.get(*key).copied())
                })
                .collect();
            c.rows.push(DotRow {
                label: label.to_string(),
                // The marks tell the series apart; one colour keeps the rows calm.
                colour: palette::series(0),
                values,
                spread: Vec::new(),
            });
        }
        if c.has_data() {
            out.push(Panel::dots(&c, caption));
        }
    }
    out
}

/// A value key as a column header: `write_p99999_us` -> `write P99.999 [us]`.
fn in_words(key: &str) -> String {
    let (name, unit) = [
        ("_mb_s", "MB/s"),
        ("_kiops", "kIOPS"),
        ("_us", "us"),
        ("_iops", "IOPS"),
        ("_gib", "GiB"),
    ]
    .iter()
    .find_map(|(suffix, unit)| {
        let bare = key == &suffix[1..];
        let name = if bare {
            Some("")
        } else {
            key.strip_suffix(suffix)
        };
        name.map(|n| (n, Some(*unit)))
    })
    .unwrap_or((key, None));
    let words: Vec<String> = name
        .split('_')
        .map(|w| match w {
            "waf" => "WAF".to_string(),
            "p99" => "P99".to_string(),
            "p999" => "P99.9".to_string(),
            "p99999" => "P99.999".to_string(),
            "avg" => "avg".to_string(),
            other => other.to_string(),
        })
        .collect();
    let name = words.join(" ");
    match unit {
        Some(u) if name.is_empty() => u.to_string(),
        Some(u) => format!("{name} [{u}]"),
        None => name,
    }
}

fn number(v: f64) -> String {
    // Counts (open zones, streams, threads) are whole numbers: no decimals to read past.
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// The study's page: findings, its `charts` and `dots` drawn from its points, the method and
/// the points table.
pub fn html(doc: &StudyDoc, charts: &[StudyChart], dots: &[StudyDots]) -> String {
    let mut page = Page::new(
        // A target's overrides break after their commas, not off the page's edge.
        &format!(
            "ssdiq study {}: {}",
            doc.study,
            doc.target.name.replace(',', ", ")
        ),
        &format!(
            "{}. Source: {}.{}{}",
            doc.title,
            doc.source,
            if doc.quick {
                " Quick run: shortened, numbers rough."
            } else {
                ""
            },
            if doc.partial {
                " Partial: the study ended before its last point."
            } else {
                ""
            }
        ),
    );
    page.heading("findings", "Findings");
    let mut findings = doc.findings.clone();
    if let Some(e) = &doc.error {
        findings.push(format!("error: {e}"));
    }
    if findings.is_empty() {
        findings.push("no point was measured".into());
    }
    page.raw(&format!(
        "<ul>{}</ul>",
        findings
            .iter()
            .map(|f| format!("<li>{}</li>", crate::page::esc(f)))
            .collect::<String>()
    ));
    let mut figures: Vec<Panel> = charts
        .iter()
        .map(|s| (chart(doc, s), s.caption))
        .filter(|(c, _)| c.has_data())
        .map(|(c, cap)| Panel::line(&c, cap))
        .collect();
    figures.extend(dot_charts(doc, dots));
    if !figures.is_empty() {
        page.heading("charts", "Charts");
        page.grid(figures);
    }
    page.heading("method", "Method");
    page.para("", &doc.method);
    page.heading("points", "Points");
    // A table per series, each with the values its points have: one series' values (a
    // warm-up's WAF, a whole write's figures) leave no empty columns in another's rows.
    for series in series_names(&doc.points) {
        let pts: Vec<StudyPoint> = doc
            .points
            .iter()
            .filter(|p| p.series == series)
            .cloned()
            .collect();
        let keys = value_keys(&pts);
        let words: Vec<String> = keys.iter().map(|k| in_words(k)).collect();
        let mut header: Vec<&str> = vec!["series", "point"];
        header.extend(words.iter().map(String::as_str));
        header.push("drive time [s]");
        let rows: Vec<Vec<String>> = pts
            .iter()
            .map(|p| {
                let mut r = vec![p.series.clone(), p.x_label.clone()];
                r.extend(
                    keys.iter()
                        .map(|k| p.values.get(k).map(|v| number(*v)).unwrap_or_default()),
                );
                r.push(format!("{:.2}", p.target_s));
                r
            })
            .collect();
        // Studies with many values (latency-load has 14) scroll their table sideways on a
        // narrow screen instead of widening the page.
        page.raw(&format!(
            "<div style=\"overflow-x:auto\">{}</div>",
            simple_table("points", &header, &rows, 2)
        ));
    }
    page.finish(&format!(
        "seed {}; {} point{}; {:.1} s wall. Values: WAF = media bytes / host bytes as the drive counts them; MB/s decimal; latencies in microseconds; drive time: seconds each point took on the target's clock (virtual on an emulated drive, wall otherwise).",
        doc.seed,
        doc.points.len(),
        if doc.points.len() == 1 { "" } else { "s" },
        doc.wall_s
    ))
}

#[cfg(test)]
mod tests {
    use super::in_words;

    #[test]
    fn headers_in_words() {
        assert_eq!(in_words("write_p99999_us"), "write P99.999 [us]");
        assert_eq!(in_words("mb_s"), "MB/s");
        assert_eq!(in_words("waf"), "WAF");
        assert_eq!(in_words("read_probe_avg_us"), "read probe avg [us]");
        assert_eq!(in_words("zone_bytes"), "zone bytes");
        assert_eq!(in_words("written_gib"), "written [GiB]");
    }
}
