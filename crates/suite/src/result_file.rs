//! Result documents of `ssdiq run` read back (by `ssdiq report` and `ssdiq fit`): a file, a
//! directory's run.json, or a directory of results. Every error is a `ResultError`: one
//! line saying what is wrong with which file.

use std::path::{Path, PathBuf};

use ssdiq_schema::info::InfoReport;
use ssdiq_schema::{RunResult, StudyDoc, SCHEMA};

use crate::error::ResultError;

fn bad(msg: String) -> ResultError {
    ResultError(msg)
}

/// Largest result document read: a run of many hours with its per-second series is a few
/// MB; `/dev/zero` or a disk image named by mistake is refused at once.
const RESULT_LIMIT: u64 = 256 << 20;

/// The file a result argument names: itself, or a directory's `run.json` (what a command
/// reads, so what no output of it may replace).
pub fn result_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("run.json")
    } else {
        path.to_path_buf()
    }
}

/// A result document read back: a run, a study, or a drive's `ssdiq info --json`.
#[derive(Clone, Debug)]
pub enum ResultDoc {
    Run(Box<RunResult>),
    Study(Box<StudyDoc>),
    Info(Box<InfoReport>),
}

/// Reads a run result (a file, or a directory's `run.json`), with one-line errors that say
/// what is wrong with which file.
pub fn load_run(path: &Path) -> Result<RunResult, ResultError> {
    match load(path, &["run"])? {
        ResultDoc::Run(r) => Ok(*r),
        _ => unreachable!("only runs are asked for"),
    }
}

/// Reads what `ssdiq fit` takes: a run or a study result (a file, or a directory's
/// `run.json`), or the JSON of `ssdiq info` on a drive.
pub fn load_fit_input(path: &Path) -> Result<ResultDoc, ResultError> {
    load(path, &["run", "study", "info"])
}

fn load(path: &Path, kinds: &[&str]) -> Result<ResultDoc, ResultError> {
    let path = &result_file(path);
    let text = ssdiq_engine::textfile::read_text(path, RESULT_LIMIT)
        .map_err(|e| bad(format!("cannot read result \"{}\": {e}", path.display())))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| bad(format!("result \"{}\" is not JSON: {e}", path.display())))?;
    // A field as the file has it, for a message: quoted JSON, or "none".
    let shown = |key: &str| {
        value
            .get(key)
            .map(|s| s.to_string())
            .unwrap_or_else(|| "none".into())
    };
    if value.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA) {
        return Err(bad(format!(
            "result \"{}\" has schema {}, expected \"{SCHEMA}\"",
            path.display(),
            shown("schema")
        )));
    }
    let kind = value
        .get("kind")
        .and_then(|s| s.as_str())
        .unwrap_or("")
        .to_string();
    if !kinds.contains(&kind.as_str()) {
        let expected = if kinds == ["run"] {
            "\"run\" (written by ssdiq run)"
        } else {
            "\"run\", \"study\" or \"info\" (written by ssdiq run, ssdiq study or ssdiq info --json)"
        };
        return Err(bad(format!(
            "result \"{}\" is of kind {}, expected {expected}",
            path.display(),
            shown("kind")
        )));
    }
    let schema_error = |e: serde_json::Error| {
        bad(format!(
            "result \"{}\" does not match the {kind} schema: {e}",
            path.display()
        ))
    };
    Ok(match kind.as_str() {
        "run" => ResultDoc::Run(Box::new(
            serde_json::from_value(value).map_err(schema_error)?,
        )),
        "info" => ResultDoc::Info(Box::new(
            serde_json::from_value(value.get("info").cloned().unwrap_or_default())
                .map_err(schema_error)?,
        )),
        _ => ResultDoc::Study(Box::new(
            serde_json::from_value(value).map_err(schema_error)?,
        )),
    })
}

/// Files as given; a directory stands for the run results in it, in name order.
pub fn expand_runs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ResultError> {
    let mut out = Vec::new();
    for p in paths {
        if !p.is_dir() || p.join("run.json").is_file() {
            out.push(result_file(p));
            continue;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| bad(format!("cannot read directory \"{}\": {e}", p.display())))?
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
            return Err(bad(format!(
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
