//! Plain-text rendering of tables, with ANSI colours when asked for.

use std::fmt::Write;

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
