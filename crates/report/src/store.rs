//! The page and the terminal table of `ssdiq store`'s document (`schema::store`): each row
//! beside the paper's figures the document carries for it.

use std::fmt::Write as _;

use ssdiq_schema::store::{DataMode, Metrics, PaperRow, StoreDoc, StoreRow};

use crate::chart::{palette, Axis, DotChart, DotRow};
use crate::page::{simple_table, Page, Panel};

/// Why the hit ratio sits far below the paper's, beside the paper's rows.
const HIT_RATIO_NOTE: &str = "hit ratio: buffer-pool hits of the store's page accesses; the store has no B-tree, so every access is a leaf access, where the paper's ratio also counts inner nodes, which always hit.";

/// The paper's figures for a row, if the document has them (rows of the paper's tables).
fn paper_row<'a>(doc: &'a StoreDoc, name: &str) -> Option<&'a PaperRow> {
    doc.paper.iter().find(|(n, _)| n == name).map(|(_, p)| p)
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// The columns of the table: (header, our value, paper value).
fn cells(r: &StoreRow, p: Option<&PaperRow>) -> Vec<(&'static str, String, String)> {
    let m = &r.outcome.metrics;
    let (ran, wrote) = measured(m);
    let pf =
        |f: fn(&PaperRow) -> Option<f64>, d: usize| p.as_ref().map_or("".into(), |p| opt(f(p), d));
    vec![
        (
            "kops/s",
            opt(ran.then_some(m.ops_per_s / 1e3), 0),
            p.map_or("".into(), |p| format!("{:.0}", p.ops_k)),
        ),
        (
            "DB WAF",
            opt(wrote.then_some(m.db_waf), 2),
            pf(|p| p.db_waf, 2),
        ),
        ("SSD WAF", opt(m.ssd_waf, 2), pf(|p| p.ssd_waf, 2)),
        (
            "total WAF",
            opt(m.total_waf, 2),
            pf(|p| Some(p.db_waf? * p.ssd_waf?), 2),
        ),
        (
            "logical B/op",
            opt(ran.then_some(m.logical_bytes_per_op), 0),
            pf(|p| p.logical_bytes_per_op, 0),
        ),
        (
            "physical B/op",
            opt(m.physical_bytes_per_op.filter(|_| ran), 0),
            pf(|p| p.physical_bytes_per_op, 0),
        ),
        (
            "hit ratio",
            opt(ran.then_some(m.hit_ratio), 3),
            pf(|p| p.hit_ratio, 3),
        ),
    ]
}

/// Whether the measured phase ran any operation, and wrote any user page: figures per
/// operation or per user write are shown as "-" without them (an interrupted row).
fn measured(m: &Metrics) -> (bool, bool) {
    (m.ops > 0, m.user_pages > 0)
}

pub fn row_line(r: &StoreRow) -> String {
    let m = &r.outcome.metrics;
    let (ran, wrote) = measured(m);
    format!(
        "{}: DB WAF {}, SSD WAF {}, total {}, {} ops/s, hit {}",
        r.name,
        opt(wrote.then_some(m.db_waf), 2),
        opt(m.ssd_waf, 2),
        opt(m.total_waf, 2),
        opt(ran.then_some(m.ops_per_s), 0),
        opt(ran.then_some(m.hit_ratio), 3)
    )
}

/// How the device was reset before its rows, after the word "reset": once when every row had
/// the same reset.
fn reset_text(res: &StoreDoc) -> String {
    let first = res.rows.first().map(|r| r.reset.as_str()).unwrap_or("-");
    if res.rows.iter().all(|r| r.reset == first) {
        let each = if res.rows.len() > 1 { "each" } else { "the" };
        return format!("before {each} row: {first}");
    }
    let per: Vec<String> = res
        .rows
        .iter()
        .map(|r| format!("{}: {}", r.name, r.reset))
        .collect();
    format!("before each row: {}", per.join("; "))
}

