//! `ssdiq report`: render one result or put several drives side by side.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ssdiq_report::model::{RunResult, SCHEMA};
use ssdiq_report::paper::{self, Reference};
use ssdiq_report::run_charts;
use ssdiq_report::table::tables;
use ssdiq_report::{html, markdown, terminal};

use crate::error::usage;
use crate::output::{check_outputs, write_output};

#[derive(clap::Args)]
#[command(
    about = "Render or compare SSD-iq results (terminal, Markdown, self-contained HTML)",
    after_help = "Several results are compared: one table column and one chart colour per drive, \
differences from the first drive marked. --against ssd-iq adds the nine drives the SSD-iq paper \
published (Tables 2 and 3) beside yours.\n\n\
Examples:\n  ssdiq report r/a r/b r/c --html compare.html\n  \
ssdiq report r/a/run.json --against ssd-iq --markdown vs-paper.md --html vs-paper.html"
)]
pub struct Args {
    /// Results of `ssdiq run`: run.json files or the directories holding them (one column
    /// per drive), or directories of results (DIR/*/run.json and DIR/*.json of kind "run",
    /// e.g. the results of `ssdiq run --slurm DIR`).
    #[arg(required_unless_present = "against")]
    files: Vec<PathBuf>,
    /// Put published results beside yours: ssd-iq (the nine drives of the SSD-iq paper).
    #[arg(long, value_name = "NAME")]
    against: Option<String>,
    /// Write the Tables 2 and 3 layout as Markdown.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Write a single self-contained HTML file with tables and SVG charts.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Colour the terminal tables: auto (when stdout is a terminal), always, never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
}

/// Largest result document read: a run of many hours with its per-second series is a few
/// MB; `/dev/zero` or a disk image named by mistake is refused at once.
const RESULT_LIMIT: u64 = 256 << 20;

/// The file a result argument names: itself, or a directory's `run.json`.
fn result_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("run.json")
    } else {
        path.to_path_buf()
    }
}

/// Reads a run result (a file, or a directory's `run.json`), with one-line errors that say
/// what is wrong with which file.
pub fn load(path: &Path) -> anyhow::Result<RunResult> {
    let path = &result_file(path);
    let text = ssdiq_engine::textfile::read_text(path, RESULT_LIMIT)
        .map_err(|e| usage(format!("cannot read result \"{}\": {e}", path.display())))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| usage(format!("result \"{}\" is not JSON: {e}", path.display())))?;
    if value.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA) {
        return Err(usage(format!(
            "result \"{}\" has schema {}, expected \"{SCHEMA}\"",
            path.display(),
            value
                .get("schema")
                .map(|s| s.to_string())
                .unwrap_or_else(|| "none".into())
        )));
    }
    if value.get("kind").and_then(|s| s.as_str()) != Some("run") {
        return Err(usage(format!(
            "result \"{}\" is of kind {}, expected \"run\" (written by ssdiq run)",
            path.display(),
            value
                .get("kind")
                .map(|s| s.to_string())
                .unwrap_or_else(|| "none".into())
        )));
    }
    serde_json::from_value(value).map_err(|e| {
        usage(format!(
            "result \"{}\" does not match the run schema: {e}",
            path.display()
        ))
    })
}

/// Files as given; a directory stands for the run results in it, in name order.
fn expand(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if !p.is_dir() || p.join("run.json").is_file() {
            out.push(result_file(p));
            continue;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| usage(format!("cannot read directory \"{}\": {e}", p.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        let before = out.len();
        for e in entries {
            if e.join("run.json").is_file() {
                out.push(e.join("run.json"));
            } else if e.extension().is_some_and(|x| x == "json") && is_run(&e) {
                out.push(e);
            }
        }
        if out.len() == before {
            return Err(usage(format!(
                "cannot read result \"{}\": no run.json in it, nor DIR/*/run.json or DIR/*.json written by ssdiq run",
                p.display()
            )));
        }
    }
    Ok(out)
}

fn is_run(p: &PathBuf) -> bool {
    std::fs::read_to_string(p)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| v.get("kind").and_then(|k| k.as_str()) == Some("run"))
}

fn reference(name: Option<&str>) -> anyhow::Result<Option<Reference>> {
    name.map(|n| {
        paper::reference(n).ok_or_else(|| {
            usage(format!(
                "invalid --against \"{n}\": expected one of {}",
                paper::NAMES.join(", ")
            ))
        })
    })
    .transpose()
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let reference = reference(args.against.as_deref())?;
    let input_files: Vec<PathBuf> = expand(&args.files)?;
    let outputs = [
        ("--markdown", args.markdown.as_deref()),
        ("--html", args.html.as_deref()),
    ];
    check_outputs(&outputs, &input_files)?;
    let results = input_files
        .iter()
        .map(|p| load(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let refs: Vec<&RunResult> = results.iter().collect();
    let figures = html::all_figures(&run_charts::drives(&refs), reference.as_ref());
    let (t2, t3) = tables(&figures);
    let ansi = match args.color.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stdout().is_terminal(),
    };
    print!(
        "{}\n{}",
        terminal::table(&t2, ansi),
        terminal::table(&t3, ansi)
    );
    if let Some(p) = &args.markdown {
        let md = format!("{}\n{}", markdown::table(&t2), markdown::table(&t3));
        write_output(p, md.as_bytes())?;
    }
    if let Some(p) = &args.html {
        write_output(
            p,
            html::render_against(&refs, reference.as_ref()).as_bytes(),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
