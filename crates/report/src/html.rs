//! The SSD-iq report as one self-contained HTML page: how each drive was measured, Tables 2
//! and 3 side by side with what each metric means, the latency-under-load distribution and
//! its course over time, drives compared (measured and published), random writes over time,
//! the per-step numbers. Charts are built by [`crate::run_charts`] and drawn by `crate::chart`.

use std::fmt::Write;

use serde::Serialize;

use crate::chart::{DotChart, LineChart};
use crate::colour::Colour;
use crate::facts::{run_facts, step_rows, STEP_HEADER};
use crate::figures::DriveFigures;
use crate::model::{steps, RunResult};
use crate::page::{esc, simple_table, Page, Panel};
use crate::paper::Reference;
use crate::run_charts::{self, compare, device, latency, steps as step_charts, Drive};
use crate::table::{tables, Table};

/// A chart of the report with the caption that explains it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Chart {
    Line { chart: LineChart, caption: String },
    Dots { chart: DotChart, caption: String },
}

impl Chart {
    fn figure(&self) -> Panel {
        match self {
            Chart::Line { chart, caption } => Panel::line(chart, caption),
            Chart::Dots { chart, caption } => Panel::dots(chart, caption),
        }
    }

    fn has_data(&self) -> bool {
        match self {
            Chart::Line { chart, .. } => chart.has_data(),
            Chart::Dots { chart, .. } => chart.has_data(),
        }
    }
}

/// A titled group of charts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    pub id: &'static str,
    pub title: String,
    pub intro: String,
    pub charts: Vec<Chart>,
}

fn line(chart: LineChart, caption: &str) -> Chart {
    Chart::Line {
        chart,
        caption: caption.into(),
    }
}

/// The measured drives' figures (named as on the charts) followed by the reference's.
pub fn all_figures(drives: &[Drive], reference: Option<&Reference>) -> Vec<DriveFigures> {
    let mut figs: Vec<DriveFigures> = drives
        .iter()
        .map(|d| DriveFigures {
            name: d.name.clone(),
            ..DriveFigures::from_run(d.run)
        })
        .collect();
    if let Some(r) = reference {
        figs.extend(r.drives.iter().cloned());
    }
    figs
}

