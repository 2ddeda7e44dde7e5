//! Block-device safety: refuse to destroy data nobody meant to give up.
//!
//! Before a job writes to a block device, [`check_destructive`] refuses if the device
//! - is mounted (itself or a partition of it), is active swap, or is held by another driver
//!   (device-mapper/LVM, md RAID, bcache: `/sys/class/block/X/holders`);
//! - has partitions;
//! - carries a filesystem, LVM, RAID, swap, bcache, LUKS or ZFS signature, or a partition table
//!   ([`detect_signature`] reads the first 192 KiB and the last 128 KiB, nothing more);
//!
//! unless `--allow-destroy DEVICE` names the same device again (compared by device number, so
//! `/dev/loop0` and a symlink to it match). An NVMe generic char device (`/dev/ngXnY`) is checked
//! as its namespace's block device (`/dev/nvmeXnY`): the same data. Regular files are not
//! checked: they are the user's own scratch space. Every refusal is one line saying exactly why.
//! Nothing here writes.

pub use crate::error::SafetyError;
use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

fn io_err(path: &Path, source: io::Error) -> SafetyError {
    SafetyError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Block device number of `path`, or `None` if it is not a block device.
fn block_rdev(path: &Path) -> io::Result<Option<u64>> {
    let m = std::fs::metadata(path)?;
    Ok(m.file_type().is_block_device().then(|| m.rdev()))
}

/// The block device whose data writing `path` changes, and its number: `path` itself if it is a
/// block device; for an NVMe generic char device (`/dev/ngXnY`), its namespace's block device
/// (`/dev/nvmeXnY`); `None` for anything else (a file), or a generic device whose namespace has
/// no block device (nothing can be mounted from it).
pub fn written_block_device(path: &Path) -> io::Result<Option<(PathBuf, u64)>> {
    let m = std::fs::metadata(path)?;
    if m.file_type().is_block_device() {
        return Ok(Some((path.to_path_buf(), m.rdev())));
    }
    if !m.file_type().is_char_device() {
        return Ok(None);
    }
    let Some(block) = crate::device::map_device(Path::new("/sys"), path)
        .ok()
        .filter(|d| d.kind == crate::NodeKind::NamespaceGeneric)
        .and_then(|d| d.block_name)
    else {
        return Ok(None);
    };
    let dev = PathBuf::from("/dev").join(block);
    Ok(block_rdev(&dev).ok().flatten().map(|r| (dev, r)))
}

/// Checks that `path` may be overwritten. `allow_destroy` is the device the user named with
/// `--allow-destroy`; it overrides every check only if it is the same device.
pub fn check_destructive(path: &Path, allow_destroy: Option<&Path>) -> Result<(), SafetyError> {
    let (path, rdev) = match written_block_device(path) {
        Ok(Some((p, r))) => (p, r),
        // A file that does not exist yet is created by the job: nothing to destroy.
        Ok(None) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(path, e)),
    };
    let shown = path.display();
    let path = path.as_path();
    if let Some(allowed) = allow_destroy {
        let other = match written_block_device(allowed) {
            Ok(o) => o.map(|(_, r)| r),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(SafetyError::Refused(format!(
                    "refusing to write to {shown}: --allow-destroy names {}, which does not exist",
                    allowed.display()
                )))
            }
            Err(e) => return Err(io_err(allowed, e)),
        };
        if other == Some(rdev) {
            return Ok(());
        }
        return Err(SafetyError::Refused(format!(
            "refusing to write to {shown}: --allow-destroy names {}, not this device",
            allowed.display()
        )));
    }
    let hint = format!("pass --allow-destroy {shown} to overwrite it anyway");
    let refuse = |why: String| {
        Err(SafetyError::Refused(format!(
            "refusing to write to {shown}: {why}; {hint}"
        )))
    };

    let name = sysfs_name(rdev);
    let parts = name.as_deref().map(partitions).unwrap_or_default();
    let mut devs: Vec<(String, u64)> =
        vec![(name.clone().unwrap_or_else(|| shown.to_string()), rdev)];
    devs.extend(parts.iter().cloned());

    for (n, d) in &devs {
        if let Some(mp) = mount_point_of(*d) {
            return refuse(format!("{n} is mounted at {mp}"));
        }
        if is_active_swap(*d) {
            return refuse(format!("{n} is in use as swap"));
        }
        if let Some(h) = holders(n).first() {
            return refuse(format!(
                "{n} is held by {h} (device-mapper, LVM, RAID or bcache)"
            ));
        }
    }
    if !parts.is_empty() {
        let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
        return refuse(format!("it has partitions ({})", names.join(", ")));
    }
    let f = File::open(path).map_err(|e| io_err(path, e))?;
    let size = device_size(&f).map_err(|e| io_err(path, e))?;
    if let Some(sig) = detect_signature(&f, size).map_err(|e| io_err(path, e))? {
        return refuse(format!("it holds {sig}"));
    }
    Ok(())
}

