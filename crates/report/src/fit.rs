//! The page of `ssdiq fit --check --html`: a drive's figures beside its twin's, and the twin's
//! predictions for studies the drive's run did not include, drawn as predictions.

use ssdiq_schema::{figures as keys, CheckRow, FitCheckDoc};

use crate::chart::{palette, Area, Axis, LineChart, Series};
use crate::page::{simple_table, Page, Panel};

/// What a figure key means, for the table.
fn label(key: &str) -> String {
    // A level of a latency-load study, as the fit's check names it: "load_50%.write_p99_us".
    if let Some((load, metric)) = key.strip_prefix("load_").and_then(|k| k.split_once("%.")) {
        let what = match metric {
            "write_p99_us" => "write P99 [us]",
            "waf" => "WA",
            other => other,
        };
        return format!("{what} at {load}% write load (latency-load study)");
    }
    // A point of a skew study, as the fit's check names it: "skew_two-zone_95.waf".
    if let Some((series, x)) = key
        .strip_prefix("skew_")
        .and_then(|k| k.strip_suffix(".waf"))
        .and_then(|k| k.rsplit_once('_'))
    {
        let point = match (series, x.parse::<f64>()) {
            ("two-zone", Ok(hot)) => format!("two-zone {hot}/{}", 100.0 - hot),
            ("zipf", Ok(theta)) => format!("Zipf {theta}"),
            _ => format!("{series} {x}"),
        };
        return format!("WA, {point} (skew study)");
    }
    // Only the per-workload families carry a workload after a dot ("p99.9" is no workload).
    let (metric, workload) = [
        keys::RAND_WRITE_KIOPS,
        keys::WAF_MEASURED,
        keys::WAF_IMPLIED,
    ]
    .iter()
    .find_map(|m| Some((*m, key.strip_prefix(m)?.strip_prefix('.')?)))
    .unwrap_or((key, ""));
    let name = match metric {
        keys::SEQ_READ_MB_S => "sequential read [MB/s]",
        keys::SEQ_WRITE_MB_S => "sequential write [MB/s]",
        keys::SEQ_WRITE_FREE_POOL_MB_S => "sequential write, free pool [MB/s]",
        keys::RAND_READ_KIOPS => "random 4 KiB read [kIOPS]",
        keys::RAND_WRITE_KIOPS => "random 4 KiB write [kIOPS]",
        keys::READ_LAT_IDLE_US => "read latency, idle QD1 [us]",
        keys::READ_LAT_LOAD_AVG_US => "read latency under load, avg [us]",
        keys::READ_LAT_LOAD_P999_US => "read latency under load, P99.9 [us]",
        keys::WRITE_LAT_IDLE_US => "write latency, idle QD1 [us]",
        "rand_write_span_kiops.uniform" => {
            "random 4 KiB write, uniform, every interval of the reference window [kIOPS]"
        }
        "write_lat_idle_p50_us" => "write latency, idle QD1, median [us]",
        "write_lat_idle_p99.9_us" => "write latency, idle QD1, P99.9 [us]",
        keys::WRITE_LAT_LOAD_AVG_US => "write latency under load, avg [us]",
        keys::WRITE_LAT_LOAD_P999_US => "write latency under load, P99.9 [us]",
        keys::WRITE_BURST_FAST_MIB => "write burst after idle, before writes wait [MiB]",
        keys::INIT_WAF => "WA of the init on the fresh drive (SLC folds)",
        keys::INIT_MB_S => "sequential init on the fresh drive [MB/s]",
        keys::WAF_MEASURED => "WA, measured",
        keys::WAF_IMPLIED => "WA, implied",
        other => other,
    };
    match workload {
        "" => name.to_string(),
        "zipf_heavy" => format!("{name}, zipf 1.1 (heavy-skew pass, not in the paper)"),
        w => format!("{name}, {w}"),
    }
}

