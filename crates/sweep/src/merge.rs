//! Joining shard documents back into one sweep.
//!
//! Checks, each failing with a message naming the files: every shard is of the same sweep
//! (same point list, same N), no shard appears twice, every run sits in its shard's slice
//! and matches its point, and every point has a run (unless a partial merge is allowed).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ssdiq_schema::sim::{SimShardDoc, KIND_SIM_SHARD};
use ssdiq_schema::{SimRun, SCHEMA};

use crate::error::{invalid, SweepError};
use crate::shard::Shard;

/// The merged runs in sweep order; `missing` lists the points without a run.
#[derive(Debug)]
pub struct Merged {
    pub runs: Vec<SimRun>,
    pub points: usize,
    pub shards: u32,
    pub missing: Vec<usize>,
}

/// The shard documents of a directory, and the files passed over as not JSON at all (each
/// with the reason: a shard cut short by a crash is one of them, so the caller says so).
pub struct ShardFiles {
    pub shards: Vec<(PathBuf, SimShardDoc)>,
    pub not_json: Vec<String>,
}

/// Reads every `*.json` of `dir` that is a shard document (other JSON files, such as a
/// merged result written into the same directory, are passed over).
pub fn read_dir(dir: &Path) -> Result<ShardFiles, SweepError> {
    let io = |source| SweepError::Io {
        path: dir.display().to_string(),
        source,
    };
    if !dir.is_dir() {
        return Err(invalid(format!(
            "cannot merge \"{}\": not a directory",
            dir.display()
        )));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    let mut out = Vec::new();
    let mut not_json = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|source| SweepError::Io {
            path: f.display().to_string(),
            source,
        })?;
        let value: serde_json::Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                not_json.push(format!("\"{}\" is not JSON: {e}", f.display()));
                continue;
            }
        };
        if value.get("kind").and_then(|k| k.as_str()) != Some(KIND_SIM_SHARD) {
            continue;
        }
        if value.get("schema").and_then(|k| k.as_str()) != Some(SCHEMA) {
            return Err(invalid(format!(
                "\"{}\" has schema {}, expected \"{SCHEMA}\"",
                f.display(),
                value
                    .get("schema")
                    .map(|s| s.to_string())
                    .unwrap_or("none".into())
            )));
        }
        let doc: SimShardDoc = serde_json::from_value(value).map_err(|e| {
            invalid(format!(
                "\"{}\" does not match the sim-shard schema: {e}",
                f.display()
            ))
        })?;
        out.push((f, doc));
    }
    if out.is_empty() {
        return Err(invalid(format!(
            "no shard in \"{}\": expected the *.json files written by ssdiq sim --shard K/N --json FILE{}",
            dir.display(),
            not_json
                .first()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default()
        )));
    }
    Ok(ShardFiles {
        shards: out,
        not_json,
    })
}

/// Merges shard documents; with `allow_partial`, points without a run are listed in
/// `missing` instead of failing. `unreadable`: files of the directory that are not JSON
/// ([`ShardFiles::not_json`]), named where a shard is missing (one is likely cut short).
pub fn merge(
    shards: Vec<(PathBuf, SimShardDoc)>,
    allow_partial: bool,
    unreadable: &[String],
) -> Result<Merged, SweepError> {
    let (first_path, first) = match shards.first() {
        Some((p, d)) => (p.clone(), d.clone()),
        None => return Err(invalid("no shard to merge")),
    };
    let n = first.shard.n;
    let points = &first.points;
    let mut seen: BTreeMap<u32, PathBuf> = BTreeMap::new();
    let mut slots: Vec<Option<SimRun>> = vec![None; points.len()];
    for (path, doc) in shards {
        let name = path.display();
        if doc.shard.n != n {
            return Err(invalid(format!(
                "\"{name}\" is shard {}/{} and \"{}\" shard {}/{n}: shards of one sweep are cut into the same number of parts",
                doc.shard.k,
                doc.shard.n,
                first_path.display(),
                first.shard.k
            )));
        }
        if doc.points != *points {
            return Err(invalid(format!(
                "\"{name}\" is shard {}/{} of another sweep than \"{}\" (shard {}/{n}): their point lists differ",
                doc.shard.k,
                doc.shard.n,
                first_path.display(),
                first.shard.k
            )));
        }
        let shard = Shard { k: doc.shard.k, n };
        if doc.shard.k == 0 || doc.shard.k > n {
            return Err(invalid(format!(
                "\"{name}\": shard {shard} is not a valid shard"
            )));
        }
        if let Some(other) = seen.insert(doc.shard.k, path.clone()) {
            return Err(invalid(format!(
                "shard {shard} appears twice: \"{}\" and \"{name}\"",
                other.display()
            )));
        }
        for ir in doc.runs {
            let i = ir.index;
            if i >= points.len() || !shard.holds(i) {
                return Err(invalid(format!(
                    "\"{name}\": run {i} is not in shard {shard}'s slice of {} points",
                    points.len()
                )));
            }
            if ir.run.params != points[i] {
                return Err(invalid(format!(
                    "\"{name}\": run {i}'s parameters differ from point {i} of the sweep"
                )));
            }
            slots[i] = Some(ir.run);
        }
    }
    let missing: Vec<usize> = (0..points.len()).filter(|&i| slots[i].is_none()).collect();
    if !missing.is_empty() && !allow_partial {
        let absent: Vec<String> = (1..=n)
            .filter(|k| !seen.contains_key(k))
            .map(|k| format!("{k}/{n}"))
            .collect();
        let list: Vec<String> = missing
            .iter()
            .take(12)
            .map(|i| (i + 1).to_string())
            .collect();
        return Err(invalid(format!(
            "{} of {} runs are missing (runs {}{}){}; rerun those shards, or merge with --allow-partial",
            missing.len(),
            points.len(),
            list.join(", "),
            if missing.len() > 12 { ", ..." } else { "" },
            match (absent.is_empty(), unreadable.first()) {
                (true, _) => " from interrupted shards".to_string(),
                (false, None) => format!("; no file for shard {}", absent.join(", ")),
                (false, Some(why)) => format!(
                    "; no readable file for shard {}: {why} (a shard cut short? {} unreadable file{})",
                    absent.join(", "),
                    unreadable.len(),
                    if unreadable.len() == 1 { "" } else { "s" }
                ),
            }
        )));
    }
    Ok(Merged {
        runs: slots.into_iter().flatten().collect(),
        points: points.len(),
        shards: n,
        missing,
    })
}
