//! A small tmpfs mounted in a temporary directory, for filesystems that run full on purpose.
//! Needs root; without it (or where mount fails) `Tmpfs::mount` says why and returns None.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Tmpfs {
    pub path: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs at `at` with mount options `opts` (e.g. `size=8m`, `ro,size=1m`).
    pub fn mount(at: &Path, opts: &str) -> Option<Tmpfs> {
        if !super::loopdev::is_root() {
            eprintln!("skipped: mounting a tmpfs needs root");
            return None;
        }
        std::fs::create_dir_all(at).unwrap();
        let st = Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
            .arg(at)
            .status();
        match st {
            Ok(s) if s.success() => Some(Tmpfs {
                path: at.to_path_buf(),
            }),
            other => {
                eprintln!("skipped: mount -t tmpfs failed: {other:?}");
                None
            }
        }
    }

    /// Takes every free byte with a filler file.
    pub fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.path.join("filler")).unwrap();
        let chunk = vec![0xa5u8; 64 << 10];
        while f.write_all(&chunk).is_ok() {}
        let one = [0xa5u8; 4096];
        while f.write_all(&one).is_ok() {}
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let plain = Command::new("umount").arg(&self.path).output();
        if !plain.as_ref().is_ok_and(|o| o.status.success()) {
            // Busy for a moment (a child's descriptors closing): detach it lazily.
            eprintln!(
                "umount {}: {plain:?}; detaching lazily",
                self.path.display()
            );
            let _ = Command::new("umount").arg("-l").arg(&self.path).output();
        }
    }
}
