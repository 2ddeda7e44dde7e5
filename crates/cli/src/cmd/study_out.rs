//! What `ssdiq study` writes: `study.json` (the document), `points.csv` (one row per point,
//! one column per value) and `study.html` (the study's charts in the report's vocabulary, its
//! findings and the points table), all through `crate::output`.

use std::collections::BTreeSet;
use std::path::Path;

use ssdiq_report::chart::{palette, Axis, Band, DotChart, DotRow, LineChart, Series, Stroke};
use ssdiq_report::page::{simple_table, Figure, Page};
use ssdiq_schema::{StudyDoc, StudyPoint};
use ssdiq_workload::units::format_size;

use crate::output::{write_json, write_output};

pub const FILES: [&str; 3] = ["study.json", "points.csv", "study.html"];

pub fn write_all(dir: &Path, doc: &StudyDoc) -> anyhow::Result<()> {
    let _defer = ssdiq_engine::signals::defer_exit();
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    write_json(&dir.join("study.json"), doc)?;
    write_output(&dir.join("points.csv"), csv(doc).as_bytes())?;
    write_output(&dir.join("study.html"), html(doc).as_bytes())?;
    Ok(())
}

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

/// One chart of a study: `metrics` as (value key, legend) drawn against x; with one metric,
/// a line per series, else a line per metric (of the series `only`).
struct ChartSpec {
    title: &'static str,
    only: Option<&'static str>,
    metrics: &'static [(&'static str, &'static str)],
    x: &'static str,
    x_log: bool,
    y: &'static str,
    y_log: bool,
    caption: &'static str,
}

const WAF: &[(&str, &str)] = &[("waf", "WAF")];