pub fn render_text(res: &StoreDoc) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "ssdiq store on {}{}",
        res.target,
        if res.partial { " (partial)" } else { "" }
    );
    if let Some(r) = res.rows.first() {
        let _ = writeln!(s, "device: {}", r.device.description);
        let _ = writeln!(s, "reset {}", reset_text(res));
        let _ = writeln!(
            s,
            "dataset {} pages ({:.0}% of the device), buffer {} frames, {} records/page, data ratio {}, data {}",
            r.config.pages,
            r.options.fill * 100.0,
            r.config.frames,
            r.config.records_per_page,
            r.config.data_ratio,
            match r.config.data {
                DataMode::Bytes => "bytes (real contents, LZ4, every read checked)",
                DataMode::Model => "model (no contents; sizes from the LZ4-calibrated model)",
            }
        );
    }
    for r in &res.rows {
        let Some(c) = r.outcome.size_model else {
            continue;
        };
        let _ = writeln!(
            s,
            "{}: size model ({} patterns, {} LZ4 samples) vs LZ4 on {} {}: mean {:.1} vs {:.1} B, sd {:.1} vs {:.1} B, {:.4} vs {:.4} slots/page",
            r.name,
            c.patterns,
            c.compressions,
            c.pages,
            c.basis,
            c.model_mean_bytes,
            c.real_mean_bytes,
            c.model_sd_bytes,
            c.real_sd_bytes,
            c.model_slots_per_page,
            c.real_slots_per_page
        );
    }
    let _ = write!(s, "{:<10} {:>8}", "row", "zone");
    let first = res.rows.first();
    for (h, _, _) in first
        .map(|r| cells(r, paper_row(res, &r.name)))
        .unwrap_or_default()
    {
        let _ = write!(s, " {h:>13}");
    }
    s.push('\n');
    for r in &res.rows {
        let _ = write!(s, "{:<10} {:>8}", r.name, r.zone_size);
        let p = paper_row(res, &r.name);
        for (_, ours, _) in cells(r, p) {
            let _ = write!(s, " {ours:>13}");
        }
        s.push('\n');
        if p.is_some() {
            let _ = write!(s, "{:<10} {:>8}", "  paper", "");
            for (_, _, theirs) in cells(r, p) {
                let _ = write!(s, " {theirs:>13}");
            }
            s.push('\n');
        }
    }
    if !res.paper.is_empty() {
        let _ = writeln!(s, "{HIT_RATIO_NOTE}");
    }
    let _ = writeln!(
        s,
        "write drilldown (bytes per user page written: user / double-write / DB GC / SSD GC):"
    );
    for r in &res.rows {
        let m = &r.outcome.metrics;
        if !measured(m).1 {
            let _ = writeln!(
                s,
                "  {:<10} - (no user page written while measuring)",
                r.name
            );
            continue;
        }
        let d = &m.drilldown;
        let per = |b: u64| b as f64 / (m.user_pages.max(1) as f64 * 4096.0);
        // DB GC victims exist only out of place; in place there is nothing to report.
        let victims = m
            .victim_valid_ratio
            .map(|v| format!("victims {:.0}% valid, ", v * 100.0))
            .unwrap_or_default();
        let _ = write!(
            s,
            "  {:<10} {:.2} / {:.2} / {:.2} (compensation {:.2}) / {}   {victims}compressed to {:.0}%, metadata {}",
            r.name,
            per(d.user_bytes),
            per(d.double_write_bytes),
            per(d.db_gc_bytes),
            per(d.compensation_bytes),
            d.ssd_gc_bytes.map_or("-".into(), |b| format!("{:.2}", per(b))),
            m.compressed_fraction * 100.0,
            ssdiq_workload::units::format_size_approx(r.outcome.metadata_bytes as f64)
        );
        match m.drive_buffer_fill {
            Some(f) => {
                let _ = writeln!(s, ", drive buffer {:.0}% full", f * 100.0);
            }
            None => s.push('\n'),
        }
    }
    s
}

