//! Plain-text rendering of tables, with ANSI colours when asked for.

use std::fmt::Write;
use std::path::Path;

use ssdiq_schema::RunResult;

use crate::colour::Colour;
use crate::table::{Cell, Table};

fn paint(text: &str, c: Option<Colour>, ansi: bool) -> String {
    match (ansi, c) {
        (true, Some(Colour::Green)) => format!("\x1b[32m{text}\x1b[0m"),
        (true, Some(Colour::Yellow)) => format!("\x1b[33m{text}\x1b[0m"),
        (true, Some(Colour::Red)) => format!("\x1b[31m{text}\x1b[0m"),
        _ => text.to_string(),
    }
}

fn cell_text(c: &Cell) -> String {
    match &c.diff {
        Some(d) => format!("{} {d}", c.text),
        None => c.text.clone(),
    }
}

pub fn table(t: &Table, ansi: bool) -> String {
    let w0 = t
        .rows
        .iter()
        .map(|r| r.metric.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let w1 = t
        .rows
        .iter()
        .map(|r| r.variant.chars().count())
        .max()
        .unwrap_or(0);
    let names: Vec<String> = t
        .columns
        .iter()
        .map(|c| format!("{}{}", c.name, if c.published { "*" } else { "" }))
        .collect();
    let widths: Vec<usize> = (0..t.columns.len())
        .map(|i| {
            t.rows
                .iter()
                .map(|r| cell_text(&r.cells[i]).chars().count() + 2)
                .chain([names[i].chars().count()])
                .max()
                .unwrap_or(4)
        })
        .collect();
    let mut s = String::new();
    let _ = writeln!(s, "{}", t.title);
    let _ = write!(s, "{:w0$}  {:w1$}", "", "");
    for (c, w) in names.iter().zip(&widths) {
        let _ = write!(s, "  {c:>w$}");
    }
    s.push('\n');
    for r in &t.rows {
        let _ = write!(s, "{:w0$}  {:w1$}", r.metric, r.variant);
        for (c, w) in r.cells.iter().zip(&widths) {
            // Colour-blind safe: a mark beside the colour.
            let mark = match c.colour {
                Some(Colour::Green) => " +",
                Some(Colour::Yellow) => " ~",
                Some(Colour::Red) => " !",
                None => "  ",
            };
            let text = format!("{}{mark}", cell_text(c));
            let pad = w.saturating_sub(text.chars().count());
            let _ = write!(s, "  {}{}", " ".repeat(pad), paint(&text, c.colour, ansi));
        }
        s.push('\n');
    }
    if t.rows
        .iter()
        .flat_map(|r| &r.cells)
        .any(|c| c.colour.is_some())
    {
        let _ = writeln!(
            s,
            "marks: + green (good), ~ yellow (fair), ! red (poor): the paper's colours; report.md states each row's rule"
        );
    }
    for n in t.notes.iter().filter(|n| {
        n.starts_with("Published") || n.starts_with("(file)") || n.starts_with("A cell with")
    }) {
        let _ = writeln!(s, "{n}");
    }
    s
}

/// What `ssdiq run` prints at its end: Tables 2 and 3 of the run, the load and implied-WA
/// bases, the time it ran, and where its files are (`ansi`: colour the tables).
pub fn run_summary(r: &RunResult, out: &Path, ansi: bool) -> String {
    let (t2, t3) = crate::build_tables(&[r]);
    let mut s = format!("{}\n{}\n", table(&t2, ansi), table(&t3, ansi));
    if let Some(b) = &r.derived.load_basis {
        s.push_str(&format!("latency under load: {b}\n"));
    }
    if let Some(b) = &r.derived.implied_basis {
        s.push_str(&format!("implied WA divides {b}\n"));
    }
    if let Some(why) = &r.derived.implied_not_meaningful {
        s.push_str(&format!("implied WA (n/m in Table 3) is {why}\n"));
    }
    if let Some(f) = r.figure(ssdiq_schema::figures::WRITE_BURST_FAST_MIB) {
        s.push_str(&format!(
            "write burst after idle (not in the paper): {:.1} MiB went in before writes waited for the flash (the write buffer, and what the dies programmed meanwhile)\n",
            f.median
        ));
    }
    if let Some(h) = crate::facts::heavy_skew(r) {
        s.push_str(&format!("heavy skew: {h}\n"));
    }
    if let Some(m) = crate::facts::map_reads(r) {
        s.push_str(&format!("map reads: {m}\n"));
    }
    if let Some(i) = crate::facts::init(r) {
        s.push_str(&format!("sequential init: {i}\n"));
    }
    if let Some(i) = &r.run {
        s.push_str(&format!(
            "ran {:.1} s ({} clock){}{}\n",
            i.elapsed_s,
            r.clock,
            i.wall_s
                .filter(|_| r.clock == "virtual")
                .map(|w| format!(" in {w:.1} s wall"))
                .unwrap_or_default(),
            if r.partial { ", partial" } else { "" }
        ));
    }
    let files = if r.device_log.is_empty() {
        "run.json,series.csv,report.md,report.html"
    } else {
        "run.json,series.csv,device.csv,report.md,report.html"
    };
    s.push_str(&format!("results: {}/{{{files}}}\n", out.display()));
    s
}
