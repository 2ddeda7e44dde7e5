//! Every result file ssdiq writes (`--json`, `--csv`, `--html`, `--markdown`, `--log`, the
//! files of `run --out`) goes through here.
//!
//! Invariants:
//! - A regular file, or a path that does not exist yet, is replaced atomically: written to a
//!   temporary name beside it, synced, renamed over it. A symlink to a regular file keeps
//!   being a symlink: the file it points to is replaced.
//! - Anything else is written through, never replaced: character devices (`/dev/null`),
//!   FIFOs, and `/dev/stdout`, `/dev/fd/N` (written to the open descriptor itself, so the
//!   output lands where the shell redirected it, after what was printed before).
//! - Block devices and directories are refused; no file is ever created under `/dev` (a
//!   mistyped device name is an error, not a new regular file).
//! - [`check_writable`] finds every one of these problems, and unwritable directories, as a
//!   usage error before any work is done; [`check_apart`] refuses to overwrite an input or
//!   to write two outputs to one file.
//! - A caller that handles signals holds termination back while [`write_output`] runs, so
//!   a Ctrl-C never leaves a temporary file behind (the CLI's `output.rs` does).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::mem::ManuallyDrop;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::error::refused as usage;

/// How a path is written.
#[derive(Debug, PartialEq, Eq)]
enum Sink {
    /// Temporary file beside this path, then rename over it.
    Replace(PathBuf),
    /// Open this path (a device node or FIFO) and write into it.
    Through(PathBuf),
    /// An already open descriptor of this process (`/dev/stdout`, `/dev/fd/N`).
    Fd(RawFd),
}

/// Why a path cannot be written, found without writing anything.
fn refuse(path: &Path, why: impl std::fmt::Display) -> anyhow::Error {
    usage(format!("cannot write \"{}\": {why}", path.display()))
}

fn parent_of(p: &Path) -> &Path {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// True if `dir` is, or lies under, `/proc/<pid>/fd` of this process.
fn fd_dir_number(link: &Path) -> Option<RawFd> {
    let dir = std::fs::canonicalize(parent_of(link)).ok()?;
    let own = std::fs::canonicalize("/proc/self/fd").ok()?;
    if dir != own {
        return None;
    }
    link.file_name()?.to_str()?.parse().ok()
}

/// True if `p` would be (or is) created in `/dev` or below it.
pub fn under_dev(p: &Path) -> bool {
    std::fs::canonicalize(parent_of(p))
        .map(|d| d.starts_with("/dev"))
        .unwrap_or(false)
}

/// Follows `path` to what will be written (see the module invariants).
fn resolve(path: &Path) -> anyhow::Result<Sink> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        let meta = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if under_dev(&p) {
                    return Err(refuse(
                        path,
                        format!(
                            "{} does not exist, and ssdiq never creates files under /dev",
                            p.display()
                        ),
                    ));
                }
                return Ok(Sink::Replace(p));
            }
            Err(e) => return Err(refuse(path, e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            if let Some(fd) = fd_dir_number(&p) {
                return Ok(Sink::Fd(fd));
            }
            let target = std::fs::read_link(&p).map_err(|e| refuse(path, e))?;
            p = parent_of(&p).join(target);
        } else if ft.is_file() {
            return Ok(Sink::Replace(p));
        } else if ft.is_dir() {
            return Err(refuse(path, "it is a directory"));
        } else if ft.is_block_device() {
            return Err(refuse(
                path,
                "it is a block device; results are never written onto a device",
            ));
        } else {
            return Ok(Sink::Through(p));
        }
    }
    Err(refuse(path, "too many levels of symbolic links"))
}