fn number(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The whole page.
pub fn page(doc: &FitCheckDoc) -> String {
    let mut p = Page::new(
        &format!("Twin check: {}", doc.drive),
        &format!(
            "the twin {} beside the drive's figures ({}), and what the twin predicts for workloads the drive did not run",
            doc.twin, doc.source
        ),
    );
    p.heading("measured", "The drive beside its twin");
    let rows: Vec<Vec<String>> = doc
        .rows
        .iter()
        .map(|r| {
            vec![
                label(&r.key),
                number(r.drive),
                r.twin.map(number).unwrap_or_else(|| "-".into()),
                r.residual
                    .map(|x| format!("{:+.1}%", x * 100.0))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    p.raw(&simple_table(
        "check",
        &["figure", "drive", "twin", "twin - drive"],
        &rows,
        1,
    ));
    p.para(
        "note",
        "The twin ran the whole SSD-iq protocol, as the drive did. Residuals of the figures the fit moved a parameter to meet are small by construction; the others (sequential write, the skewed workloads' throughput, latencies under load) test the model.",
    );
    if !doc.predictions.is_empty() {
        p.heading("predictions", "Predictions (not measured on the drive)");
        p.para(
            "note",
            "Each curve is the twin's alone: the drive never ran these workloads. Steady WA is over the third to sixth drive writes of 4 KiB random writes at QD 32 after a fill; the write P99 is of Poisson arrivals after steady uniform writes. A WA below 1 is the write buffer absorbing rewrites of the hottest pages before they reach the flash (as in study skew). The shaded range is where the prediction may lie over the plausible values of what the twin keeps from its base profile and a run cannot identify (docs/fit.md).",
        );
        let panels = doc
            .predictions
            .iter()
            .map(|pr| {
                let pts: Vec<[f64; 2]> = pr
                    .points
                    .iter()
                    .filter(|(_, y)| y.is_finite())
                    .map(|&(x, y)| [x, y])
                    .collect();
                let mut c = LineChart::new(
                    format!("{} (prediction)", pr.title),
                    Axis::linear(pr.x_axis.clone()).not_from_zero(),
                    Axis::linear(pr.y_axis.clone()),
                )
                .with(Series::new("twin (predicted)", palette::series(0), pts).markers());
                if !pr.range.is_empty() {
                    c.areas.push(Area {
                        label: "plausible range".into(),
                        colour: palette::series(0),
                        points: pr
                            .points
                            .iter()
                            .zip(&pr.range)
                            .filter(|(_, (lo, hi))| lo.is_finite() && hi.is_finite())
                            .map(|(&(x, _), &(lo, hi))| [x, lo, hi])
                            .collect(),
                    });
                }
                Panel::line(&c, &format!("study {}: {}", pr.study, range_note(pr)))
            })
            .collect();
        p.grid(panels);
    }
    p.finish("Written by ssdiq fit --check (docs/fit.md).")
}

/// Figures of the drive beside its twin's, a line each with the residual.
pub fn rows_text(rows: &[CheckRow]) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "  {:<30} {:>10} {:>10} {:>9}",
        "figure", "drive", "twin", "residual"
    );
    for r in rows {
        let twin = r.twin.map_or_else(|| "-".into(), |v| format!("{v:.2}"));
        let res = r
            .residual
            .map_or_else(|| "-".into(), |x| format!("{:+.1}%", x * 100.0));
        let _ = writeln!(t, "  {:<30} {:>10.2} {twin:>10} {res:>9}", r.key, r.drive);
    }
    t
}

/// The check as terminal text: every figure of the drive beside its twin's, with the
/// residual, then the twin's predictions.
pub fn check_text(doc: &FitCheckDoc) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(t, "{} beside its twin {}:", doc.drive, doc.twin);
    t.push_str(&rows_text(&doc.rows));
    t.push_str(&predictions_text(&doc.predictions));
    t
}

/// The twin's predictions as terminal text: each curve's points, and its range with the keys
/// it rests on.
pub fn predictions_text(predictions: &[ssdiq_schema::Prediction]) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(t, "the twin's predictions (not measured on the drive):");
    for p in predictions {
        let pts: Vec<String> = p
            .points
            .iter()
            .map(|(x, y)| {
                let x = crate::chart::axis::format_number(*x, 1);
                match y.is_finite() {
                    true => format!("{x}: {y:.2}"),
                    // A point the twin cannot run (half its OP leaves GC no spare).
                    false => format!("{x}: -"),
                }
            })
            .collect();
        let _ = writeln!(
            t,
            "  {} ({} -> {}): {}",
            p.title,
            p.x_axis,
            p.y_axis,
            pts.join(", ")
        );
        if !p.range.is_empty() {
            let r: Vec<String> = p
                .points
                .iter()
                .zip(&p.range)
                .map(|((x, _), (lo, hi))| {
                    format!(
                        "{}: {lo:.2}-{hi:.2}",
                        crate::chart::axis::format_number(*x, 1)
                    )
                })
                .collect();
            let _ = writeln!(t, "    range {}; {}", r.join(", "), range_note(p));
        }
    }
    t
}

