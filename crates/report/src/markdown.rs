//! Markdown rendering of tables: GitHub pipe tables, colours as coloured circles so they
//! survive in plain text.

use std::fmt::Write;

use crate::colour::Colour;
use crate::table::Table;

pub fn marker(c: Option<Colour>) -> &'static str {
    match c {
        Some(Colour::Green) => " 🟢",
        Some(Colour::Yellow) => " 🟡",
        Some(Colour::Red) => " 🔴",
        None => "",
    }
}

pub fn table(t: &Table) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "### {}\n", t.title);
    let _ = write!(s, "| Metric | |");
    for c in &t.columns {
        let _ = write!(s, " {}{} |", c.name, if c.published { "*" } else { "" });
    }
    let _ = write!(s, "\n|---|---|");
    for _ in &t.columns {
        s.push_str("---:|");
    }
    s.push('\n');
    for r in &t.rows {
        let _ = write!(s, "| {} | {} |", r.metric, r.variant);
        for c in &r.cells {
            let text = if c.spec && c.text != "-" {
                format!("*{}*", c.text)
            } else {
                c.text.clone()
            };
            let diff = c
                .diff
                .as_ref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            let _ = write!(s, " {}{}{} |", text, marker(c.colour), diff);
        }
        s.push('\n');
    }
    s.push('\n');
    for n in &t.notes {
        let _ = writeln!(s, "{n}  ");
    }
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::*;
    use crate::table::build_tables;
    use std::collections::BTreeMap;

    fn op(iops: f64, bs: f64, mean_us: f64, p999_us: f64) -> OpSummary {
        OpSummary {
            ios: 1000,
            bytes: (1000.0 * bs) as u64,
            iops,
            mb_s: iops * bs / 1e6,
            lat_ns: LatencySummary {
                mean: mean_us * 1e3,
                p99_9: (p999_us * 1e3) as u64,
                ..Default::default()
            },
            over_1ms: 0.0,
            cdf: Vec::new(),
        }
    }

    fn step(
        name: &str,
        ops: &[(&str, OpSummary)],
        waf: Option<f64>,
        implied: Option<f64>,
    ) -> StepResult {
        StepResult {
            name: name.into(),
            ops: ops
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            waf_measured: waf,
            waf_implied: implied,
            convergence: Some(Convergence {
                converged: true,
                rounds: 7,
                window_first: Some(2),
                drive_writes: 1.4,
                within_reference: Some(true),
                reference_drive_writes: Some(3.0),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// A drive shaped like the paper's Samsung PM9A3 column.
    pub(crate) fn sample() -> RunResult {
        let mut probes = BTreeMap::new();
        probes.insert("read".to_string(), op(1000.0, 4096.0, 62.0, 487.0));
        probes.insert("write".to_string(), op(1000.0, 4096.0, 13.0, 17.0));
        RunResult {
            schema: SCHEMA.into(),
            kind: "run".into(),
            target: TargetInfo {
                name: "emu:default".into(),
                model: Some("PM9A3-like".into()),
                capacity_bytes: 960_000_000_000,
                emulated: true,
                reports_media_writes: true,
                ..Default::default()
            },
            spec: Some(Spec {
                seq_read_mb_s: Some(6500.0),
                seq_write_mb_s: Some(1500.0),
                rand_read_kiops: Some(580.0),
                rand_write_kiops: Some(70.0),
                ..Default::default()
            }),
            steps: vec![
                step(
                    steps::SEQ_READ,
                    &[("read", op(6696e6 / 131072.0, 131072.0, 0.0, 0.0))],
                    None,
                    None,
                ),
                step(
                    steps::SEQ_WRITE,
                    &[("write", op(1441e6 / 131072.0, 131072.0, 0.0, 0.0))],
                    None,
                    None,
                ),
                step(
                    steps::RAND_READ,
                    &[("read", op(582e3, 4096.0, 0.0, 0.0))],
                    None,
                    None,
                ),
                step(
                    steps::RAND_WRITE_UNIFORM,
                    &[("write", op(71e3, 4096.0, 0.0, 0.0))],
                    Some(4.2),
                    Some(4.95),
                ),
                step(
                    steps::RAND_WRITE_TWOZONE,
                    &[("write", op(67e3, 4096.0, 0.0, 0.0))],
                    Some(4.5),
                    Some(5.25),
                ),
                step(
                    steps::RAND_WRITE_ZIPF,
                    &[("write", op(67e3, 4096.0, 0.0, 0.0))],
                    Some(4.5),
                    Some(5.25),
                ),
                StepResult {
                    name: steps::LATENCY_UNDER_LOAD.into(),
                    probes,
                    ..Default::default()
                },
            ],
            derived: Derived {
                op_estimate_formula: Some(1.0 / 8.4),
                op_estimate_greedy: Some(0.1466),
                load_basis: None,
                load_mb_s: None,
                implied_basis: None,
                implied_not_meaningful: None,
            },
            clock: "virtual".into(),
            partial: false,
            run: None,
            figures: Default::default(),
            device_log: Vec::new(),
        }
    }

    /// The sample with figures of several samples each, as a run of the `ssd-iq` protocol
    /// writes them: the tables show medians and [min-max].
    pub(crate) fn sample_with_figures() -> RunResult {
        let mut r = sample();
        let fig = |v: &[f64]| {
            let mut s = v.to_vec();
            s.sort_by(f64::total_cmp);
            Figure {
                median: s[s.len() / 2],
                min: s[0],
                max: s[s.len() - 1],
                samples: v.to_vec(),
            }
        };
        for (k, v) in [
            (figures::SEQ_READ_MB_S, &[6650.0, 6696.0, 6710.0][..]),
            (figures::SEQ_WRITE_MB_S, &[1441.0, 1441.0, 1441.0]),
            (figures::RAND_READ_KIOPS, &[582.0, 580.0, 590.0]),
            ("rand_write_kiops.uniform", &[71.0]),
            ("rand_write_kiops.twozone", &[67.0]),
            ("rand_write_kiops.zipf", &[67.0]),
            (figures::READ_LAT_IDLE_US, &[61.0, 62.0, 63.0]),
            (figures::READ_LAT_LOAD_AVG_US, &[62.0, 62.0, 63.0]),
            (figures::READ_LAT_LOAD_P999_US, &[487.0, 470.0, 520.0]),
            (figures::WRITE_LAT_LOAD_AVG_US, &[13.0, 13.0, 13.0]),
            (figures::WRITE_LAT_LOAD_P999_US, &[17.0, 17.0, 19.0]),
            ("waf_measured.uniform", &[4.2]),
            ("waf_measured.twozone", &[4.5]),
            ("waf_measured.zipf", &[4.5]),
            ("waf_implied.uniform", &[4.95]),
            (figures::OP_ESTIMATE, &[1.0 / 8.4]),
        ] {
            r.figures.insert(k.to_string(), fig(v));
        }
        r
    }

    /// Compares `got` with `tests/golden/NAME` (rewritten under UPDATE_GOLDEN=1), failing with
    /// `changed`; returns the golden text.
    #[track_caller]
    /// Every table in `md` renders as a table under a GFM renderer (pulldown-cmark): a
    /// delimiter row whose cell count differs from its header's makes the whole table plain
    /// text. Each row has the header's cell count.
    pub(crate) fn assert_tables_render(md: &str) {
        use pulldown_cmark::{Event, Options, Parser, Tag};
        let is_delimiter =
            |l: &str| l.starts_with('|') && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
        let cells = |l: &str| l.trim().trim_matches('|').split('|').count();
        let lines: Vec<&str> = md.lines().collect();
        let mut expected = 0;
        for (i, l) in lines.iter().enumerate() {
            if !is_delimiter(l) {
                continue;
            }
            expected += 1;
            let header = cells(lines[i - 1]);
            for row in
                std::iter::once(l).chain(lines[i + 1..].iter().take_while(|r| r.starts_with('|')))
            {
                assert_eq!(cells(row), header, "{row}\nunder {}", lines[i - 1]);
            }
        }
        let rendered = Parser::new_ext(md, Options::ENABLE_TABLES)
            .filter(|e| matches!(e, Event::Start(Tag::Table(_))))
            .count();
        assert_eq!(rendered, expected, "tables that render of those written");
    }

    #[test]
    fn every_markdown_table_renders() {
        let r = sample();
        let (t2, t3) = build_tables(&[&r, &r]);
        assert_tables_render(&format!("{}\n{}", table(&t2), table(&t3)));
        let (t2, t3) = build_tables(&[&sample_with_figures()]);
        assert_tables_render(&format!("{}\n{}", table(&t2), table(&t3)));
        let doc = crate::document::run_markdown(&r);
        assert!(doc.contains("### Steps"));
        assert_tables_render(&doc);
    }

    pub(crate) fn golden(name: &str, got: &str, changed: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, got).unwrap();
        }
        let want = std::fs::read_to_string(&path)
            .expect("golden file; run with UPDATE_GOLDEN=1 to create");
        assert_eq!(got, want, "{changed}");
        want
    }

    /// The sample as a result document: a golden file for the `run` schema, and the input
    /// of the HTML render check in CI.
    #[test]
    fn sample_run_document_matches_golden() {
        let mut r = sample();
        for s in r
            .steps
            .iter_mut()
            .filter(|s| s.name.starts_with("rand_write"))
        {
            s.pattern = s.name.trim_start_matches("rand_write_").into();
            s.series = (0..12)
                .map(|i| SeriesPoint {
                    t_s: i as f64 * 10.0,
                    mb_s: 290.0 + 600.0 * (-(i as f64) / 2.0).exp(),
                    iops: 0.0,
                    waf: Some(4.2 - 3.2 * (-(i as f64) / 2.0).exp()),
                })
                .collect();
        }
        let lat = r
            .steps
            .iter_mut()
            .find(|s| s.name == steps::LATENCY_UNDER_LOAD)
            .unwrap();
        for (op, base) in [("read", 60_000u64), ("write", 12_000)] {
            lat.probes.get_mut(op).unwrap().cdf = [1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99]
                .iter()
                .enumerate()
                .map(|(i, &p)| CdfPoint {
                    p,
                    ns: base + (i as u64).pow(3) * base / 20,
                })
                .collect();
        }
        let got = serde_json::to_string_pretty(&r).unwrap() + "\n";
        let want = golden(
            "sample-run.json",
            &got,
            "the run schema changed; additions are fine, renames need ssdiq/2",
        );
        let back: RunResult = serde_json::from_str(&want).unwrap();
        assert_eq!(back, r);
    }

    /// The whole Markdown report of one run, as `ssdiq run` writes it.
    #[test]
    fn run_report_matches_golden() {
        let mut r = sample();
        r.run = Some(RunInfo {
            quick: true,
            seed: 1,
            threads: 1,
            precondition_bytes: 960_000_000_000,
            precondition_s: 640.0,
            elapsed_s: 4321.0,
            reset: "emulated drive reset".into(),
            error: None,
            ..Default::default()
        });
        r.derived.load_basis = Some("25% of the spec random-write bandwidth (286.7 MB/s)".into());
        let got = crate::document::run_markdown(&r);
        golden(
            "run-report.md",
            &got,
            "run report layout changed; rerun with UPDATE_GOLDEN=1 and review",
        );
    }

    #[test]
    fn markdown_layout_matches_golden() {
        let r = sample();
        let (t2, t3) = build_tables(&[&r, &r]);
        let got = format!("{}\n{}", table(&t2), table(&t3));
        golden(
            "tables.md",
            &got,
            "Markdown layout changed; if intended, rerun with UPDATE_GOLDEN=1 and review the diff",
        );
    }

    /// Tables from figures with several samples: medians and [min-max].
    #[test]
    fn figure_tables_match_golden() {
        let r = sample_with_figures();
        let (t2, t3) = build_tables(&[&r]);
        let got = format!("{}\n{}", table(&t2), table(&t3));
        golden(
            "tables-figures.md",
            &got,
            "Markdown layout of figure tables changed; rerun with UPDATE_GOLDEN=1 and review",
        );
        assert!(got.contains("| 6696 [6650-6710] |"), "{got}");
        assert!(
            got.contains("| 1441 |"),
            "identical samples show one number"
        );
    }

    #[test]
    fn colours_follow_the_paper() {
        let r = sample();
        let (t2, t3) = build_tables(&[&r]);
        let cell = |t: &Table, metric_row: usize| t.rows[metric_row].cells[0].clone();
        let find = |t: &Table, metric: &str, variant: &str| {
            let i = t.rows.iter().position(|x| x.metric == metric).unwrap();
            let j = t.rows[i..]
                .iter()
                .position(|x| x.variant == variant)
                .unwrap();
            cell(t, i + j)
        };
        assert_eq!(
            find(&t2, "Read Lat. [us]", "P99.9").colour,
            Some(Colour::Green)
        );
        assert_eq!(find(&t2, "Read Lat. [us]", "P99.9").text, "487");
        assert_eq!(
            find(&t2, "Rnd. Write [k IOPS]", "TwoZ").colour,
            Some(Colour::Red)
        );
        assert_eq!(
            find(&t2, "Rnd. Write [k IOPS]", "Unif").colour,
            Some(Colour::Green)
        );
        assert_eq!(find(&t3, "WA (measured)", "Unif").text, "4.20");
        assert_eq!(find(&t3, "Estimated OP [%]", "1/(2 WA)").text, "11.9");
    }
}