fn device_size(f: &File) -> io::Result<u64> {
    use std::os::fd::AsRawFd;
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    let mut v: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64 as _, &mut v as *mut u64) };
    if r < 0 {
        // Not a block device (tests on image files): use the length.
        return Ok(f.metadata()?.len());
    }
    Ok(v)
}

/// The kernel name (`sda`, `loop0`, `nvme0n1p1`) of a block device number.
fn sysfs_name(rdev: u64) -> Option<String> {
    let link = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
    let p = std::fs::canonicalize(link).ok()?;
    Some(p.file_name()?.to_string_lossy().into_owned())
}

/// Partitions of a whole device: subdirectories of its sysfs node that have a `partition` file.
fn partitions(name: &str) -> Vec<(String, u64)> {
    let dir = PathBuf::from("/sys/class/block").join(name);
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.join("partition").exists() {
            if let Some(d) = read_dev(&p.join("dev")) {
                out.push((e.file_name().to_string_lossy().into_owned(), d));
            }
        }
    }
    out.sort();
    out
}

fn read_dev(p: &Path) -> Option<u64> {
    let s = std::fs::read_to_string(p).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some(libc::makedev(a.parse().ok()?, b.parse().ok()?))
}

fn holders(name: &str) -> Vec<String> {
    let dir = PathBuf::from("/sys/class/block").join(name).join("holders");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Mount point of device `dev`, by mountinfo's device number or by its mount source path
/// (btrfs reports an anonymous device number).
fn mount_point_of(dev: u64) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 5 {
            continue;
        }
        let by_number = f[2]
            .split_once(':')
            .and_then(|(a, b)| Some(libc::makedev(a.parse().ok()?, b.parse().ok()?)))
            == Some(dev);
        let source = f
            .iter()
            .position(|&x| x == "-")
            .and_then(|i| f.get(i + 2))
            .copied();
        let by_source = source
            .filter(|s| s.starts_with('/'))
            .and_then(|s| block_rdev(Path::new(s)).ok().flatten())
            == Some(dev);
        if by_number || by_source {
            return Some(unescape(f[4]));
        }
    }
    None
}

/// mountinfo escapes spaces and such as `\040`.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 4], 8) {
                out.push(v as char);
                i += 4;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

fn is_active_swap(dev: u64) -> bool {
    let Ok(text) = std::fs::read_to_string("/proc/swaps") else {
        return false;
    };
    text.lines().skip(1).any(|l| {
        l.split_whitespace()
            .next()
            .and_then(|p| block_rdev(Path::new(p)).ok().flatten())
            == Some(dev)
    })
}

const HEAD: u64 = 192 << 10;
const TAIL: u64 = 128 << 10;

fn read_region(f: &impl FileExt, offset: u64, len: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len as usize];
    let mut done = 0usize;
    while done < buf.len() {
        match f.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(done);
    Ok(buf)
}

fn at(buf: &[u8], off: usize, len: usize) -> Option<&[u8]> {
    buf.get(off..off + len)
}

fn u32le(buf: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(at(buf, off, 4)?.try_into().ok()?))
}

const MD_MAGIC: u32 = 0xa92b_4efc;
const BCACHE_MAGIC: [u8; 16] = [
    0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81,
];

