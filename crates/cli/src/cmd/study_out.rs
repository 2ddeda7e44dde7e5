//! What `ssdiq study` writes: `study.json` (the document), `points.csv` and `study.html`
//! (rendered by `ssdiq_report::study`), all through `crate::output`.

use std::path::Path;

use ssdiq_report::study::{csv, html};
use ssdiq_schema::StudyDoc;

use crate::output::{write_json, write_output};

pub const FILES: [&str; 3] = ["study.json", "points.csv", "study.html"];

pub fn write_all(dir: &Path, doc: &StudyDoc) -> anyhow::Result<()> {
    let _defer = crate::signals::defer_exit();
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    write_json(&dir.join("study.json"), doc)?;
    write_output(&dir.join("points.csv"), csv(doc).as_bytes())?;
    // A document of a study the catalogue no longer has gets a page without charts.
    let (charts, dots) =
        ssdiq_suite::study::find(&doc.study).map_or((&[][..], &[][..]), |s| (s.charts, s.dots));
    write_output(&dir.join("study.html"), html(doc, charts, dots).as_bytes())?;
    Ok(())
}
