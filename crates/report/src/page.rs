//! One self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched) in the style
//! every ssdiq page shares: `ssdiq run`/`report`, `ssdiq sim --html`, the studies.
//!
//! Layout: readable from a laptop screen to 1400 px and wider (charts two to a row where they
//! fit, one otherwise, never scaled below their drawn size by more than a little), and printable
//! (one chart per row, no figure or table split across pages).

use std::fmt::Write;

use crate::chart::{DotChart, LineChart};

/// Drawn size of a line chart; the page scales it to its column.
pub const LINE_SIZE: (u32, u32) = (640, 360);
/// Drawn width of a dot chart (its height follows its rows).
pub const DOT_WIDTH: u32 = 640;

const CSS: &str = "\
*{box-sizing:border-box}\
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#222;margin:0 auto;max-width:1440px;padding:20px 28px 48px}\
h1{font-size:26px;margin:8px 0 4px}h2{font-size:20px;margin:36px 0 8px;padding-bottom:4px;border-bottom:1px solid #ddd}\
h3{font-size:15px;margin:0 0 4px}p{margin:6px 0;max-width:1000px}\
.sub{color:#555}.note{font-size:13px;color:#555;max-width:900px}.warn{color:#a00;font-weight:600}\
.key{display:flex;flex-wrap:wrap;gap:6px 18px;margin:10px 0;padding:0;list-style:none}\
.key li{display:flex;align-items:center;gap:6px}.sw{display:inline-block;width:14px;height:14px;border-radius:3px;flex:none}\
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,600px),1fr));gap:24px 32px;margin-top:12px}\
figure{margin:0;max-width:780px;break-inside:avoid}figure svg{width:100%;height:auto;display:block}\
figcaption{font-size:13px;color:#555;margin-top:2px}\
.tables{display:flex;flex-wrap:wrap;gap:12px 36px;align-items:flex-start}.tables>div{flex:1 1 520px;max-width:100%}\
.tables .note{contain:inline-size}\
table{border-collapse:collapse;margin:8px 0;font-size:14px;font-variant-numeric:tabular-nums}\
td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top}th{background:#f4f4f4;font-weight:600}\
td.num{text-align:right;white-space:nowrap}td.spec{background:#fff}td.meas{background:#eee}\
td.green{background:#b7e1b0}td.yellow{background:#f5e6a3}td.red{background:#f0aaa5}\
td.metric{max-width:210px;min-width:150px}.help{font-size:12px;color:#666;font-weight:normal;margin-top:2px}\
.diff{display:block;font-size:11px;color:#444}.diff.big{font-weight:700;color:#000}\
table.wide{font-size:13px}table.wide td,table.wide th{padding:2px 5px}table.wide td.num{white-space:normal}.nb{white-space:nowrap}table.wide td.metric{min-width:120px;max-width:170px}\
table.steps td.num{white-space:normal}\
th.pub,td.pub{color:#555}th .sw{margin-right:5px;vertical-align:-2px}\
table.facts td:first-child{color:#555;white-space:nowrap}\
@media print{body{max-width:none;padding:0;font-size:11pt}.grid{grid-template-columns:1fr}\
figure{max-width:17cm}h2{break-after:avoid}table,.tables>div{break-inside:avoid}\
td.green,td.yellow,td.red,td.meas,.sw{-webkit-print-color-adjust:exact;print-color-adjust:exact}}";

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A page under construction: append sections, then [`Page::finish`].
pub struct Page {
    html: String,
}

impl Page {
    /// Starts a page with its `<title>`, an `<h1>` and a subtitle line (may be empty).
    pub fn new(title: &str, subtitle: &str) -> Self {
        let mut html = String::new();
        let _ = write!(
            html,
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<title>{t}</title><style>{CSS}</style></head><body><h1>{t}</h1>",
            t = esc(title)
        );
        if !subtitle.is_empty() {
            let _ = write!(html, "<p class=\"sub\">{}</p>", esc(subtitle));
        }
        Page { html }
    }

    pub fn heading(&mut self, id: &str, text: &str) {
        let _ = write!(self.html, "<h2 id=\"{}\">{}</h2>", esc(id), esc(text));
    }

    pub fn para(&mut self, class: &str, text: &str) {
        let _ = write!(self.html, "<p class=\"{class}\">{}</p>", esc(text));
    }

    /// Raw HTML built by this crate's renderers (already escaped).
    pub fn raw(&mut self, html: &str) {
        self.html.push_str(html);
    }

    /// A colour key: one swatch per name.
    pub fn key(&mut self, entries: &[(String, String)]) {
        self.html.push_str("<ul class=\"key\">");
        for (name, hex) in entries {
            let _ = write!(
                self.html,
                "<li><span class=\"sw\" style=\"background:{hex}\"></span>{}</li>",
                esc(name)
            );
        }
        self.html.push_str("</ul>");
    }

    /// A grid of figures; figures without data are left out, and an empty grid is nothing.
    pub fn grid(&mut self, figures: Vec<Panel>) {
        let figures: Vec<String> = figures.into_iter().filter_map(Panel::html).collect();
        if figures.is_empty() {
            return;
        }
        self.html.push_str("<div class=\"grid\">");
        for f in figures {
            self.html.push_str(&f);
        }
        self.html.push_str("</div>");
    }

    pub fn finish(mut self, footer: &str) -> String {
        if !footer.is_empty() {
            let _ = write!(
                self.html,
                "<p class=\"note\" style=\"margin-top:40px\">{}</p>",
                esc(footer)
            );
        }
        self.html.push_str("</body></html>\n");
        self.html
    }
}

/// A chart with its heading and a caption saying how to read it.
pub struct Panel {
    pub svg: Option<String>,
    pub title: String,
    pub caption: String,
}

impl Panel {
    pub fn line(c: &LineChart, caption: &str) -> Self {
        Panel {
            svg: c.svg(LINE_SIZE),
            title: c.title.clone(),
            caption: caption.into(),
        }
    }

    pub fn dots(c: &DotChart, caption: &str) -> Self {
        Panel {
            svg: c.svg(DOT_WIDTH),
            title: c.title.clone(),
            caption: caption.into(),
        }
    }

    fn html(self) -> Option<String> {
        let svg = self.svg?;
        let mut s = format!("<figure><h3>{}</h3>{svg}", esc(&self.title));
        if !self.caption.is_empty() {
            let _ = write!(s, "<figcaption>{}</figcaption>", esc(&self.caption));
        }
        s.push_str("</figure>");
        Some(s)
    }
}

/// A plain table: header cells, then rows of cells (escaped here); the first `text_cols`
/// columns are left-aligned text, the others right-aligned numbers.
pub fn simple_table(
    class: &str,
    header: &[&str],
    rows: &[Vec<String>],
    text_cols: usize,
) -> String {
    let wide = if header.len() > 10 { " wide" } else { "" };
    let mut s = format!("<table class=\"{class}{wide}\">");
    if !header.is_empty() {
        s.push_str("<tr>");
        for h in header {
            let _ = write!(s, "<th>{}</th>", esc(h));
        }
        s.push_str("</tr>");
    }
    for r in rows {
        s.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            if i >= text_cols {
                let _ = write!(s, "<td class=\"num\">{}</td>", esc(c));
            } else {
                let _ = write!(s, "<td>{}</td>", esc(c));
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    s
}
