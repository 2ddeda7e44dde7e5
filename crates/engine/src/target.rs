//! Opening one path of a target: a block device, a regular file or an NVMe generic device.
//!
//! Invariants:
//! - [`TargetFacts::probe`] has no side effects; it reads what the job must be checked against
//!   (kind, logical block size, size) so bad options fail before anything is created.
//! - [`crate::job_target::Target::open`] validates the job against the facts first, then
//!   [`Member::open`] creates/extends a file
//!   to the job's range; block devices opened for writing use O_EXCL, which the kernel refuses
//!   while the device is mounted or held by another driver.
//! - Trim and write-zeroes map to BLKDISCARD/BLKZEROOUT on devices and to fallocate
//!   PUNCH_HOLE|KEEP_SIZE / ZERO_RANGE on files; both read back as zeros afterwards on files
//!   (devices: zeros if the device guarantees deterministic read-after-trim).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use ssdiq_workload::Op;

use crate::error::EngineError;
use crate::job::Job;

const BLKSSZGET: libc::c_ulong = 0x1268;
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
const BLKDISCARD: libc::c_ulong = 0x1277;
const BLKZEROOUT: libc::c_ulong = 0x127f;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Block,
    File,
    /// An NVMe generic char device (`/dev/ngXnY`): NVMe commands only (`--engine uring-cmd`).
    NvmeChar,
}

#[derive(Clone, Debug)]
pub struct TargetFacts {
    pub path: PathBuf,
    pub kind: TargetKind,
    /// Logical block size: O_DIRECT offsets and lengths must be multiples of it.
    pub logical_block: u64,
    /// Device size, or current file length (None: the file does not exist yet).
    pub size: Option<u64>,
}

