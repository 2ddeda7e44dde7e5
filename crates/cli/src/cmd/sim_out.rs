//! Writing a sweep's results: the single-machine sweep and `ssdiq sim merge` share this, so
//! both write the same bytes for the same runs.

use std::path::PathBuf;

use ssdiq_schema::SimRun;
use ssdiq_sweep::output::{csv, shard_doc, sim_doc};
use ssdiq_sweep::{Point, Shard};

use crate::output::{write_json, write_output};

/// Where the results go.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// The sweep's JSON, CSV and HTML.
pub fn write_outputs(out: &Outputs, runs: Vec<SimRun>, partial: bool) -> anyhow::Result<()> {
    if let Some(p) = &out.csv {
        write_output(p, csv(&runs).as_bytes())?;
    }
    let doc = sim_doc(runs, partial);
    if let Some(p) = &out.html {
        write_output(p, ssdiq_report::sim::page(&doc).as_bytes())?;
    }
    if let Some(p) = &out.json {
        write_json(p, &doc)?;
    }
    let written: Vec<String> = [&out.csv, &out.html, &out.json]
        .into_iter()
        .flatten()
        .map(|p| p.display().to_string())
        .collect();
    if !written.is_empty() {
        eprintln!("outputs: {}", written.join(", "));
    }
    Ok(())
}

/// One shard's JSON (`runs` in the shard's point order, `None` for runs not finished).
pub fn write_shard(
    out: &Outputs,
    shard: Shard,
    all: &[Point],
    runs: Vec<Option<SimRun>>,
) -> anyhow::Result<()> {
    let path = out.json.as_ref().expect("--shard requires --json");
    write_json(path, &shard_doc(shard, all, runs))
}