/// Describes the first known signature on a device or image of `size` bytes, e.g.
/// "an ext2/3/4 filesystem (magic 0xEF53 at byte 1080)". Reads only the head and tail.
pub fn detect_signature(f: &impl FileExt, size: u64) -> io::Result<Option<String>> {
    let head = read_region(f, 0, HEAD.min(size))?;
    let h = &head[..];
    let found = |what: &str, off: usize| Ok(Some(format!("{what} (signature at byte {off})")));

    if u32le(h, 0) == Some(MD_MAGIC) {
        return found("an md RAID member (v1.1 superblock)", 0);
    }
    if u32le(h, 4096) == Some(MD_MAGIC) {
        return found("an md RAID member (v1.2 superblock)", 4096);
    }
    if at(h, 1080, 2) == Some(&[0x53, 0xef]) {
        return Ok(Some(
            "an ext2/3/4 filesystem (magic 0xEF53 at byte 1080)".to_string(),
        ));
    }
    if at(h, 0, 4) == Some(b"XFSB") {
        return found("an XFS filesystem", 0);
    }
    if at(h, 65600, 8) == Some(b"_BHRfS_M") {
        return found("a btrfs filesystem", 65600);
    }
    if at(h, 1024, 4) == Some(&0xF2F5_2010u32.to_le_bytes()) {
        return found("an F2FS filesystem", 1024);
    }
    if at(h, 0, 6) == Some(b"LUKS\xba\xbe") {
        return found("a LUKS encrypted volume", 0);
    }
    for sector in 0..4usize {
        if at(h, sector * 512, 8) == Some(b"LABELONE") {
            return found("an LVM2 physical volume", sector * 512);
        }
    }
    for page in [4096usize, 8192, 16384, 65536] {
        let off = page - 10;
        if matches!(at(h, off, 10), Some(b"SWAPSPACE2") | Some(b"SWAP-SPACE")) {
            return found("a swap area", off);
        }
    }
    if at(h, 4096 + 24, 16) == Some(&BCACHE_MAGIC) {
        return found("a bcache device", 4096 + 24);
    }
    for off in [512usize, 4096] {
        if at(h, off, 8) == Some(b"EFI PART") {
            return found("a GPT partition table", off);
        }
    }
    if at(h, 3, 8) == Some(b"NTFS    ") {
        return found("an NTFS filesystem", 3);
    }
    if at(h, 3, 8) == Some(b"EXFAT   ") {
        return found("an exFAT filesystem", 3);
    }
    if at(h, 510, 2) == Some(&[0x55, 0xaa]) {
        if at(h, 82, 5) == Some(b"FAT32") || at(h, 54, 3) == Some(b"FAT") {
            return found("a FAT filesystem", 510);
        }
        let table = (0..4).any(|i| h.get(446 + 16 * i + 4).is_some_and(|&t| t != 0));
        if table {
            return found("an MBR partition table", 510);
        }
    }
    // ZFS: the first uberblock of label L0 (128 KiB into the device), either byte order.
    if let Some(b) = at(h, 128 << 10, 8) {
        let m = 0x00ba_b10cu64;
        if b == m.to_le_bytes() || b == m.to_be_bytes() {
            return found("a ZFS pool member", 128 << 10);
        }
    }
    // md v0.90 (64 KiB-aligned, 64 KiB before the end) and v1.0 (8 KiB before the end, 4 KiB
    // aligned) superblocks live at the end of the device.
    if size >= TAIL {
        let tail_start = size - TAIL;
        let tail = read_region(f, tail_start, TAIL)?;
        let v090 = (size & !0xffff).saturating_sub(0x10000);
        let v10 = (((size >> 9).saturating_sub(16)) & !7) << 9;
        for (off, what) in [
            (v090, "an md RAID member (v0.90 superblock)"),
            (v10, "an md RAID member (v1.0 superblock)"),
        ] {
            if off >= tail_start && u32le(&tail, (off - tail_start) as usize) == Some(MD_MAGIC) {
                return Ok(Some(format!("{what} (signature at byte {off})")));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn image(size: u64, patches: &[(u64, &[u8])]) -> File {
        let mut f = tempfile_in_tmp();
        f.set_len(size).unwrap();
        for (off, bytes) in patches {
            f.write_all_at(bytes, *off).unwrap();
        }
        f.flush().unwrap();
        f
    }

    fn tempfile_in_tmp() -> File {
        let dir = std::env::temp_dir();
        let p = dir.join(format!(
            "ssdiq-safety-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&p)
            .unwrap();
        let _ = std::fs::remove_file(&p);
        f
    }

    fn sig(size: u64, patches: &[(u64, &[u8])]) -> Option<String> {
        let f = image(size, patches);
        detect_signature(&f, size).unwrap()
    }

    #[test]
    fn blank_image_has_no_signature() {
        assert_eq!(sig(1 << 20, &[]), None);
        assert_eq!(sig(1000, &[]), None);
    }

    #[test]
    fn detects_known_signatures() {
        let m = 1u64 << 20;
        let md = MD_MAGIC.to_le_bytes();
        let zfs = 0x00bab10cu64.to_le_bytes();
        type Patches = Vec<(u64, Vec<u8>)>;
        let cases: Vec<(Patches, &str)> = vec![
            (vec![(1080, vec![0x53, 0xef])], "ext2/3/4"),
            (vec![(0, b"XFSB".to_vec())], "XFS"),
            (vec![(65600, b"_BHRfS_M".to_vec())], "btrfs"),
            (vec![(4086, b"SWAPSPACE2".to_vec())], "swap"),
            (vec![(65526, b"SWAP-SPACE".to_vec())], "swap"),
            (vec![(512, b"LABELONE".to_vec())], "LVM2"),
            (vec![(512, b"EFI PART".to_vec())], "GPT"),
            (vec![(4096, md.to_vec())], "v1.2"),
            (vec![(0, md.to_vec())], "v1.1"),
            (vec![(4120, BCACHE_MAGIC.to_vec())], "bcache"),
            (vec![(0, b"LUKS\xba\xbe".to_vec())], "LUKS"),
            (vec![(510, vec![0x55, 0xaa]), (446 + 4, vec![0x83])], "MBR"),
            (vec![(131072, zfs.to_vec())], "ZFS"),
        ];
        for (patches, want) in cases {
            let p: Vec<(u64, &[u8])> = patches.iter().map(|(o, b)| (*o, b.as_slice())).collect();
            let got = sig(m, &p).unwrap_or_default();
            assert!(got.contains(want), "{want}: got {got:?}");
        }
        // An empty MBR (boot code signature, no partition entries) is not a table.
        assert_eq!(sig(m, &[(510, &[0x55, 0xaa])]), None);
    }

    #[test]
    fn detects_md_superblocks_at_the_end() {
        let size = (8u64 << 20) + 12345 * 512;
        let v090 = (size & !0xffff) - 0x10000;
        let got = sig(size, &[(v090, &MD_MAGIC.to_le_bytes())]).unwrap();
        assert!(got.contains("v0.90"), "{got}");
        let v10 = (((size >> 9) - 16) & !7) << 9;
        let got = sig(size, &[(v10, &MD_MAGIC.to_le_bytes())]).unwrap();
        assert!(got.contains("v1.0"), "{got}");
    }

    #[test]
    fn real_mkfs_ext4_image_is_detected() {
        let Ok(out) = std::process::Command::new("mkfs.ext4").arg("-V").output() else {
            eprintln!("skipped: mkfs.ext4 not installed");
            return;
        };
        if !out.status.success() {
            eprintln!("skipped: mkfs.ext4 -V failed");
            return;
        }
        let p = std::env::temp_dir().join(format!("ssdiq-safety-ext4-{}.img", std::process::id()));
        let f = File::create(&p).unwrap();
        f.set_len(8 << 20).unwrap();
        drop(f);
        let ok = std::process::Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .arg(&p)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let f = File::open(&p).unwrap();
        let got = detect_signature(&f, 8 << 20).unwrap();
        let _ = std::fs::remove_file(&p);
        assert!(got.unwrap().contains("ext2/3/4"));
    }

    #[test]
    fn regular_files_are_not_checked() {
        let p = std::env::temp_dir().join(format!("ssdiq-safety-file-{}", std::process::id()));
        std::fs::write(&p, b"XFSB").unwrap();
        assert!(check_destructive(&p, None).is_ok());
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn unescapes_mountinfo_paths() {
        assert_eq!(unescape("/mnt/a\\040b"), "/mnt/a b");
    }
}