fn access_ok(p: &Path, mode: libc::c_int) -> std::io::Result<()> {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a NUL-terminated path; access(2) has no other effect.
    if unsafe { libc::access(c.as_ptr(), mode) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Fails with a usage error if `path` cannot be written (missing or read-only directory, a
/// directory, a block device, a read-only file, a closed descriptor, a new name under
/// `/dev`), so bad output paths are caught before hours of work rather than after.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    match resolve(path)? {
        Sink::Replace(p) => {
            let dir = parent_of(&p);
            if !dir.is_dir() {
                return Err(refuse(
                    path,
                    format!("directory \"{}\" does not exist", dir.display()),
                ));
            }
            // The rename needs a new file in the directory: try one now.
            let probe = temp_name(&p, "probe");
            match OpenOptions::new().write(true).create_new(true).open(&probe) {
                Ok(_) => {
                    let _ = std::fs::remove_file(&probe);
                }
                Err(e) => return Err(refuse(path, format!("{}: {e}", dir.display()))),
            }
            if p.exists() {
                access_ok(&p, libc::W_OK)
                    .map_err(|e| refuse(path, format!("{e} (a read-only file)")))?;
            }
        }
        Sink::Through(p) => access_ok(&p, libc::W_OK).map_err(|e| refuse(path, e))?,
        Sink::Fd(fd) => {
            // SAFETY: F_GETFL only reads the descriptor's flags.
            let fl = unsafe { libc::fcntl(fd, libc::F_GETFL) };
            if fl < 0 || fl & libc::O_ACCMODE == libc::O_RDONLY {
                return Err(refuse(
                    path,
                    format!("descriptor {fd} is not open for writing"),
                ));
            }
        }
    }
    Ok(())
}

/// Fails with a usage error unless `dir` is a writable directory or can be created as one
/// (its nearest existing ancestor is a writable directory, not under `/dev`), and unless
/// each of `files` inside it could be written.
pub fn check_dir_writable(dir: &Path, files: &[&str]) -> anyhow::Result<()> {
    let bad = |why: String| usage(format!("invalid --out \"{}\": {why}", dir.display()));
    let mut existing = dir;
    while !existing.exists() {
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
    if !existing.is_dir() {
        return Err(bad(format!(
            "\"{}\" exists and is not a directory",
            existing.display()
        )));
    }
    if existing != dir && std::fs::canonicalize(existing).is_ok_and(|d| d.starts_with("/dev")) {
        return Err(bad("ssdiq never creates directories under /dev".into()));
    }
    let probe = existing.join(format!(".ssdiq.{}.probe", std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
        }
        Err(e) => {
            return Err(bad(format!(
                "cannot create {} in \"{}\" ({})",
                if existing == dir {
                    "files"
                } else {
                    "a directory"
                },
                existing.display(),
                e
            )))
        }
    }
    if existing == dir {
        for f in files {
            check_writable(&dir.join(f))?;
        }
    }
    Ok(())
}

/// Usage error if `output`, the file `key` names, is one of `inputs` (writing it would
/// destroy the input, e.g. `report a.json --markdown a.json`). Only an existing file can be.
fn check_not_input(output: &Path, key: &FileKey, inputs: &[PathBuf]) -> anyhow::Result<()> {
    let FileKey::Inode(dev, ino) = *key else {
        return Ok(());
    };
    for i in inputs {
        if let Ok(m) = std::fs::metadata(i) {
            if m.dev() == dev && m.ino() == ino {
                return Err(refuse(
                    output,
                    format!("it is the input \"{}\"", i.display()),
                ));
            }
        }
    }
    Ok(())
}

/// What identifies the file an output path would replace: its inode when it exists, else
/// its canonical directory and name.
#[derive(PartialEq, Eq)]
enum FileKey {
    Inode(u64, u64),
    Name(PathBuf),
}

fn file_key(path: &Path) -> Option<FileKey> {
    let Ok(Sink::Replace(p)) = resolve(path) else {
        // Devices, FIFOs and descriptors are written through: two outputs there (both to
        // /dev/null) lose nothing a file would keep.
        return None;
    };
    if let Ok(m) = std::fs::metadata(&p) {
        return Some(FileKey::Inode(m.dev(), m.ino()));
    }
    let dir = std::fs::canonicalize(parent_of(&p)).ok()?;
    Some(FileKey::Name(dir.join(p.file_name()?)))
}

/// Every output of one command, checked before any work: each can be written
/// ([`check_writable`]) and [`check_apart`].
pub fn check_outputs(outputs: &[(&str, Option<&Path>)], inputs: &[PathBuf]) -> anyhow::Result<()> {
    for path in outputs.iter().filter_map(|o| o.1) {
        check_writable(path)?;
    }
    check_apart(outputs, inputs)
}

/// None of `outputs` is one of `inputs` (a trace, a target file, a profile, a shard: compared
/// by file identity, through symlinks), and no two are the same file. `outputs` pairs each
/// flag with its path, if given, for the message.
pub fn check_apart(outputs: &[(&str, Option<&Path>)], inputs: &[PathBuf]) -> anyhow::Result<()> {
    let mut seen: Vec<(&str, FileKey)> = Vec::new();
    for &(flag, path) in outputs {
        let Some(path) = path else { continue };
        if let Some(key) = file_key(path) {
            check_not_input(path, &key, inputs)?;
            if let Some((other, _)) = seen.iter().find(|(_, k)| *k == key) {
                return Err(usage(format!(
                    "invalid {flag} \"{}\": it is also the {other} output (one result would be lost)",
                    path.display()
                )));
            }
            seen.push((flag, key));
        }
    }
    Ok(())
}

fn temp_name(p: &Path, tag: &str) -> PathBuf {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    parent_of(p).join(format!(".{name}.{}.{tag}", std::process::id()))
}

fn replace(p: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_name(p, "tmp");
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, p)?;
        // The rename itself is durable once the directory is synced.
        if let Ok(d) = File::open(parent_of(p)) {
            let _ = d.sync_all();
        }
        Ok(())
    };
    write().inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Writes `bytes` to `path` (see the module invariants).
pub fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let fail = |e: std::io::Error| anyhow::anyhow!("cannot write {}: {e}", path.display());
    match resolve(path)? {
        Sink::Replace(p) => replace(&p, bytes).map_err(fail),
        Sink::Through(p) => OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&p)
            .and_then(|mut f| f.write_all(bytes))
            .map_err(fail),
        Sink::Fd(fd) => {
            // What was printed through Rust's stdout must come first.
            std::io::stdout().flush().map_err(fail)?;
            // SAFETY: the descriptor belongs to this process and stays open: ManuallyDrop
            // never closes it.
            let mut f = ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
            f.write_all(bytes).and_then(|_| f.flush()).map_err(fail)
        }
    }
}

pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    write_output(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinks() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        assert_eq!(resolve(&f).unwrap(), Sink::Replace(f.clone()));
        std::fs::write(&f, "x").unwrap();
        let l = d.path().join("l");
        std::os::unix::fs::symlink("f", &l).unwrap();
        assert_eq!(resolve(&l).unwrap(), Sink::Replace(d.path().join("f")));
        let n = d.path().join("n");
        std::os::unix::fs::symlink("/dev/null", &n).unwrap();
        assert_eq!(resolve(&n).unwrap(), Sink::Through("/dev/null".into()));
        assert_eq!(resolve(Path::new("/dev/stdout")).unwrap(), Sink::Fd(1));
        assert_eq!(resolve(Path::new("/dev/fd/2")).unwrap(), Sink::Fd(2));
        assert!(resolve(d.path()).is_err());
        assert!(resolve(Path::new("/dev/ssdiq-no-such-device")).is_err());
        let loop_ = d.path().join("loop");
        std::os::unix::fs::symlink("loop", &loop_).unwrap();
        assert!(resolve(&loop_).is_err());
    }
}