/// Every chart of the report, in page order: what golden tests pin.
pub fn chart_sections(results: &[&RunResult], reference: Option<&Reference>) -> Vec<Section> {
    let drives = run_charts::drives(results);
    let figs = all_figures(&drives, reference);
    let names: Vec<String> = figs.iter().map(|f| f.name.clone()).collect();
    let mut out = Vec::new();

    let mut lat = Vec::new();
    for probe in ["read", "write"] {
        lat.push(line(
            latency::tail(&drives, probe),
            &format!("The whole latency distribution of the {probe} probe, from its histogram, one line per drive. The x axis counts nines (90, 99, 99.9, ...), so the tail gets as much room as the median; a line ends at the slowest I/O. Lower is better; a line that turns up at the right is a tail."),
        ));
    }
    for probe in ["read", "write"] {
        lat.push(line(
            latency::over_time(&drives, probe),
            &format!("P99.9 (dashed), P99 (thick) and mean (thin) of the {probe} probe in each interval of the step (60 s in the reference; per second for results without probe intervals). Spikes are stalls (garbage collection, a full write buffer); a gap is an interval in which no probe completed. Where the mean and P99 coincide (nearly every I/O took the same time), one line shows both."),
        ));
    }
    out.push(Section {
        id: "latency",
        title: "Latency under load".into(),
        intro: "Random writes run at a fixed fraction of the drive's random-write rate (Poisson arrivals) while a read and a write probe issue I/Os at fixed intervals, open loop: each latency is timed from when the I/O was due, so a stall counts for every I/O it delays. Datasheets quote idle latency; this is what a database sees while the drive is busy.".into(),
        charts: lat,
    });

    let mut cmp: Vec<Chart> = Vec::new();
    for c in compare::charts(&figs, &names) {
        let caption = if c.zones.is_empty() {
            "One row per drive; a line joins a drive's marks.".to_string()
        } else {
            "One row per drive. The background is the paper's colour rule for this figure (green good, yellow acceptable, red bad).".to_string()
        };
        cmp.push(Chart::Dots { chart: c, caption });
    }
    if !cmp.is_empty() {
        out.push(Section {
            id: "compare",
            title: "Drives compared".into(),
            intro: if reference.is_some() {
                "The figures of Tables 2 and 3 side by side: measured drives in their colour, the paper's published drives in grey.".into()
            } else {
                "The figures of Tables 2 and 3 side by side, one colour per drive.".into()
            },
            charts: cmp,
        });
    }

    let mut writes = Vec::new();
    for (name, what) in [
        (steps::RAND_WRITE_UNIFORM, "uniform"),
        (steps::RAND_WRITE_TWOZONE, "two-zone 80/20"),
        (steps::RAND_WRITE_ZIPF, "Zipf 0.8"),
    ] {
        writes.push(line(
            step_charts::throughput(&drives, name, &format!("Random writes, {what}: throughput")),
            "Thin: MB/s in each second; dots: each measurement round, the input of steady-state detection. The table reports the steady window (shaded for one drive).",
        ));
        writes.push(line(
            step_charts::waf(&drives, name, &format!("Random writes, {what}: write amplification")),
            "Media writes / host writes of each round, from the drive's counters. It rises while garbage collection starts, then settles at a level set by over-provisioning and the GC policy; skewed writes should lower it.",
        ));
    }
    out.push(Section {
        id: "writes",
        title: "Random writes over time".into(),
        intro: "4 KiB random writes after a reset and sequential init, for the reference's drive writes; dots are the 30 rounds of the steady-state detector.".into(),
        charts: writes,
    });

    let dev: Vec<Chart> = device::charts(&drives)
        .into_iter()
        .map(|(c, caption)| line(c, caption))
        .collect();
    out.push(Section {
        id: "device",
        title: "Device log".into(),
        intro: "What the drive said about itself through the run (device.csv): every phase, idle pauses included.".into(),
        charts: dev,
    });

    let mut other = Vec::new();
    for (name, what) in [
        (steps::SEQ_READ, "Sequential reads"),
        (steps::RAND_READ, "Random reads"),
        (steps::SEQ_WRITE, "Sequential writes"),
        (
            steps::LATENCY_UNDER_LOAD,
            "Latency under load: background writes",
        ),
    ] {
        other.push(line(
            step_charts::throughput(&drives, name, &format!("{what}: throughput")),
            "MB/s per second (thin) and per round (dots, where the step ran several). A step the protocol runs before and after each write workload shows every run, end to end; the table's median and range come from all of them. A sequential-write line that drops shows a write cache running out.",
        ));
    }
    out.push(Section {
        id: "other",
        title: "Sequential and read steps".into(),
        intro: String::new(),
        charts: other,
    });
    for s in &mut out {
        s.charts.retain(Chart::has_data);
        for c in &mut s.charts {
            if let Chart::Line { chart, .. } = c {
                run_charts::mark_drives(chart, &drives);
            }
        }
    }
    out.retain(|s| !s.charts.is_empty());
    out
}

fn cell_class(colour: Option<Colour>, spec: bool) -> &'static str {
    match colour {
        Some(Colour::Green) => "green",
        Some(Colour::Yellow) => "yellow",
        Some(Colour::Red) => "red",
        None if spec => "spec",
        None => "meas",
    }
}

/// A drive name for a narrow column header: it may break after `:` and `,` (`emu:` /
/// `nosuspend`), not only at spaces.
fn breakable(name: &str) -> String {
    esc(name).replace(':', ":<wbr>").replace(',', ",<wbr>")
}

fn swatch(hex: &str) -> String {
    format!("<span class=\"sw\" style=\"background:{hex}\"></span>")
}

