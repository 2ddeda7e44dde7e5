//! Regular files as targets of `ssdiq run` and `ssdiq io`: when a file is created, used in
//! place or recreated, decided the same way for both commands and checked before anything
//! is written.
//!
//! Rules (README, "File targets"):
//! - A path that does not exist is created at `--size`, never under `/dev` (a mistyped
//!   device name is an error, not a new regular file in devtmpfs).
//! - An existing file is never deleted, emptied, grown or written unless a flag says so:
//!   `run`, `study` and `store` recreate their target, so they need `--recreate`; an `io`
//!   job reads it in place, within its length (`--size` may choose a smaller range), and
//!   writes it only with `--overwrite` (in place) or `--recreate` (emptied first).
//! - `--recreate`: the file is emptied and sized to `--size` (default: its length).
//! - Before a file is created or recreated, `--size` must fit in the filesystem's free space
//!   (statvfs) plus what the old file occupies: a bad `--size` never costs the old file.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use ssdiq_workload::units::{format_size, format_size_approx};

use crate::error::refused as usage;

/// What happens to a file target before the job runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilePlan {
    /// Not a regular file: a block device, or something the engine will refuse.
    NotAFile,
    /// Created at this size by the job (the path does not exist).
    Create(u64),
    /// Used as it is.
    InPlace,
    /// Emptied and sized to this many bytes by [`apply`], just before the job.
    Recreate(u64),
}

/// Which command asks: `run` recreates its target on reset, `store` rewrites it whole,
/// `io` uses files in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// A benchmark that resets its target: `run` or `study` (named in a refusal).
    Run(&'static str),
    Store,
    Io,
}

/// Decides what happens to `path` and checks it against the filesystem. `size` is `--size`;
/// every refusal is a usage error.
///
/// `guard_content`: an `io` job would write into the file without `--overwrite`; an existing
/// file with content is then refused, as `run`, `study` and `store` refuse one without
/// `--recreate` (one rule: a command changes an existing file only when a flag says so).
pub fn plan(
    path: &Path,
    size: Option<u64>,
    recreate: bool,
    use_: Use,
    guard_content: bool,
) -> anyhow::Result<FilePlan> {
    let shown = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => return Ok(FilePlan::NotAFile),
    };
    let Some(meta) = meta else {
        if size.is_none() && path.to_string_lossy().contains(',') {
            return Err(usage(format!(
                "{shown} does not exist: a TARGET of paths separated by commas is a RAID0 of block devices, which takes --stripe CHUNK (e.g. --stripe 128k)"
            )));
        }
        if crate::outputs::under_dev(path) {
            return Err(usage(format!(
                "{shown} does not exist (no such device), and ssdiq never creates files under /dev"
            )));
        }
        let Some(size) = size else {
            return Err(usage(format!(
                "{shown} does not exist; give --size to create it"
            )));
        };
        check_space(path, size, 0)?;
        return Ok(FilePlan::Create(size));
    };
    let ft = meta.file_type();
    if !ft.is_file() {
        if recreate {
            return Err(usage(format!(
                "invalid --recreate: {shown} is not a regular file; --recreate is for file targets"
            )));
        }
        return Ok(FilePlan::NotAFile);
    }
    let len = meta.len();
    if recreate {
        let size = size.unwrap_or(len);
        check_space(path, size, meta.blocks() * 512)?;
        return Ok(FilePlan::Recreate(size));
    }
    match use_ {
        Use::Run(_) | Use::Store => {
            let held = if len == 0 {
                "empty".to_string()
            } else {
                format_size(len)
            };
            let verb = match use_ {
                Use::Run(command) => format!("{command} recreates"),
                _ => "store rewrites".to_string(),
            };
            Err(usage(format!(
                "{shown} exists ({held}); {verb} its target, losing the file's content: pass --recreate to allow it"
            )))
        }
        Use::Io => match size {
            Some(s) if s > len => Err(usage(format!(
                "invalid --size \"{}\": {shown} holds only {}; an existing file is not grown unless --recreate is given (its content is then lost)",
                format_size(s),
                format_size(len)
            ))),
            _ if guard_content && len > 0 => Err(usage(format!(
                "{shown} exists ({}); this job writes into it, losing the file's content: pass --overwrite to write it in place, or --recreate to empty it first",
                format_size(len)
            ))),
            _ => Ok(FilePlan::InPlace),
        },
    }
}