/// What a prediction's range rests on, in words.
fn range_note(p: &ssdiq_schema::Prediction) -> String {
    if p.range.is_empty() {
        "the twin's prediction (no range measured)".into()
    } else if p.range_keys.is_empty() {
        "no key the twin keeps from its base moves it".into()
    } else {
        format!("the range rests on {}", p.range_keys.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdiq_schema::{CheckRow, Prediction};

    #[test]
    fn the_page_shows_every_row_and_marks_predictions() {
        let doc = FitCheckDoc {
            schema: ssdiq_schema::SCHEMA.into(),
            kind: "fit-check".into(),
            drive: "drive <x>".into(),
            source: "run.json".into(),
            twin: "t.toml".into(),
            rows: vec![CheckRow {
                key: "waf_measured.uniform".into(),
                drive: 4.2,
                twin: Some(4.0),
                residual: Some(-0.0476),
            }],
            predictions: vec![Prediction {
                study: "skew".into(),
                title: "WA under Zipf skew".into(),
                x_axis: "Zipf exponent".into(),
                y_axis: "WA".into(),
                points: vec![(0.6, 4.0), (1.2, 3.0)],
                range: vec![(3.5, 4.0), (1.5, 3.2)],
                range_keys: vec!["buffer.rewrite_window".into()],
            }],
        };
        let h = page(&doc);
        assert!(h.contains("drive &lt;x&gt;"));
        assert!(h.contains("WA, measured, uniform") && h.contains("-4.8%"));
        assert_eq!(
            label("read_lat_load_p99.9_us"),
            "read latency under load, P99.9 [us]"
        );
        assert_eq!(
            label("load_50%.write_p99_us"),
            "write P99 [us] at 50% write load (latency-load study)"
        );
        assert_eq!(
            label("load_5%.waf"),
            "WA at 5% write load (latency-load study)"
        );
        assert_eq!(
            label("skew_two-zone_95.waf"),
            "WA, two-zone 95/5 (skew study)"
        );
        assert_eq!(label("skew_zipf_1.2.waf"), "WA, Zipf 1.2 (skew study)");
        assert!(h.contains("WA under Zipf skew (prediction)") && h.contains("<svg"));
        assert!(h.contains("plausible range"));
        assert!(h.contains("the range rests on buffer.rewrite_window"));
        assert!(h.contains("<polygon"), "the range is drawn as an area");
        let mut doc = doc;
        doc.rows.push(CheckRow {
            key: "load_90%.write_p99_us".into(),
            drive: 50.0,
            twin: None,
            residual: None,
        });
        let t = check_text(&doc);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "drive <x> beside its twin t.toml:");
        assert!(lines[2].contains("waf_measured.uniform") && lines[2].ends_with("-4.8%"));
        assert!(lines[3].contains("50.00") && lines[3].trim_end().ends_with("-"));
        assert_eq!(
            lines[5],
            "  WA under Zipf skew (Zipf exponent -> WA): 0.6: 4.00, 1.2: 3.00"
        );
        assert_eq!(
            lines[6],
            "    range 0.6: 3.50-4.00, 1.2: 1.50-3.20; the range rests on buffer.rewrite_window"
        );
    }
}