/// The page, in the report's vocabulary: the rows beside the paper's, WAF per configuration
/// and the write drilldown as dot charts (one row per configuration), no scripts.
pub fn render_html(res: &StoreDoc) -> String {
    let subtitle = format!(
        "{}. Reset {}{}",
        res.rows
            .first()
            .map(|r| r.device.description.clone())
            .unwrap_or_default(),
        reset_text(res),
        if res.partial {
            ". Partial: the run ended before its last row."
        } else {
            ""
        }
    );
    // A target's overrides break after their commas, not off the page's edge.
    let title = format!("ssdiq store: {}", res.target.replace(',', ", "));
    let mut page = Page::new(&title, &subtitle);
    // Only rows of the paper's tables have the paper's figures beside them.
    page.heading(
        "rows",
        if res.paper.is_empty() {
            "Rows"
        } else {
            "Rows against the paper"
        },
    );
    let header_cells = res
        .rows
        .first()
        .map(|r| cells(r, paper_row(res, &r.name)))
        .unwrap_or_default();
    let mut header = vec!["row", "zone"];
    header.extend(header_cells.iter().map(|(c, _, _)| *c));
    let mut rows = Vec::new();
    for r in &res.rows {
        let mut ours = vec![r.name.clone(), r.zone_size.clone()];
        let p = paper_row(res, &r.name);
        ours.extend(cells(r, p).into_iter().map(|(_, o, _)| o));
        rows.push(ours);
        if let Some(p) = p {
            let mut theirs = vec![format!("paper ({})", p.table), String::new()];
            theirs.extend(cells(r, Some(p)).into_iter().map(|(_, _, t)| t));
            rows.push(theirs);
        }
    }
    page.raw(&format!(
        "<div style=\"overflow-x:auto\">{}</div>",
        simple_table("store-rows", &header, &rows, 2)
    ));
    if !res.paper.is_empty() {
        page.raw(&format!("<p>{HIT_RATIO_NOTE}</p>"));
    }

    let mut waf = DotChart::new(
        "WAF per configuration (paper rows in grey)",
        Axis::log("write amplification"),
        &["DB WAF", "SSD WAF", "total WAF"],
    );
    let mut drill = DotChart::new(
        "Write drilldown: bytes written per byte of user page writes",
        Axis::linear("bytes per user byte"),
        &["user", "double-write", "DB GC", "SSD GC"],
    );
    for r in &res.rows {
        let m = &r.outcome.metrics;
        waf.rows.push(DotRow {
            label: r.name.clone(),
            colour: palette::series(0),
            values: vec![measured(m).1.then_some(m.db_waf), m.ssd_waf, m.total_waf],
            spread: Vec::new(),
        });
        if let Some(p) = paper_row(res, &r.name) {
            waf.rows.push(DotRow {
                label: format!("{} (paper)", r.name),
                colour: palette::REFERENCE,
                values: vec![
                    p.db_waf,
                    p.ssd_waf,
                    p.db_waf.zip(p.ssd_waf).map(|(d, s)| d * s),
                ],
                spread: Vec::new(),
            });
        }
        let d = &m.drilldown;
        let per = |b: u64| b as f64 / (m.user_pages.max(1) as f64 * 4096.0);
        drill.rows.push(DotRow {
            label: r.name.clone(),
            colour: palette::series(0),
            values: vec![
                Some(per(d.user_bytes)),
                Some(per(d.double_write_bytes)),
                Some(per(d.db_gc_bytes)),
                d.ssd_gc_bytes.map(per),
            ],
            spread: Vec::new(),
        });
    }
    let figures: Vec<Panel> = [
        (waf, "DB WAF: device writes per user page write; SSD WAF: media writes per device write; total: their product."),
        (drill, "User writes shrink with compression; double-write is in place only; DB GC copies live pages out of place; SSD GC is what the drive copies (its media writes beyond the device writes)."),
    ]
    .into_iter()
    .filter(|(c, _)| c.has_data())
    .map(|(c, cap)| Panel::dots(&c, cap))
    .collect();
    if !figures.is_empty() {
        page.heading("charts", "Charts");
        page.grid(figures);
    }
    page.finish("Measured with ssdiq store; paper rows: Lee, Ziegler, Leis, How to Write to SSDs, PVLDB 19(7), Tables 1-3 (YCSB-A zipf 0.8, 800 GB on a Samsung PM9A3; Table 3 on an FDP drive, Table 2 throughput only).")
}