fn ioctl_u64(fd: RawFd, req: libc::c_ulong) -> io::Result<u64> {
    let mut v: u64 = 0;
    // SAFETY: the request writes one u64 (BLKGETSIZE64) into v.
    let r = unsafe { libc::ioctl(fd, req as _, &mut v as *mut u64) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(v)
}

fn ioctl_int(fd: RawFd, req: libc::c_ulong) -> io::Result<u64> {
    let mut v: libc::c_int = 0;
    // SAFETY: the request writes one int (BLKSSZGET) into v.
    let r = unsafe { libc::ioctl(fd, req as _, &mut v as *mut libc::c_int) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(v as u64)
}

/// Logical block size of the device holding a file, from sysfs; 512 if unknown.
fn file_logical_block(dev: u64) -> u64 {
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    for rel in ["queue/logical_block_size", "../queue/logical_block_size"] {
        let p = format!("/sys/dev/block/{maj}:{min}/{rel}");
        if let Some(v) = std::fs::read_to_string(p)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
        {
            return v;
        }
    }
    512
}

impl TargetFacts {
    pub fn probe(path: &Path) -> Result<TargetFacts, EngineError> {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let dir = path
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let dev = std::fs::metadata(dir).map_err(|_| {
                    EngineError::Invalid(format!(
                        "cannot create target \"{}\": directory \"{}\" does not exist",
                        path.display(),
                        dir.display()
                    ))
                })?;
                return Ok(TargetFacts {
                    path: path.to_path_buf(),
                    kind: TargetKind::File,
                    logical_block: file_logical_block(dev.dev()),
                    size: None,
                });
            }
            Err(e) => {
                return Err(EngineError::io(
                    format!("cannot stat {}", path.display()),
                    e,
                ))
            }
        };
        let ft = meta.file_type();
        if ft.is_block_device() {
            let f = File::open(path)
                .map_err(|e| EngineError::io(format!("cannot open {}", path.display()), e))?;
            let lbs =
                ioctl_int(f.as_raw_fd(), BLKSSZGET).map_err(|e| EngineError::io("BLKSSZGET", e))?;
            let size = ioctl_u64(f.as_raw_fd(), BLKGETSIZE64)
                .map_err(|e| EngineError::io("BLKGETSIZE64", e))?;
            Ok(TargetFacts {
                path: path.to_path_buf(),
                kind: TargetKind::Block,
                logical_block: lbs.max(1),
                size: Some(size),
            })
        } else if ft.is_char_device() {
            let dev = ssdiq_nvme::Device::open(path).map_err(|e| {
                EngineError::Invalid(format!(
                    "invalid target \"{}\": a character device that is no NVMe namespace ({e}); expected a block device, a regular file or an NVMe generic device /dev/ngXnY",
                    path.display()
                ))
            })?;
            let nvme = |e: ssdiq_nvme::NvmeError| {
                EngineError::Invalid(format!("cannot identify {}: {e}", path.display()))
            };
            Ok(TargetFacts {
                path: path.to_path_buf(),
                kind: TargetKind::NvmeChar,
                logical_block: dev.block_size().map_err(nvme)?,
                size: Some(dev.namespace_bytes().map_err(nvme)?),
            })
        } else if ft.is_file() {
            Ok(TargetFacts {
                path: path.to_path_buf(),
                kind: TargetKind::File,
                logical_block: file_logical_block(meta.dev()),
                size: Some(meta.len()),
            })
        } else {
            Err(EngineError::Invalid(format!(
                "invalid target \"{}\": expected a block device, a regular file or an NVMe generic device /dev/ngXnY",
                path.display()
            )))
        }
    }

    /// A RAID0 over the comma-separated block devices of `list` in chunks of `chunk` bytes:
    /// the whole's facts (the largest logical block, each member's size cut to whole chunks
    /// of the smallest) and each member's.
    pub fn probe_striped(
        list: &str,
        chunk: u64,
    ) -> Result<(TargetFacts, Vec<TargetFacts>), EngineError> {
        let paths: Vec<&str> = list.split(',').collect();
        if paths.len() < 2 || paths.iter().any(|p| p.is_empty()) {
            return Err(EngineError::Invalid(format!(
                "invalid target \"{list}\" with --stripe: expected two or more block devices separated by commas"
            )));
        }
        let mut members = Vec::with_capacity(paths.len());
        for p in &paths {
            let f = TargetFacts::probe(Path::new(p))?;
            if f.kind != TargetKind::Block {
                return Err(EngineError::Invalid(format!(
                    "invalid --stripe member \"{p}\": not a block device (a RAID0 stripes block devices)"
                )));
            }
            if paths.iter().filter(|q| *q == p).count() > 1 {
                return Err(EngineError::Invalid(format!(
                    "invalid target \"{list}\": {p} is named twice"
                )));
            }
            members.push(f);
        }
        let logical_block = members.iter().map(|m| m.logical_block).max().unwrap_or(512);
        if !chunk.is_multiple_of(logical_block) {
            return Err(EngineError::Invalid(format!(
                "invalid --stripe \"{chunk}\": not a multiple of the members' logical block size {logical_block}"
            )));
        }
        let each = members.iter().filter_map(|m| m.size).min().unwrap_or(0) / chunk * chunk;
        let whole = TargetFacts {
            path: PathBuf::from(list),
            kind: TargetKind::Block,
            logical_block,
            size: Some(each * members.len() as u64),
        };
        Ok((whole, members))
    }

    /// Checks the job against the target: alignment under O_DIRECT, range within a device.
    pub fn check(&self, job: &Job) -> Result<(), EngineError> {
        let lbs = self.logical_block;
        let passthrough = job.engine == crate::job::EngineKind::UringCmd;
        if passthrough && self.kind != TargetKind::NvmeChar {
            return Err(EngineError::Invalid(format!(
                "invalid --engine uring-cmd for {}: it sends NVMe commands to a generic char device (/dev/ngXnY; `ls /dev/ng*`)",
                self.path.display()
            )));
        }
        if !passthrough && self.kind == TargetKind::NvmeChar {
            return Err(EngineError::Invalid(format!(
                "invalid --engine {} for {}: an NVMe generic char device takes NVMe commands only (--engine uring-cmd), or use its block device",
                job.engine.name(),
                self.path.display()
            )));
        }
        if job.direct {
            if !job.bs.is_multiple_of(lbs) {
                return Err(EngineError::Invalid(format!(
                    "invalid --bs \"{}\": not a multiple of the logical block size {lbs} of {} (O_DIRECT); use a multiple or --buffered",
                    job.bs,
                    self.path.display()
                )));
            }
            if !job.offset_bytes.is_multiple_of(lbs) {
                return Err(EngineError::Invalid(format!(
                    "invalid --offset \"{}\": not a multiple of the logical block size {lbs} of {} (O_DIRECT); use a multiple or --buffered",
                    job.offset_bytes,
                    self.path.display()
                )));
            }
            if !job.offset_align.is_multiple_of(lbs) {
                return Err(EngineError::Invalid(format!(
                    "invalid --offset-align \"{}\": not a multiple of the logical block size {lbs} of {} (O_DIRECT)",
                    job.offset_align,
                    self.path.display()
                )));
            }
        }
        if self.kind != TargetKind::File {
            let size = self.size.unwrap_or(0);
            if job.extent() > size {
                return Err(EngineError::Invalid(format!(
                    "invalid {}: beyond the end of {} ({} bytes)",
                    job.extent_flags(),
                    self.path.display(),
                    size
                )));
            }
        }
        Ok(())
    }
}