fn specs(study: &str) -> Vec<ChartSpec> {
    let c = |title, only, metrics, x, x_log, y, y_log, caption| ChartSpec {
        title,
        only,
        metrics,
        x,
        x_log,
        y,
        y_log,
        caption,
    };
    match study {
        "skew" => vec![
            c("WAF against two-zone skew", Some("two-zone"), WAF, "share of writes to the hot zone [%] (50 = uniform)", false, "WAF (steady)", false,
              "Two-zone W/S: W% of the random writes go to S% of the drive (scrambled). The paper's Figure 3a: naive greedy GC gains little from skew; a drive that separates hot from cold data gains much."),
            c("WAF against Zipf skew", Some("zipf"), WAF, "Zipf theta (0 = uniform)", false, "WAF (steady)", false,
              "Random writes with Zipf-distributed page popularity (the paper's Figure 4a)."),
        ],
        "readonly" => vec![c("WAF against the read-only share", None, WAF, "share of the drive written once, never again [%]", false, "WAF (steady)", false,
            "The rest of the drive takes uniform random writes. If the drive kept the cold data apart, the read-only share would act as extra over-provisioning.")],
        "gc-unit" => vec![c("WAF against zone size", None, WAF, "zone size [MiB]", true, "WAF (steady)", false,
            "ZNS-like writes: zones written sequentially, each trimmed before it is rewritten. WAF reaches 1 once zones cover whole GC units; several open zones interleave in the drive's units and raise it again (Figure 6b).")],
        "latency-load" => vec![
            c("Write latency against load", Some("write load"), &[("write_avg_us", "average"), ("write_p99_us", "P99"), ("write_p99999_us", "P99.999")], "write load [% of the random-write IOPS]", false, "latency [us]", true,
              "Latency of the load's own 4 KiB random writes (Poisson arrivals, timed from arrival), as in the paper's Figure 8."),
            c("Read latency against write load", Some("write load"), &[("read_probe_avg_us", "average"), ("read_probe_p99_us", "P99"), ("read_probe_p99999_us", "P99.999")], "write load [% of the random-write IOPS]", false, "latency [us]", true,
              "A QD 1 read probe beside the write load."),
        ],
        "streams" => vec![c("WAF against the number of sequential streams", None, WAF, "sequential write streams", true, "WAF (steady)", false,
            "Every write belongs to a sequential stream; the streams are interleaved at random (weights 1, 1.2, 1.4, ...). The dot on the right is uniform random writes. A drive that kept the streams apart would stay at WAF 1.")],
        "concurrency" => vec![
            c("Read throughput against concurrent jobs", None, &[("mb_s", "MB/s")], "concurrent jobs (QD 1 each, own region)", true, "MB/s", false,
              "The paper's Figure 4: with one process, random reads of small blocks lag far behind sequential ones; more concurrent processes close the gap."),
            c("Mean read latency against concurrent jobs", None, &[("avg_us", "mean")], "concurrent jobs (QD 1 each, own region)", true, "latency [us]", true, ""),
        ],
        "io-scheduler" => vec![
            c("Read throughput against request size, per I/O scheduler", None, &[("mb_s", "MB/s")], "request size [KiB]", true, "MB/s", false,
              "One thread at QD 1 (the paper's Figure 3): the scheduler has nothing to merge or reorder, so the lines of a pattern should lie on one another."),
        ],
        "variance" => vec![
            c("IOPS of each run", None, &[("kiops", "kIOPS")], "run", false, "kIOPS", false,
              "Each run starts from a reset and a fill, with a new random stream."),
            c("P99 latency of each run", None, &[("p99_us", "P99")], "run", false, "latency [us]", true, ""),
            c("WAF of each run", Some("randwrite 4KiB"), WAF, "run", false, "WAF", false,
              "One drive write of random writes after the fill (not steady state: the transition is part of it)."),
        ],
        "parallelism" => vec![
            c("Sequential read IOPS against queue depth", None, &[("kiops", "kIOPS")], "queue depth (per queue)", true, "kIOPS", true,
              "The paper's Figure 5.4: IOPS scale with the queue depth, hardly with the number of queues."),
        ],
        "locality" => vec![
            c("Sequential and shuffled reads against read size", None, &[("mb_s", "MB/s")], "read size [KiB]", true, "MB/s", true,
              "QD 1 over the same section; the paper measured sequential reads 10x faster than shuffled ones on its drives."),
        ],
        "permuted" => vec![
            c("Sequential, permuted and shuffled one-block reads", None, &[("kiops", "kIOPS")], "shuffle window [blocks] (QD = twice the window)", true, "kIOPS", false,
              "Permuted: sequential order shuffled within each window; if the drive reordered its queue, permuted reads would run as fast as sequential ones."),
        ],
        "alignment" => vec![
            c("1 MiB sequential reads against their offset", None, &[("mb_s", "MB/s")], "offset [KiB]", true, "MB/s", false,
              "QD 64. An offset read spans one more flash page than an aligned one; the dot is the aligned reads."),
        ],
        "random-fill" => vec![
            c("Fill throughput against the share of the drive written", None, &[("mb_s", "MB/s")], "share of the drive written [%]", false, "MB/s", true,
              "Each point: the throughput of that 5% of the drive."),
        ],
        "write-over-time" => vec![
            c("Sequential write throughput against the share of the drive written", None, &[("mb_s", "MB/s")], "share of the drive written [%]", false, "MB/s", false,
              "A fresh drive, 1 MiB writes at QD 64; each point: the throughput of that 0.5% of the drive. The thesis's drives fell after about 5%, 15% and 5% (their SLC caches); its Optane did not."),
        ],
        "controller-reset" => vec![
            c("Time of the same random reads, run by run", None, &[("seconds", "seconds")], "run", false, "seconds", false,
              "Run 1 fills the caches; the controller is reset before run 3."),
        ],
        "pts-iops" => vec![
            c("IOPS against block size per R/W mix (steady-state window)", None, &[("iops", "IOPS")], "block size [KiB]", true, "IOPS", true,
              "Random I/O, T4Q32; averages over the steady-state window."),
            c("Steady-state tracking: 4 KiB random-write IOPS per round", Some("tracking"), &[("rw4k_iops", "4 KiB 0/100 IOPS")], "round", false, "IOPS", false,
              "Steady: over the last 5 rounds, range <= 20% and best-fit excursion <= 10% of their average."),
        ],
        "pts-throughput" => vec![
            c("Sequential throughput against block size (steady-state window)", None, &[("mb_s", "MB/s")], "block size [KiB]", true, "MB/s", false,
              "100/0: reads, 0/100: writes; T1Q32."),
            c("Steady-state tracking: 1 MiB write MB/s per round", Some("tracking"), &[("sw1m_mb_s", "1 MiB 0/100 MB/s")], "round", false, "MB/s", false, ""),
        ],
        "pts-latency" => vec![
            c("Average response time against block size (steady-state window)", None, &[("avg_us", "average")], "block size [KiB]", true, "latency [us]", true,
              "Random I/O at T1Q1 per R/W mix."),
            c("99.999% response time against block size", None, &[("p99999_us", "99.999%")], "block size [KiB]", true, "latency [us]", true, ""),
            c("Steady-state tracking: 4 KiB write average response time per round", Some("tracking"), &[("rw4k_avg_us", "4 KiB 0/100 average")], "round", false, "latency [us]", false, ""),
        ],
        "pts-wsat" => vec![
            c("IOPS against the total written", None, &[("iops", "IOPS")], "total written [GB]", false, "IOPS", false,
              "4 KiB random writes T4Q32 from a purged drive: fresh out of the box, the transition, saturation."),
        ],
        "pts-hir" => vec![
            c("IOPS of each 5 s burst against time, per idle wait", None, &[("iops", "IOPS")], "time since the first burst [s]", false, "IOPS", false,
              "After steady state; a drive that collects garbage while idle writes faster after longer waits."),
            c("Preconditioning: 4 KiB random-write IOPS per round", Some("tracking"), &[("rw4k_iops", "4 KiB 0/100 IOPS")], "round", false, "IOPS", false,
              "Rounds of one test period until steady (5-round window: range <= 20%, excursion <= 10%)."),
        ],
        "pts-xsr" => vec![
            c("Write throughput against time, per phase", None, &[("mb_s", "MB/s")], "time [s]", false, "MB/s", false,
              "Sequential 1 MiB, random 8 KiB, sequential 1 MiB writes, T1Q32."),
        ],
        "pts-dirth" => vec![
            c("IOPS against queue depth, per mix and thread count", None, &[("iops", "IOPS")], "queue depth (per thread)", true, "IOPS", true,
              "4 KiB random I/O after steady state."),
            c("Average response time against queue depth", None, &[("avg_us", "average")], "queue depth (per thread)", true, "latency [us]", true, ""),
            c("Preconditioning: 4 KiB random-write IOPS per round", Some("tracking"), &[("rw4k_iops", "4 KiB 0/100 IOPS")], "round", false, "IOPS", false,
              "Rounds of one test period until steady (5-round window: range <= 20%, excursion <= 10%)."),
        ],
        "block-size" => vec![
            c("Throughput against request size", None, &[("mb_s", "MB/s")], "request size [KiB]", true, "MB/s", false,
              "QD 32, one thread; random writes after a warm-up of random writes (steady state)."),
            c("P99 latency against request size", None, &[("p99_us", "P99")], "request size [KiB]", true, "latency [us]", true, ""),
        ],
        "queue-depth" => vec![
            c("IOPS against queue depth", None, &[("kiops", "kIOPS")], "queue depth", true, "kIOPS", false,
              "4 KiB random reads on the filled drive; random writes after a warm-up."),
            c("P99 latency against queue depth", None, &[("p99_us", "P99")], "queue depth", true, "latency [us]", true, ""),
        ],
        _ => Vec::new(),
    }
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

fn chart(doc: &StudyDoc, spec: &ChartSpec) -> LineChart {
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
    let points_of = |series: &str, key: &str| -> Vec<[f64; 2]> {
        doc.points
            .iter()
            .filter(|p| p.series == series)
            .filter_map(|p| p.values.get(key).map(|v| [p.x, *v]))
            .collect()
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
fn dot_charts(doc: &StudyDoc) -> Vec<Figure> {
    let charts: &[(&str, &str, &str, &str)] = match doc.study.as_str() {
        "data-dependence" => &[
            ("Sequential write throughput per data pattern", "mb_s", "MB/s",
             "128 KiB writes at QD 64; the paper found the data written made no difference, and write-zeroes fast on most drives."),
        ],
        "empty-full" => &[
            ("Throughput per test, empty and full drive", "mb_s", "MB/s",
             "One thread at QD 1 on the test file. The paper found no significant difference between an empty and a full drive."),
            ("Mean latency per test, empty and full drive", "avg_us", "latency [us]", ""),
        ],
        "random-fill" => &[
            ("Sequential one-block reads at QD 64 after each fill", "read_kiops", "kIOPS",
             "After a minute idle. The thesis (§5.2) found a random fill slowed the DRAM-less drives' reads, not the Samsung's or the Optane's."),
        ],
        _ => &[],
    };
    let mut out = Vec::new();
    for (title, key, axis, caption) in charts {
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
            out.push(Figure::dots(&c, caption));
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
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

pub fn html(doc: &StudyDoc) -> String {
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
            .map(|f| format!("<li>{}</li>", ssdiq_report::page::esc(f)))
            .collect::<String>()
    ));
    let mut figures: Vec<Figure> = specs(&doc.study)
        .iter()
        .map(|s| (chart(doc, s), s.caption))
        .filter(|(c, _)| c.has_data())
        .map(|(c, cap)| Figure::line(&c, cap))
        .collect();
    figures.extend(dot_charts(doc));
    if !figures.is_empty() {
        page.heading("charts", "Charts");
        page.grid(figures);
    }
    page.heading("method", "Method");
    page.para("", &doc.method);
    page.heading("points", "Points");
    let keys = value_keys(&doc.points);
    let words: Vec<String> = keys.iter().map(|k| in_words(k)).collect();
    let mut header: Vec<&str> = vec!["series", "point"];
    header.extend(words.iter().map(String::as_str));
    header.push("drive time [s]");
    let rows: Vec<Vec<String>> = doc
        .points
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
    // Studies with many values (latency-load has 14) scroll their table sideways on a narrow
    // screen instead of widening the page.
    page.raw(&format!(
        "<div style=\"overflow-x:auto\">{}</div>",
        simple_table("points", &header, &rows, 2)
    ));
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
    }
}
