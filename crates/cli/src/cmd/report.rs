//! `ssdiq report`: render one result or put several drives side by side.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ssdiq_report::model::{RunResult, SCHEMA};
use ssdiq_report::{build_tables, html, markdown, terminal};

use crate::error::usage;
use crate::output::{check_not_input, check_writable, write_output};

#[derive(clap::Args)]
#[command(
    about = "Render or compare SSD-iq results (terminal, Markdown, self-contained HTML)",
    after_help = "Example:\n  ssdiq report drive-a.json drive-b.json --markdown compare.md --html compare.html"
)]
pub struct Args {
    /// Result files written by `ssdiq run --json` (one column per drive).
    #[arg(required = true)]
    files: Vec<PathBuf>,
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

/// Reads a run result, with one-line errors that say what is wrong with which file.
pub fn load(path: &Path) -> anyhow::Result<RunResult> {
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

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let inputs: Vec<&Path> = args.files.iter().map(PathBuf::as_path).collect();
    for p in [&args.markdown, &args.html].into_iter().flatten() {
        check_writable(p)?;
        check_not_input(p, &inputs)?;
    }
    let results = args
        .files
        .iter()
        .map(|p| load(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let refs: Vec<&RunResult> = results.iter().collect();
    let (t2, t3) = build_tables(&refs);
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
        write_output(p, html::render(&refs).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
