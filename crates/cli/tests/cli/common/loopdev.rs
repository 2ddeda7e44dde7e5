//! Loop devices for end-to-end tests on block devices without hardware. They need root and
//! losetup; without them `Loop::attach` says why and returns None, and the test passes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

/// Loop tests run one at a time: attaching, mounting and detaching devices concurrently races
/// on device numbers (a just-detached device is handed to the next test while still closing).
pub fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A loop device over a backing file, detached (and unmounted) on drop.
pub struct Loop {
    pub dev: String,
    pub mount: Option<PathBuf>,
}

impl Loop {
    /// Attaches `backing`; `None` (with the reason printed) if not root or losetup fails.
    pub fn attach(backing: &Path) -> Option<Loop> {
        if !is_root() {
            eprintln!("skipped: loop-device tests need root");
            return None;
        }
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(backing)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(Loop {
                dev: String::from_utf8_lossy(&o.stdout).trim().to_string(),
                mount: None,
            }),
            Ok(o) => {
                eprintln!(
                    "skipped: losetup failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("skipped: losetup not runnable: {e}");
                None
            }
        }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if let Some(m) = &self.mount {
            let _ = Command::new("umount").arg(m).status();
        }
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// Root, which losetup and device-mapper need.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

pub fn backing(dir: &Path, name: &str, size: u64) -> PathBuf {
    let p = dir.join(name);
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(size).unwrap();
    p
}

pub fn mkfs_ext4(p: &Path) -> bool {
    match Command::new("mkfs.ext4").args(["-q", "-F"]).arg(p).status() {
        Ok(s) if s.success() => true,
        _ => {
            eprintln!("skipped: mkfs.ext4 unavailable");
            false
        }
    }
}

/// FNV-1a over the whole file: any changed byte changes it.
pub fn checksum(p: &Path) -> u64 {
    std::fs::read(p)
        .unwrap()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        })
}

/// A fresh ext4 image of `size` bytes in `dir`, attached: (image, device). None (with the
/// reason printed) where mkfs.ext4 or loop devices are unavailable.
pub fn ext4_on_loop(dir: &Path, size: u64) -> Option<(PathBuf, Loop)> {
    let img = backing(dir, "ext4.img", size);
    if !mkfs_ext4(&img) {
        return None;
    }
    Loop::attach(&img).map(|lo| (img, lo))
}