/// One opened path of a job's target ([`crate::job_target::Target`]: one, or several striped).
pub struct Member {
    pub file: File,
    pub facts: TargetFacts,
    /// The namespace of an NVMe generic char device: its ID, and synchronous commands for the
    /// fill, trims and the read-back.
    pub nvme: Option<ssdiq_nvme::Device>,
    /// A file whose range has holes and a job that reads it: the holes are laid out
    /// (written) before the job, see `crate::fill::fill_holes`.
    pub needs_layout: bool,
}

/// True when `[0, range)` of the file at `path` may have holes: it is shorter than the range,
/// or fewer bytes are allocated than the range holds.
fn may_have_holes(path: &Path, range: u64) -> bool {
    match std::fs::metadata(path) {
        Ok(m) => m.len() < range || m.blocks().saturating_mul(512) < range.min(m.len()),
        Err(_) => true,
    }
}

impl Member {
    /// Opens the path of `facts`, checked against `job` by the caller (creating or extending a
    /// file to the job's range).
    pub fn open(facts: TargetFacts, job: &Job) -> Result<Member, EngineError> {
        let needs_layout = facts.kind == TargetKind::File
            && job.reads()
            && job.fill.is_none()
            && may_have_holes(&facts.path, job.range_bytes);
        let writes = job.writes() || needs_layout;
        let mut oo = OpenOptions::new();
        oo.read(true).write(writes);
        let mut flags = 0;
        // A generic char device has no page cache to bypass (and takes no O_DIRECT).
        if job.direct && facts.kind != TargetKind::NvmeChar {
            flags |= libc::O_DIRECT;
        }
        match facts.kind {
            TargetKind::Block if writes => flags |= libc::O_EXCL,
            TargetKind::File if writes || facts.size.unwrap_or(0) < job.extent() => {
                oo.write(true).create(true);
            }
            _ => {}
        }
        oo.custom_flags(flags);
        // udev probes a device after a writer closes it and holds it for a moment (longer on
        // a loaded machine: a second was seen to fall short); a busy device is retried for up
        // to five seconds before it counts as in use.
        let mut opened = oo.open(&facts.path);
        for _ in 0..100 {
            match &opened {
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    opened = oo.open(&facts.path);
                }
                _ => break,
            }
        }
        let file = opened.map_err(|e| {
            if job.direct && e.raw_os_error() == Some(libc::EINVAL) {
                EngineError::Invalid(format!(
                    "cannot open {} with O_DIRECT (the filesystem does not support it); use --buffered",
                    facts.path.display()
                ))
            } else if needs_layout && !job.writes() {
                EngineError::Invalid(format!(
                    "cannot lay out {}: it has unwritten holes, and reading a hole measures the page cache's zeros, not the storage ({e}); make it writable or write it first (--fill seq)",
                    facts.path.display()
                ))
            } else if e.raw_os_error() == Some(libc::EBUSY) {
                EngineError::Refused(format!(
                    "refusing to write to {}: the device is busy (mounted or held by another driver)",
                    facts.path.display()
                ))
            } else {
                EngineError::io(format!("cannot open {}", facts.path.display()), e)
            }
        })?;
        if facts.kind == TargetKind::File && facts.size.unwrap_or(0) < job.extent() {
            file.set_len(job.extent()).map_err(|e| {
                EngineError::io(
                    format!(
                        "cannot extend {} to {} bytes",
                        facts.path.display(),
                        job.extent()
                    ),
                    e,
                )
            })?;
        }
        let nvme = match facts.kind {
            TargetKind::NvmeChar => Some(ssdiq_nvme::Device::open(&facts.path).map_err(|e| {
                EngineError::Invalid(format!("cannot open {}: {e}", facts.path.display()))
            })?),
            _ => None,
        };
        Ok(Member {
            file,
            facts,
            nvme,
            needs_layout,
        })
    }

    /// The namespace ID of an NVMe generic char device.
    pub fn nsid(&self) -> Option<u32> {
        self.nvme.as_ref().and_then(|d| d.nsid())
    }

    /// Writes `buf` at `offset`, synchronously (the fill and the layout).
    pub fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        match &self.nvme {
            Some(d) => d
                .write(
                    offset / self.facts.logical_block,
                    buf,
                    ssdiq_nvme::Placement::None,
                )
                .map_err(io::Error::other),
            None => self.file.write_all_at(buf, offset),
        }
    }

    /// Reads `buf.len()` bytes at `offset`, synchronously (`--verify`'s read-back).
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        match &self.nvme {
            Some(d) => d
                .read(offset / self.facts.logical_block, buf)
                .map_err(io::Error::other),
            None => self.file.read_exact_at(buf, offset),
        }
    }

    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    pub fn is_file(&self) -> bool {
        self.facts.kind == TargetKind::File
    }

    /// The holes of `[0, end)`: ranges that read as zeros without touching storage.
    pub fn holes(&self, end: u64) -> Vec<(u64, u64)> {
        let fd = self.fd();
        let mut out = Vec::new();
        let mut pos = 0u64;
        while pos < end {
            // SAFETY: plain lseek on an open descriptor.
            let h = unsafe { libc::lseek(fd, pos as libc::off_t, libc::SEEK_HOLE) };
            if h < 0 || h as u64 >= end {
                break;
            }
            let h = h as u64;
            // SAFETY: as above. ENXIO: no data after the hole, it runs to the end.
            let d = unsafe { libc::lseek(fd, h as libc::off_t, libc::SEEK_DATA) };
            let d = if d < 0 { end } else { (d as u64).min(end) };
            if d > h {
                out.push((h, d));
            }
            pos = d.max(h + 1);
        }
        out
    }

    /// Why a read or write of `[offset, offset + len)` came back short: the kernel only says
    /// so on the next call (a write that filled the filesystem returns the bytes it placed,
    /// the next one ENOSPC). The remainder `[offset + done, offset + len)` is tried once more,
    /// synchronously, and its errno returned; `None` if it went through (or a read hit the
    /// end). Cold path: allocates.
    pub fn why_short(&self, op: Op, offset: u64, len: u64, done: u64) -> Option<i32> {
        let rest = len.checked_sub(done).filter(|&r| r > 0)?;
        let mut buf = crate::buf::aligned_zeroed(rest as usize);
        let at = (offset + done) as libc::off_t;
        // SAFETY: the buffer holds `rest` bytes; plain syscalls on an open descriptor.
        let r = unsafe {
            match op {
                Op::Read => libc::pread(self.fd(), buf.as_mut_ptr().cast(), rest as usize, at),
                Op::Write => libc::pwrite(self.fd(), buf.as_mut_ptr().cast(), rest as usize, at),
                Op::Trim | Op::WriteZeroes => return None,
            }
        };
        (r < 0).then(|| {
            io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        })
    }

    /// Discards `[offset, offset+len)`. Returns the errno on failure.
    pub fn trim(&self, offset: u64, len: u64) -> Result<(), i32> {
        if let Some(d) = &self.nvme {
            let lbs = self.facts.logical_block;
            let (mut slba, end) = (offset / lbs, (offset + len).div_ceil(lbs));
            while slba < end {
                // One range of at most u32::MAX blocks per command.
                let nlb = (end - slba).min(u32::MAX as u64) as u32;
                d.deallocate(&[ssdiq_nvme::DsmRange { slba, nlb }])
                    .map_err(|_| libc::EIO)?;
                slba += nlb as u64;
            }
            return Ok(());
        }
        match self.facts.kind {
            TargetKind::Block | TargetKind::NvmeChar => {
                range_ioctl(self.fd(), BLKDISCARD, offset, len)
            }
            TargetKind::File => fallocate(
                self.fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset,
                len,
            ),
        }
    }

    /// Zeroes `[offset, offset+len)` without transferring data.
    pub fn write_zeroes(&self, offset: u64, len: u64) -> Result<(), i32> {
        if let Some(d) = &self.nvme {
            let lbs = self.facts.logical_block;
            return d
                .write_zeroes(offset / lbs, len.div_ceil(lbs))
                .map_err(|_| libc::EIO);
        }
        match self.facts.kind {
            TargetKind::Block | TargetKind::NvmeChar => {
                range_ioctl(self.fd(), BLKZEROOUT, offset, len)
            }
            TargetKind::File => fallocate(
                self.fd(),
                libc::FALLOC_FL_ZERO_RANGE | libc::FALLOC_FL_KEEP_SIZE,
                offset,
                len,
            ),
        }
    }
}

fn range_ioctl(fd: RawFd, req: libc::c_ulong, offset: u64, len: u64) -> Result<(), i32> {
    let range = [offset, len];
    // SAFETY: BLKDISCARD/BLKZEROOUT read a [u64; 2] (start, length).
    let r = unsafe { libc::ioctl(fd, req as _, range.as_ptr()) };
    if r < 0 {
        return Err(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO));
    }
    Ok(())
}

fn fallocate(fd: RawFd, mode: libc::c_int, offset: u64, len: u64) -> Result<(), i32> {
    // SAFETY: plain syscall on an open descriptor.
    let r = unsafe { libc::fallocate(fd, mode, offset as libc::off_t, len as libc::off_t) };
    if r < 0 {
        return Err(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO));
    }
    Ok(())
}
