//! The output directory of `run` and `study` (`--out DIR`), claimed before the command starts.
//!
//! Invariants:
//! - Results already in the directory are never replaced unless the command was told to
//!   (`--recreate`): a second run into the same `--out` is refused, as a file target is.
//! - One directory holds one command's results: a run's never join a study's (or the other
//!   way round), even with `--recreate`, which replaces only the command's own files.
//! - Two commands never write into one directory at once: the claim holds an exclusive
//!   `flock` on the directory itself until it is dropped, so a second command is refused at
//!   once, and a command killed by a signal leaves no stale lock behind.
//! - A directory the claim created and the command left empty (it was refused later) is
//!   removed again: a refused command leaves nothing behind.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use crate::error::refused;

/// The document each result-writing command leaves in its `--out` (`run`, `study`).
const RESULT_DOCS: [&str; 2] = ["run.json", "study.json"];

/// A claimed output directory; the claim ends when this is dropped.
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    /// The open directory holding the lock.
    _lock: File,
    created: bool,
}

impl OutDir {
    /// Claims `dir` for a command that writes `files` into it (see the module invariants);
    /// `replace`: earlier results there may be replaced.
    pub fn claim(dir: &Path, files: &[&str], replace: bool) -> anyhow::Result<OutDir> {
        let bad = |why: String| refused(format!("invalid --out \"{}\": {why}", dir.display()));
        let created = !dir.exists();
        std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create it ({e})")))?;
        let lock = File::open(dir).map_err(|e| bad(format!("cannot open it ({e})")))?;
        let claim = OutDir {
            dir: dir.to_path_buf(),
            _lock: lock,
            created,
        };
        // SAFETY: flock(2) on a descriptor this value owns; it changes no memory.
        if unsafe { libc::flock(claim._lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                bad("another ssdiq command is writing its results there now; wait for it or choose another directory".into())
            } else {
                bad(format!("cannot lock it ({e})"))
            });
        }
        let is_result = |f: &str| std::fs::metadata(dir.join(f)).is_ok_and(|m| m.is_file());
        if let Some(other) = RESULT_DOCS
            .iter()
            .find(|d| !files.contains(d) && is_result(d))
        {
            return Err(bad(format!(
                "it holds another command's results ({other}); give this one a directory of its own"
            )));
        }
        if !replace {
            let held: Vec<&str> = files
                .iter()
                .copied()
                // Results are regular files; a FIFO or a link to /dev/null set up to take
                // them is not an earlier result.
                .filter(|f| std::fs::metadata(dir.join(f)).is_ok_and(|m| m.is_file()))
                .collect();
            if !held.is_empty() {
                return Err(bad(format!(
                    "it holds earlier results ({}); pass --recreate to replace them, or choose another directory",
                    held.join(", ")
                )));
            }
        }
        Ok(claim)
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        if self.created {
            // Only an empty directory goes: remove_dir fails on anything else.
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_and_a_study_never_share_a_directory() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("run.json"), "{}").unwrap();
        for replace in [false, true] {
            let e = OutDir::claim(d.path(), &["study.json", "study.html"], replace).unwrap_err();
            assert!(
                e.to_string()
                    .contains("another command's results (run.json)"),
                "{e}"
            );
        }
        OutDir::claim(d.path(), &["run.json"], true).unwrap();
    }

    #[test]
    fn a_second_claim_and_earlier_results_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("out");
        let first = OutDir::claim(&out, &["run.json"], false).unwrap();
        let e = OutDir::claim(&out, &["run.json"], false).unwrap_err();
        assert!(e.to_string().contains("another ssdiq command"), "{e}");
        std::fs::write(out.join("run.json"), "{}").unwrap();
        drop(first);
        let e = OutDir::claim(&out, &["run.json"], false).unwrap_err();
        assert!(e.to_string().contains("pass --recreate"), "{e}");
        assert!(OutDir::claim(&out, &["run.json"], true).is_ok());
        // A directory created by a claim that ended with nothing in it is gone.
        let empty = d.path().join("empty");
        drop(OutDir::claim(&empty, &["run.json"], false).unwrap());
        assert!(!empty.exists());
    }
}
