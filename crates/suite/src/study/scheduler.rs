//! The Linux I/O scheduler of a block device, through sysfs
//! (`/sys/dev/block/MAJ:MIN/queue/scheduler`, of the whole disk for a partition).
//!
//! Invariant: a [`SchedulerGuard`] puts back the scheduler it found when it is dropped, so a
//! study that ends by error, by Ctrl-C or normally leaves the device as it was.

use std::os::unix::fs::FileTypeExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::target::SuiteError;

/// The scheduler file of the disk behind `device`.
fn sysfs_file(device: &str) -> Result<PathBuf, SuiteError> {
    let not_block = || {
        SuiteError::Invalid(format!(
            "the io-scheduler study needs a block device (its Linux I/O scheduler is set in sysfs); \"{device}\" is not one"
        ))
    };
    let meta = std::fs::metadata(device).map_err(|_| not_block())?;
    if !meta.file_type().is_block_device() {
        return Err(not_block());
    }
    let rdev = meta.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let dir = Path::new("/sys/dev/block").join(format!("{major}:{minor}"));
    let dir = std::fs::canonicalize(&dir).map_err(|e| {
        SuiteError::Invalid(format!(
            "cannot find {device} in sysfs ({}): {e}",
            dir.display()
        ))
    })?;
    for d in [dir.clone(), dir.join("..")] {
        let f = d.join("queue/scheduler");
        if f.exists() {
            return Ok(f);
        }
    }
    Err(SuiteError::Invalid(format!(
        "{device} has no I/O scheduler in sysfs ({}/queue/scheduler)",
        dir.display()
    )))
}

/// `[none] mq-deadline kyber` -> (all, the active one).
fn parse(text: &str) -> (Vec<String>, Option<String>) {
    let mut all = Vec::new();
    let mut active = None;
    for w in text.split_whitespace() {
        let name = w.trim_start_matches('[').trim_end_matches(']').to_string();
        if w.starts_with('[') {
            active = Some(name.clone());
        }
        all.push(name);
    }
    (all, active)
}

/// The schedulers of a block device, and the one to restore.
pub struct SchedulerGuard {
    file: PathBuf,
    pub available: Vec<String>,
    original: String,
}

impl SchedulerGuard {
    /// Reads the device's schedulers and checks that they can be set (root).
    pub fn open(device: &str) -> Result<Self, SuiteError> {
        let file = sysfs_file(device)?;
        let text = std::fs::read_to_string(&file)
            .map_err(|e| SuiteError::Invalid(format!("cannot read {}: {e}", file.display())))?;
        let (available, active) = parse(&text);
        let original = active.ok_or_else(|| {
            SuiteError::Invalid(format!(
                "{} names no active scheduler: \"{}\"",
                file.display(),
                text.trim()
            ))
        })?;
        let g = SchedulerGuard {
            file,
            available,
            original,
        };
        // Writing the active one back changes nothing and fails early without root.
        g.set(&g.original.clone())?;
        Ok(g)
    }

    pub fn set(&self, name: &str) -> Result<(), SuiteError> {
        std::fs::write(&self.file, name).map_err(|e| {
            SuiteError::Invalid(format!(
                "cannot set the I/O scheduler to {name} ({}): {e}; setting it needs root",
                self.file.display()
            ))
        })?;
        let now = std::fs::read_to_string(&self.file)
            .map(|t| parse(&t).1)
            .unwrap_or_default();
        if now.as_deref() != Some(name) {
            return Err(SuiteError::Invalid(format!(
                "the I/O scheduler of {} is {} after setting {name}",
                self.file.display(),
                now.unwrap_or_else(|| "unknown".into())
            )));
        }
        Ok(())
    }
}

impl Drop for SchedulerGuard {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.file, &self.original);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_sysfs_list() {
        let (all, active) = parse("none [mq-deadline] kyber bfq \n");
        assert_eq!(all, ["none", "mq-deadline", "kyber", "bfq"]);
        assert_eq!(active.as_deref(), Some("mq-deadline"));
        assert_eq!(parse("none\n").1, None);
    }

    #[test]
    fn a_file_is_not_a_block_device() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let e = SchedulerGuard::open(f.path().to_str().unwrap())
            .err()
            .unwrap();
        assert!(e.to_string().contains("needs a block device"), "{e}");
        assert!(e.is_usage());
    }
}