/// The directory a file at `path` would be created in.
fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Bytes a new file at `path` could take, and its directory as shown; `None` if unknown.
pub fn free_space(path: &Path) -> Option<(u64, String)> {
    let dir = parent_dir(path);
    free_bytes(dir).ok().map(|f| (f, dir.display().to_string()))
}

/// Usage error unless `size` bytes fit in the free space of `path`'s filesystem plus
/// `held`, what the file there already occupies.
fn check_space(path: &Path, size: u64, held: u64) -> anyhow::Result<()> {
    let Some((free, dir)) = free_space(path) else {
        // The engine reports a missing directory in its own words.
        return Ok(());
    };
    if size > free.saturating_add(held) {
        let held_text = if held > 0 {
            format!(
                " (plus {} the old file holds)",
                format_size_approx(held as f64)
            )
        } else {
            String::new()
        };
        return Err(usage(format!(
            "invalid --size \"{}\": the filesystem of {dir} has {} free{held_text}",
            format_size(size),
            format_size_approx(free as f64)
        )));
    }
    Ok(())
}

/// Bytes an unprivileged user may still allocate on `dir`'s filesystem.
fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: statvfs fills the struct it is given; the path is NUL-terminated.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// Carries out a [`FilePlan::Recreate`]: empties the file (its blocks are freed) and sizes
/// it. Other plans need nothing here.
pub fn apply(path: &Path, plan: FilePlan) -> anyhow::Result<()> {
    if let FilePlan::Recreate(size) = plan {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .and_then(|f| f.set_len(size).map(|_| f));
        f.map_err(|e| anyhow::anyhow!("cannot recreate {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        let err = |r: anyhow::Result<FilePlan>| r.unwrap_err().to_string();
        assert!(err(plan(&f, None, false, Use::Io, false)).contains("give --size"));
        assert_eq!(
            plan(&f, Some(4096), false, Use::Run("run"), false).unwrap(),
            FilePlan::Create(4096)
        );
        std::fs::write(&f, vec![1u8; 8192]).unwrap();
        assert_eq!(
            plan(&f, None, false, Use::Io, false).unwrap(),
            FilePlan::InPlace
        );
        assert_eq!(
            plan(&f, Some(4096), false, Use::Io, false).unwrap(),
            FilePlan::InPlace
        );
        assert!(err(plan(&f, Some(1 << 20), false, Use::Io, false)).contains("--recreate"));
        // A job that writes needs --overwrite (or --recreate) for a file with content.
        assert!(err(plan(&f, None, false, Use::Io, true)).contains("--overwrite"));
        assert!(err(plan(&f, None, false, Use::Run("run"), false)).contains("--recreate"));
        assert_eq!(
            plan(&f, None, true, Use::Run("run"), false).unwrap(),
            FilePlan::Recreate(8192)
        );
        assert!(err(plan(&f, Some(u64::MAX / 2), true, Use::Run("run"), false)).contains("free"));
        apply(&f, FilePlan::Recreate(1 << 20)).unwrap();
        let m = std::fs::metadata(&f).unwrap();
        assert_eq!(m.len(), 1 << 20);
        assert_eq!(m.blocks(), 0, "recreated empty (sparse)");
        assert!(err(plan(d.path(), None, true, Use::Io, false)).contains("not a regular file"));
        assert!(err(plan(
            Path::new("/dev/ssdiq-typo"),
            Some(1),
            false,
            Use::Io,
            false
        ))
        .contains("/dev"));
    }
}
