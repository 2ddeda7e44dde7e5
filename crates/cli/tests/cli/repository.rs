//! The repository stands alone: a clone holds every source it cites. No tracked file outside
//! `.ci/` names the folder beside the repository that only the project's machines have, and
//! every `docs/sources.md#anchor` cited anywhere (profiles, docs, code) is an anchor there.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The tracked files (`git ls-files`), or, without git, every file but build output.
fn tracked() -> Vec<PathBuf> {
    let root = root();
    if let Ok(o) = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output()
    {
        if o.status.success() && !o.stdout.is_empty() {
            return o
                .stdout
                .split(|&b| b == 0)
                .filter(|p| !p.is_empty())
                .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
                .collect();
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if p.is_dir() {
                if !["target", ".git", "ssdiq-results"].contains(&name.as_str()) {
                    stack.push(p);
                }
            } else {
                out.push(p);
            }
        }
    }
    out
}

fn text_files_outside_ci() -> Vec<(String, String)> {
    let root = root();
    tracked()
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(&root).ok()?.to_string_lossy().to_string();
            // This file names what it looks for.
            if rel.starts_with(".ci/") || rel.ends_with("tests/cli/repository.rs") {
                return None;
            }
            let text = String::from_utf8(std::fs::read(&p).ok()?).ok()?;
            Some((rel, text))
        })
        .collect()
}

#[test]
fn no_file_outside_ci_names_the_folder_beside_the_repository() {
    let needle = ["shared", "/"].concat();
    let mut hits = Vec::new();
    for (rel, text) in text_files_outside_ci() {
        for (i, line) in text.lines().enumerate() {
            if line.contains(&needle) {
                hits.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "cite a public source or docs/sources.md instead:\n{}",
        hits.join("\n")
    );
}

#[test]
fn every_cited_anchor_of_sources_md_exists() {
    let sources = std::fs::read_to_string(root().join("docs/sources.md")).unwrap();
    let anchors: Vec<&str> = sources
        .split("<a id=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect();
    assert!(anchors.len() > 20, "{anchors:?}");
    let mut missing = Vec::new();
    let mut cited = 0;
    for (rel, text) in text_files_outside_ci() {
        for (i, line) in text.lines().enumerate() {
            // "docs/sources.md#a", "sources.md#a" (from docs/) and "#a" right after either.
            for part in line.split("sources.md#").skip(1) {
                let a: String = part
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                cited += 1;
                if !anchors.contains(&a.as_str()) {
                    missing.push(format!("{rel}:{}: #{a}", i + 1));
                }
                // A second anchor on the same citation: "#flash-timing / #default-profile".
                for more in part.split(" / #").skip(1) {
                    let b: String = more
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                        .collect();
                    if !anchors.contains(&b.as_str()) {
                        missing.push(format!("{rel}:{}: #{b}", i + 1));
                    }
                }
            }
        }
    }
    assert!(cited > 40, "only {cited} citations found");
    assert!(
        missing.is_empty(),
        "anchors cited but not in docs/sources.md:\n{}",
        missing.join("\n")
    );
}