/// Table 2 or 3 with metric explanations beside the metrics and a header that groups
/// measured and published drives.
fn html_table(t: &Table, colours: &[String]) -> String {
    let mut s = String::new();
    // Many drives (a comparison with published drives): a compact table that fits a laptop.
    let wide = if t.columns.len() > 2 {
        " class=\"wide\""
    } else {
        ""
    };
    let _ = write!(s, "<div><h3>{}</h3><table{wide}>", esc(&t.title));
    let measured = t.columns.iter().filter(|c| !c.published).count();
    let published = t.columns.len() - measured;
    if published > 0 {
        let _ = write!(
            s,
            "<tr><th colspan=\"2\"></th>{}<th class=\"pub\" colspan=\"{published}\">published *</th></tr>",
            if measured > 0 {
                format!("<th colspan=\"{measured}\">measured</th>")
            } else {
                String::new()
            }
        );
    }
    s.push_str("<tr><th>Metric</th><th></th>");
    for c in &t.columns {
        match c.measured_index {
            Some(i) => {
                let _ = write!(s, "<th>{}{}</th>", swatch(&colours[i]), breakable(&c.name));
            }
            None => {
                let _ = write!(s, "<th class=\"pub\">{}</th>", breakable(&c.name));
            }
        }
    }
    s.push_str("</tr>");
    for (i, r) in t.rows.iter().enumerate() {
        s.push_str("<tr>");
        if !r.metric.is_empty() {
            let span = 1 + t.rows[i + 1..]
                .iter()
                .take_while(|x| x.metric.is_empty())
                .count();
            let _ = write!(
                s,
                "<td class=\"metric\" rowspan=\"{span}\">{}{}</td>",
                esc(&r.metric),
                if r.help.is_empty() {
                    String::new()
                } else {
                    format!("<div class=\"help\">{}</div>", esc(&r.help))
                }
            );
        }
        let _ = write!(s, "<td>{}</td>", esc(&r.variant));
        for (c, col) in r.cells.iter().zip(&t.columns) {
            let diff = c
                .diff
                .as_ref()
                .map(|d| {
                    let big = d.starts_with('×');
                    format!(
                        "<span class=\"diff{}\">{}</span>",
                        if big { " big" } else { "" },
                        esc(d)
                    )
                })
                .unwrap_or_default();
            let _ = write!(
                s,
                "<td class=\"num {}{}\">{}{diff}</td>",
                cell_class(c.colour, c.spec),
                if col.published { " pub" } else { "" },
                cell_text(&c.text)
            );
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    for n in &t.notes {
        let _ = write!(s, "<p class=\"note\">{}</p>", esc(n));
    }
    s.push_str("</div>");
    s
}

/// A cell's text, which a narrow column may wrap only before a `[min-max]` range, never
/// inside a number or a range.
fn cell_text(text: &str) -> String {
    match text.split_once(" [") {
        Some((value, range)) => format!(
            "<span class=\"nb\">{}</span> <span class=\"nb\">[{}</span>",
            esc(value),
            esc(range)
        ),
        None => esc(text),
    }
}

/// How each drive was measured: one column per measured drive.
fn facts_table(drives: &[Drive], colours: &[String]) -> String {
    let facts: Vec<_> = drives.iter().map(|d| run_facts(d.run)).collect();
    let mut keys: Vec<&str> = Vec::new();
    for f in facts.iter().flatten() {
        if !keys.contains(&f.key) {
            keys.push(f.key);
        }
    }
    let mut s = String::from("<table class=\"facts\">");
    if drives.len() > 1 {
        s.push_str("<tr><th></th>");
        for (d, c) in drives.iter().zip(colours) {
            let _ = write!(s, "<th>{}{}</th>", swatch(c), esc(&d.name));
        }
        s.push_str("</tr>");
    }
    for k in keys {
        let _ = write!(s, "<tr><td>{}</td>", esc(k));
        for f in &facts {
            let v = f
                .iter()
                .find(|f| f.key == k)
                .map_or("-", |f| f.value.as_str());
            let _ = write!(s, "<td>{}</td>", esc(v));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    s
}

/// A report for one or several drives (several: side by side and overlaid).
pub fn render(results: &[&RunResult]) -> String {
    render_against(results, None)
}

/// A report with a published reference (`--against`) beside the measured drives.
pub fn render_against(results: &[&RunResult], reference: Option<&Reference>) -> String {
    let drives = run_charts::drives(results);
    let colours: Vec<String> = drives.iter().map(|d| d.colour.hex()).collect();
    let names: Vec<String> = drives.iter().map(|d| d.name.clone()).collect();
    let title = match (names.len(), reference) {
        (1, None) => format!("SSD-iq report: {}", names[0]),
        (_, None) => format!("SSD-iq comparison: {}", names.join(", ")),
        (_, Some(r)) => format!(
            "SSD-iq: {} against the {}",
            names.join(", "),
            r.short_source
        ),
    };
    let clocks: Vec<&str> = results
        .iter()
        .map(|r| {
            if r.clock == "virtual" {
                "emulated drive, virtual time"
            } else {
                "real target, wall-clock time"
            }
        })
        .collect();
    let mut sub = format!("Measured with ssdiq ({})", {
        let mut c = clocks.clone();
        c.dedup();
        c.join("; ")
    });
    if let Some(r) = reference {
        sub.push_str(&format!(
            "; published figures of {} drives from the {}.",
            r.drives.len(),
            r.short_source
        ));
    } else {
        sub.push('.');
    }
    let mut page = Page::new(&title, &sub);
    let mut key: Vec<(String, String)> =
        names.iter().cloned().zip(colours.iter().cloned()).collect();
    if let Some(r) = reference {
        key.push((
            format!("{} drives (published)", r.short_source),
            crate::chart::palette::REFERENCE.hex(),
        ));
    }
    if key.len() > 1 {
        page.key(&key);
    }
    for d in drives.iter().filter(|d| d.run.partial) {
        page.para(
            "warn",
            &format!(
                "{}: partial result ({}); the steps after it are missing.",
                d.name,
                d.run
                    .run
                    .as_ref()
                    .and_then(|i| i.error.as_deref())
                    .unwrap_or("the run was stopped")
            ),
        );
    }

    page.heading("runs", "How each drive was measured");
    page.raw(&facts_table(&drives, &colours));

    page.heading("tables", "Tables 2 and 3");
    page.para(
        "note",
        "The metrics of the SSD-iq paper: the datasheet's four throughput figures measured (grey) beside the spec (white), throughput under skewed writes, latency under load, write amplification and the over-provisioning it implies. Colours follow the paper's rules, stated under each table.",
    );
    let figs = all_figures(&drives, reference);
    let (t2, t3) = tables(&figs);
    page.raw("<div class=\"tables\">");
    page.raw(&html_table(&t2, &colours));
    page.raw(&html_table(&t3, &colours));
    page.raw("</div>");

    for s in chart_sections(results, reference) {
        page.heading(s.id, &s.title);
        if !s.intro.is_empty() {
            page.para("note", &s.intro);
        }
        page.grid(s.charts.iter().map(Chart::figure).collect());
    }

    page.heading("steps", "Steps");
    for (d, c) in drives.iter().zip(&colours) {
        let rows: Vec<Vec<String>> = step_rows(d.run).into_iter().map(|r| r.to_vec()).collect();
        let table = simple_table("steps", &STEP_HEADER, &rows, 3);
        if drives.len() > 1 || reference.is_some() {
            // One drive's steps are dozens of rows: folded, so a comparison stays readable.
            page.raw(&format!(
                "<details><summary>{}{}: {} steps</summary>{table}</details>",
                swatch(c),
                esc(&d.name),
                rows.len()
            ));
        } else {
            page.raw(&table);
        }
    }
    let mut footer = String::from(
        "Every measured number on this page comes from the run results (run.json); the page needs no network and no script.",
    );
    if let Some(r) = reference {
        footer.push_str(&format!(" Published figures: {}.", r.source));
    }
    page.finish(&footer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::tests::{golden, sample};
    use crate::model::{CdfPoint, Convergence, SecondPoint, SeriesPoint};

    /// The sample drive with the data charts are drawn from: rounds and seconds of the
    /// random-write steps, per-second probe latency, latency distributions. `slow` scales
    /// the write probe's tail (a drive with write stalls).
    fn drive(model: &str, slow: f64) -> RunResult {
        let mut r = sample();
        r.target.model = Some(model.into());
        for s in r
            .steps
            .iter_mut()
            .filter(|s| s.name.starts_with("rand_write"))
        {
            s.series = (1..=6)
                .map(|i| SeriesPoint {
                    t_s: i as f64 * 10.0,
                    mb_s: 290.0 + 300.0 / i as f64,
                    iops: 0.0,
                    waf: Some(4.2 - 2.0 / i as f64),
                })
                .collect();
            s.seconds = (0..60)
                .map(|t| SecondPoint {
                    t_s: t as f64,
                    stream: "write".into(),
                    ios: 1000,
                    mb_s: 290.0 + 600.0 / (t + 1) as f64,
                    ..Default::default()
                })
                .collect();
            s.elapsed_s = Some(60.0);
            s.convergence = Some(Convergence {
                converged: true,
                rounds: 6,
                window_first: Some(1),
                drive_writes: 1.4,
                ..Default::default()
            });
        }
        let lat = r
            .steps
            .iter_mut()
            .find(|s| s.name == steps::LATENCY_UNDER_LOAD)
            .unwrap();
        lat.elapsed_s = Some(4.4);
        lat.rw = "randwrite".into();
        lat.ops.insert(
            "write".into(),
            crate::model::OpSummary {
                mb_s: 68.6,
                iops: 16750.0,
                ..Default::default()
            },
        );
        for (probe, base, tail) in [("read", 60e3, 1.0), ("write", 12e3, slow)] {
            let o = lat.probes.get_mut(probe).unwrap();
            o.ios = 10_000;
            o.lat_ns.max = (base * 40.0 * tail) as u64;
            o.lat_ns.p99_9 = (base * 6.0 * tail) as u64;
            o.cdf = [
                (0.0, 0.5),
                (50.0, 1.0),
                (90.0, 1.3),
                (99.0, 2.0),
                (99.9, 6.0 * tail),
            ]
            .iter()
            .map(|&(p, f)| CdfPoint {
                p,
                ns: (base * f) as u64,
            })
            .chain([CdfPoint {
                p: 100.0,
                ns: (base * 40.0 * tail) as u64,
            }])
            .collect();
            // Seconds 0-3 full, second 2 without completions (a stall), 4 cut short.
            for t in 0..5u64 {
                lat.seconds.push(SecondPoint {
                    t_s: t as f64,
                    stream: format!("probe_{probe}"),
                    ios: if t == 2 { 0 } else { 1000 },
                    lat_mean_ns: base * (1.0 + t as f64 / 10.0),
                    lat_p99_ns: (base * 2.0 * tail) as u64,
                    ..Default::default()
                });
            }
        }
        r
    }

    #[test]
    fn chart_data_matches_golden() {
        let (a, b) = (drive("drive A", 1.0), drive("drive B", 50.0));
        let reference = crate::paper::reference("ssd-iq").unwrap();
        let sections = chart_sections(&[&a, &b], Some(&reference));
        // One line per chart, so a change shows as the charts it touches.
        let mut got = String::new();
        for s in &sections {
            got.push_str(&format!("# {} ({})\n", s.title, s.id));
            for c in &s.charts {
                got.push_str(&serde_json::to_string(c).unwrap());
                got.push('\n');
            }
        }
        golden(
            "report-charts.jsonl",
            &got,
            "the numbers fed to the report's charts changed; rerun with UPDATE_GOLDEN=1 and review",
        );
    }

    #[test]
    fn tail_points_end_at_the_max_and_stalls_are_gaps() {
        let a = drive("drive A", 1.0);
        let drives = run_charts::drives(&[&a]);
        let t = latency::tail(&drives, "read");
        let pts = &t.series[0].points;
        assert_eq!(
            pts.last().unwrap(),
            &[99.99, 2_400_000.0],
            "max at 1 - 1/ios"
        );
        assert!(pts.iter().all(|p| p[0] < 100.0));
        let o = latency::over_time(&drives, "write");
        let p99: Vec<&Vec<[f64; 2]>> = o
            .series
            .iter()
            .filter(|s| s.label == "P99")
            .map(|s| &s.points)
            .collect();
        assert_eq!(p99.len(), 2, "second 2 had no completions: two runs");
        assert_eq!(p99[0].len(), 2);
        assert_eq!(p99[1].len(), 1, "second 4 (half cut) is left out");
    }

    #[test]
    fn one_page_with_facts_tables_and_every_chart() {
        let mut a = drive("drive <A>", 1.0);
        a.run = Some(crate::model::RunInfo {
            seed: 7,
            reset: "sanitize block erase".into(),
            ..Default::default()
        });
        a.target.firmware = Some("FW1.2".into());
        a.derived.load_basis = Some("25% of the spec".into());
        let b = drive("drive B", 50.0);
        let html = render(&[&a, &b]);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("drive &lt;A&gt;"), "names are escaped");
        for want in [
            "FW1.2",
            "sanitize block erase",
            "seed 7",
            "load applied",
            "preconditioning",
        ] {
            assert!(html.contains(want), "{want}");
        }
        assert!(html.contains("Table 2") && html.contains("Table 3"));
        assert!(html.contains("class=\"help\""), "metrics are explained");
        assert!(
            html.contains("×50"),
            "differences from the first drive are shown"
        );
        assert!(html.contains("@media print"));
        let charts: usize = chart_sections(&[&a, &b], None)
            .iter()
            .map(|s| s.charts.len())
            .sum();
        assert_eq!(html.matches("<svg").count(), charts);
        assert!(charts >= 14, "{charts}");
        assert!(!html.contains("<script"));
        // The only URLs are SVG namespace identifiers, which are never fetched.
        assert_eq!(
            html.matches("http").count(),
            html.matches("http://www.w3.org/").count()
        );
    }

    #[test]
    fn a_result_without_series_draws_no_empty_charts() {
        let r = sample();
        let html = render(&[&r]);
        let sections = chart_sections(&[&r], None);
        assert!(sections.iter().all(|s| !s.charts.is_empty()));
        assert_eq!(
            html.matches("<svg").count(),
            sections.iter().map(|s| s.charts.len()).sum::<usize>()
        );
        let against = render_against(&[&r], crate::paper::reference("ssd-iq").as_ref());
        assert!(against.contains("Micron 7450 PRO") && against.contains("published *"));
        assert!(against.contains("Drives compared"));
    }
}
