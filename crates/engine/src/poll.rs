//! Whether a target's block device completes polled I/O (`--hipri`): its request queue must
//! have poll queues (`queue/io_poll` reads 1 in sysfs), which an NVMe drive has only when its
//! driver was loaded with `poll_queues=N`. Without them the kernel fails every polled request
//! (EOPNOTSUPP), so the job is refused before it starts, with how to get them.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The sysfs directory of the whole block device behind `dev` (a `major:minor`): a
/// partition's parent.
fn whole_device(dev: u64) -> Option<PathBuf> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let dir = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    if dir.join("partition").exists() {
        return dir.parent().map(Path::to_path_buf);
    }
    Some(dir)
}

/// `Ok` when the block device under `target` (a block device, a file, or the directory a new
/// file will be created in) has poll queues; else why not and what to do. Asked before the
/// target is opened, so a refused job creates nothing.
pub fn check_poll_queues(target: &Path) -> Result<(), String> {
    let path = target.display().to_string();
    let meta = std::fs::metadata(target)
        .or_else(|e| match target.parent() {
            Some(dir) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::metadata(if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                })
            }
            _ => Err(e),
        })
        .map_err(|e| format!("invalid --hipri for {path}: cannot stat it: {e}"))?;
    use std::os::unix::fs::FileTypeExt;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else if meta.file_type().is_char_device() {
        // An NVMe generic device polls on its namespace's queues.
        match ssdiq_nvme::safety::written_block_device(target) {
            Ok(Some((_, rdev))) => rdev,
            _ => {
                return Err(format!(
                    "invalid --hipri for {path}: no NVMe namespace block device found for it"
                ))
            }
        }
    } else {
        meta.dev()
    };
    let Some(dir) = whole_device(dev) else {
        return Err(format!(
            "invalid --hipri for {path}: it is on a file system with no block device under it (tmpfs?); polled I/O needs an NVMe device with poll queues"
        ));
    };
    let name = dir
        .file_name()
        .map_or("?".into(), |n| n.to_string_lossy().into_owned());
    match std::fs::read_to_string(dir.join("queue/io_poll")) {
        Ok(v) if v.trim() == "1" => Ok(()),
        _ => Err(format!(
            "invalid --hipri for {path}: /dev/{name} has no poll queues (queue/io_poll is not 1); an NVMe drive gets them from its driver: `modprobe nvme poll_queues=2` (or nvme.poll_queues=2 on the kernel command line); loop and virtio devices cannot poll"
        )),
    }
}
