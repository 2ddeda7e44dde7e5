//! An open NVMe namespace or controller: sysfs mapping plus typed admin and I/O commands.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use ssdiq_schema::info::WriteCounters;

use aligned_vec::{avec, AVec, ConstAlign};

use crate::cmd::{self, lid, DsmRange, Placement, SanitizeAction, SecureErase, NSID_ALL};
use crate::fdp::{self, FdpConfig, FdpStats, RuhAttributes, RuhStatus};
use crate::identify::{self, IdentifyController, IdentifyNamespace};
use crate::ioctl::{self, Outcome, PassthruCmd64, Queue};
use crate::ocp::{self, OcpSmartLog};
use crate::reset::{self, ResetMethod, SanitizeStatus};
use crate::smart::{self, SmartLog};
use crate::NvmeError;

/// What kind of node was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// `/dev/nvmeXnY`
    NamespaceBlock,
    /// `/dev/ngXnY`
    NamespaceGeneric,
    /// `/dev/nvmeX`
    Controller,
}

/// Where a device node sits in sysfs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceMap {
    pub kind: NodeKind,
    /// The kernel name of the node, e.g. `nvme0n1`, `ng0n1`, `nvme0`.
    pub name: String,
    /// The namespace's block device name (`nvme0n1`) if there is one.
    pub block_name: Option<String>,
    /// The controller (`nvme0`), if sysfs tells.
    pub controller: Option<String>,
}

/// Maps a device node to its sysfs identity. Pure over a sysfs root, for tests.
pub fn map_device(sysfs: &Path, path: &Path) -> Result<DeviceMap, NvmeError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| NvmeError::io(shown.clone(), e))?;
    let ft = meta.file_type();
    let (major, minor) = (libc::major(meta.rdev()), libc::minor(meta.rdev()));
    let class = if ft.is_block_device() {
        "block"
    } else if ft.is_char_device() {
        "char"
    } else {
        return Err(NvmeError::NotNvme {
            path: shown,
            why: "not a block or character device".into(),
        });
    };
    let link = sysfs.join(format!("dev/{class}/{major}:{minor}"));
    let real = std::fs::canonicalize(&link)
        .map_err(|e| NvmeError::io(format!("{shown}: sysfs entry {}", link.display()), e))?;
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    map_name(sysfs, &name).ok_or_else(|| NvmeError::NotNvme {
        path: shown,
        why: format!("its kernel name is \"{name}\""),
    })
}

/// The mapping from a kernel name alone (`nvme0n1`, `ng0n1`, `nvme0`).
pub fn map_name(sysfs: &Path, name: &str) -> Option<DeviceMap> {
    let (kind, block_name) = if let Some(rest) = name.strip_prefix("ng") {
        let (c, n) = rest.split_once('n')?;
        if !is_num(c) || !is_num(n) {
            return None;
        }
        (NodeKind::NamespaceGeneric, Some(format!("nvme{c}n{n}")))
    } else if let Some(rest) = name.strip_prefix("nvme") {
        match rest.split_once('n') {
            Some((c, n)) if is_num(c) && is_num(n) => (NodeKind::NamespaceBlock, Some(name.into())),
            None if is_num(rest) => (NodeKind::Controller, None),
            _ => return None,
        }
    } else {
        return None;
    };
    let controller = match &block_name {
        None => Some(name.to_string()),
        Some(b) => controller_of(sysfs, b),
    };
    Some(DeviceMap {
        kind,
        name: name.to_string(),
        block_name,
        controller,
    })
}

fn is_num(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `/sys/block/nvme0n1/device` points at the controller, or (native multipath) at the
/// subsystem, whose controllers are listed in its directory. Falls back to the name.
fn controller_of(sysfs: &Path, block: &str) -> Option<String> {
    let dev = sysfs.join("block").join(block).join("device");
    if let Ok(target) = std::fs::canonicalize(&dev) {
        let n = target.file_name()?.to_string_lossy().into_owned();
        if n.strip_prefix("nvme").is_some_and(is_num) {
            return Some(n);
        }
        if n.starts_with("nvme-subsys") {
            let mut ctrls: Vec<String> = std::fs::read_dir(&target)
                .ok()?
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.strip_prefix("nvme").is_some_and(is_num))
                .collect();
            ctrls.sort();
            if let Some(c) = ctrls.into_iter().next() {
                return Some(c);
            }
        }
    }
    let rest = block.strip_prefix("nvme")?;
    let (c, _) = rest.split_once('n')?;
    Some(format!("nvme{c}"))
}

/// Largest single data transfer this layer issues (MDTS permitting).
const MAX_CHUNK: u64 = 256 * 1024;

/// A page-aligned, zeroed transfer buffer of `len` bytes: unaligned user buffers make the
/// kernel bounce through single pages, which can exceed the queue's segment limit (EINVAL).
fn transfer_buf(len: usize) -> AVec<u8, ConstAlign<4096>> {
    avec![[4096]| 0u8; len.max(1)]
}

#[derive(Clone, Copy, Debug)]
struct Geometry {
    block_size: u64,
    max_transfer: u64,
}

/// An open NVMe device node. Admin commands go through the same node (the kernel forwards
/// them to the controller); I/O commands need a namespace node.
pub struct Device {
    file: File,
    path: PathBuf,
    map: DeviceMap,
    nsid: Option<u32>,
    /// Cached identify results; a format clears them. A lock, not a cell: the engine shares
    /// one device between its threads.
    geometry: std::sync::Mutex<Option<Geometry>>,
}

impl Device {
    /// Opens a namespace (`/dev/nvme0n1`, `/dev/ng0n1`) or controller (`/dev/nvme0`) node.
    /// Tries read-write first, then read-only (enough for identify and logs).
    pub fn open(path: &Path) -> Result<Device, NvmeError> {
        let map = map_device(Path::new("/sys"), path)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .or_else(|_| File::open(path))
            .map_err(|e| NvmeError::io(path.display().to_string(), e))?;
        let nsid = match map.kind {
            NodeKind::Controller => None,
            _ => Some(
                ioctl::namespace_id(file.as_raw_fd())
                    .map_err(|e| NvmeError::io(format!("{}: NVME_IOCTL_ID", path.display()), e))?,
            ),
        };
        Ok(Device {
            file,
            path: path.to_path_buf(),
            map,
            nsid,
            geometry: std::sync::Mutex::new(None),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn map(&self) -> &DeviceMap {
        &self.map
    }
    /// The namespace ID, None for a controller node.
    pub fn nsid(&self) -> Option<u32> {
        self.nsid
    }

    fn need_nsid(&self) -> Result<u32, NvmeError> {
        self.nsid.ok_or_else(|| {
            NvmeError::InvalidArgument(format!(
                "{} is a controller; this needs a namespace (e.g. /dev/nvme0n1)",
                self.path.display()
            ))
        })
    }

    /// Sends one raw command. Returns completion dword 0/1, or the NVMe status as an error.
    pub fn submit(
        &self,
        command: &'static str,
        queue: Queue,
        mut cmd: PassthruCmd64,
        data: Option<&mut [u8]>,
    ) -> Result<u64, NvmeError> {
        match ioctl::submit(self.file.as_raw_fd(), queue, &mut cmd, data) {
            Ok(Outcome::Ok { result }) => Ok(result),
            Ok(Outcome::Status(status)) => Err(NvmeError::Status { command, status }),
            Err(e) => Err(NvmeError::io(
                format!("{} on {}", command, self.path.display()),
                e,
            )),
        }
    }

    pub fn identify_controller(&self) -> Result<IdentifyController, NvmeError> {
        let mut buf = vec![0u8; 4096];
        self.submit(
            "identify controller",
            Queue::Admin,
            cmd::identify(1, 0),
            Some(&mut buf),
        )?;
        identify::decode_identify_controller(&buf)
    }

    /// The active namespace IDs of the controller (Identify CNS 0x02, the first 1024).
    pub fn active_namespaces(&self) -> Result<Vec<u32>, NvmeError> {
        let mut buf = vec![0u8; 4096];
        self.submit(
            "identify active namespace list",
            Queue::Admin,
            cmd::identify(2, 0),
            Some(&mut buf),
        )?;
        Ok(identify::decode_namespace_list(&buf))
    }

    pub fn identify_namespace(&self) -> Result<IdentifyNamespace, NvmeError> {
        let nsid = self.need_nsid()?;
        let mut buf = vec![0u8; 4096];
        self.submit(
            "identify namespace",
            Queue::Admin,
            cmd::identify(0, nsid),
            Some(&mut buf),
        )?;
        identify::decode_identify_namespace(&buf)
    }

    /// Get Log Page into a buffer of `len` bytes (a multiple of 4).
    pub fn get_log_page(
        &self,
        log: u8,
        nsid: u32,
        lsi: u16,
        len: u32,
    ) -> Result<Vec<u8>, NvmeError> {
        let mut buf = vec![0u8; len as usize];
        self.submit(
            "get log page",
            Queue::Admin,
            cmd::get_log_page(log, nsid, lsi, 0, len),
            Some(&mut buf),
        )?;
        Ok(buf)
    }

    /// Controller-wide SMART / Health log.
    pub fn smart_log(&self) -> Result<SmartLog, NvmeError> {
        smart::decode_smart_log(&self.get_log_page(lid::SMART, NSID_ALL, 0, 512)?)
    }

    /// The OCP SMART extended log: `Ok(None)` when the drive rejects LID C0h, an error of kind
    /// [`NvmeError::GuidMismatch`] when C0h is some vendor page instead.
    pub fn ocp_smart_log(&self) -> Result<Option<OcpSmartLog>, NvmeError> {
        match self.get_log_page(lid::OCP_SMART_EXTENDED, NSID_ALL, 0, 512) {
            Ok(buf) => ocp::decode_ocp_smart_log(&buf).map(Some),
            Err(NvmeError::Status { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Host and media bytes written, for WAF.
    pub fn write_counters(&self) -> Result<WriteCounters, NvmeError> {
        let smart = self.smart_log()?;
        let media = match self.ocp_smart_log() {
            Ok(Some(l)) => Some(l.physical_media_bytes_written),
            Ok(None) | Err(NvmeError::GuidMismatch { .. }) => None,
            Err(e) => return Err(e),
        };
        Ok(WriteCounters {
            host_bytes_written: smart.host_bytes_written(),
            media_bytes_written: media,
        })
    }

    /// The endurance group of this namespace (1 when the namespace does not say).
    pub fn endurance_group(&self) -> Result<u16, NvmeError> {
        Ok(match self.identify_namespace()?.endgid {
            0 => 1,
            g => g,
        })
    }

    /// Get Features; returns completion dword 0.
    pub fn get_features(&self, fid: u8, cdw11: u32) -> Result<u32, NvmeError> {
        let c = PassthruCmd64 {
            opcode: 0x0A,
            cdw10: fid as u32,
            cdw11,
            ..Default::default()
        };
        Ok(self.submit("get features", Queue::Admin, c, None)? as u32)
    }

    /// Whether FDP is enabled in endurance group `endgid` (Get Features FID 1Dh, bit 0).
    pub fn fdp_enabled(&self, endgid: u16) -> Result<bool, NvmeError> {
        Ok(self.get_features(0x1D, endgid as u32)? & 1 != 0)
    }

    pub fn fdp_configs(&self, endgid: u16) -> Result<Vec<FdpConfig>, NvmeError> {
        fdp::decode_fdp_configs(&self.get_log_page(lid::FDP_CONFIGS, NSID_ALL, endgid, 4096)?)
    }

    pub fn fdp_ruh_usage(&self, endgid: u16) -> Result<Vec<RuhAttributes>, NvmeError> {
        fdp::decode_ruh_usage(&self.get_log_page(lid::FDP_RUH_USAGE, NSID_ALL, endgid, 4096)?)
    }

    pub fn fdp_stats(&self, endgid: u16) -> Result<FdpStats, NvmeError> {
        fdp::decode_fdp_stats(&self.get_log_page(lid::FDP_STATS, NSID_ALL, endgid, 64)?)
    }

    /// Reclaim unit handle status of this namespace (I/O Management Receive).
    pub fn ruh_status(&self) -> Result<Vec<RuhStatus>, NvmeError> {
        let nsid = self.need_nsid()?;
        let mut buf = vec![0u8; 4096];
        self.submit(
            "I/O management receive",
            Queue::Io,
            cmd::io_mgmt_recv_ruh_status(nsid, 4096),
            Some(&mut buf),
        )?;
        fdp::decode_ruh_status(&buf)
    }

    fn geometry(&self) -> Result<Geometry, NvmeError> {
        if let Some(g) = *self.geometry.lock().unwrap_or_else(|e| e.into_inner()) {
            return Ok(g);
        }
        let ns = self.identify_namespace()?;
        let ctrl = self.identify_controller()?;
        let g = Geometry {
            block_size: ns.block_size(),
            // Also bounded so one page-aligned buffer stays well inside the kernel's segment
            // limits for a single passthrough command.
            max_transfer: ctrl
                .max_transfer_bytes()
                .unwrap_or(MAX_CHUNK)
                .min(MAX_CHUNK),
        };
        *self.geometry.lock().unwrap_or_else(|e| e.into_inner()) = Some(g);
        Ok(g)
    }

    /// The largest data transfer of one command this layer issues: the controller's MDTS,
    /// and at most 256 KiB, so one page-aligned buffer stays inside the kernel's segment
    /// limits for a passthrough command (larger requests are split into several).
    pub fn max_transfer_bytes(&self) -> Result<u64, NvmeError> {
        Ok(self.geometry()?.max_transfer)
    }

    /// The logical block size in use.
    pub fn block_size(&self) -> Result<u64, NvmeError> {
        Ok(self.geometry()?.block_size)
    }

    /// The namespace's size in bytes (NSZE blocks).
    pub fn namespace_bytes(&self) -> Result<u64, NvmeError> {
        Ok(self.identify_namespace()?.nsze * self.block_size()?)
    }

    /// Write Zeroes of `nlb` blocks at `slba`, in commands of at most 65536 blocks.
    pub fn write_zeroes(&self, slba: u64, nlb: u64) -> Result<(), NvmeError> {
        let nsid = self.need_nsid()?;
        let (mut lba, end) = (slba, slba + nlb);
        while lba < end {
            let n = (end - lba).min(65536) as u32;
            self.submit(
                "write zeroes",
                Queue::Io,
                cmd::write_zeroes(nsid, lba, n),
                None,
            )?;
            lba += n as u64;
        }
        Ok(())
    }

    fn chunks(&self, len: usize) -> Result<(u64, usize), NvmeError> {
        let g = self.geometry()?;
        if !(len as u64).is_multiple_of(g.block_size) {
            return Err(NvmeError::InvalidArgument(format!(
                "{len} bytes is not a multiple of the {}-byte block size",
                g.block_size
            )));
        }
        let per = (g.max_transfer / g.block_size).clamp(1, 65536) * g.block_size;
        Ok((g.block_size, per as usize))
    }

    /// Writes `data` (a whole number of blocks) at `slba`, split at the transfer limit.
    pub fn write(&self, slba: u64, data: &[u8], placement: Placement) -> Result<(), NvmeError> {
        let nsid = self.need_nsid()?;
        let (bs, per) = self.chunks(data.len())?;
        let mut lba = slba;
        let mut tmp = transfer_buf(per.min(data.len()));
        for chunk in data.chunks(per) {
            let t = &mut tmp[..chunk.len()];
            t.copy_from_slice(chunk);
            let nlb = (chunk.len() as u64 / bs) as u32;
            self.submit(
                "write",
                Queue::Io,
                cmd::write(nsid, lba, nlb, placement),
                Some(t),
            )?;
            lba += nlb as u64;
        }
        Ok(())
    }

    /// Reads `buf.len()` bytes (a whole number of blocks) at `slba`.
    pub fn read(&self, slba: u64, buf: &mut [u8]) -> Result<(), NvmeError> {
        let nsid = self.need_nsid()?;
        let (bs, per) = self.chunks(buf.len())?;
        let mut lba = slba;
        let mut tmp = transfer_buf(per.min(buf.len()));
        for chunk in buf.chunks_mut(per) {
            let t = &mut tmp[..chunk.len()];
            let nlb = (chunk.len() as u64 / bs) as u32;
            self.submit("read", Queue::Io, cmd::read(nsid, lba, nlb), Some(&mut *t))?;
            chunk.copy_from_slice(t);
            lba += nlb as u64;
        }
        Ok(())
    }

    /// Dataset Management deallocate (TRIM) of up to 256 ranges.
    pub fn deallocate(&self, ranges: &[DsmRange]) -> Result<(), NvmeError> {
        let nsid = self.need_nsid()?;
        if ranges.is_empty() || ranges.len() > 256 {
            return Err(NvmeError::InvalidArgument(format!(
                "deallocate takes 1..=256 ranges, got {}",
                ranges.len()
            )));
        }
        let mut list = cmd::dsm_ranges(ranges);
        self.submit(
            "dataset management (deallocate)",
            Queue::Io,
            cmd::dsm_deallocate(nsid, ranges.len() as u32),
            Some(&mut list),
        )?;
        Ok(())
    }

    /// Format NVM of this namespace with LBA format `lbaf`.
    pub fn format(&self, lbaf: u8, ses: SecureErase) -> Result<(), NvmeError> {
        let nsid = self.need_nsid()?;
        let ctrl = self.identify_controller()?;
        if !ctrl.supports_format() {
            return Err(NvmeError::Unsupported(
                "this drive does not support Format NVM (OACS bit 1 is 0)".into(),
            ));
        }
        if ses == SecureErase::Crypto && !ctrl.format_crypto_erase() {
            return Err(NvmeError::Unsupported(
                "this drive does not support cryptographic erase in Format NVM (FNA bit 2 is 0)"
                    .into(),
            ));
        }
        let ns = self.identify_namespace()?;
        if lbaf as usize >= ns.lba_formats.len() {
            return Err(NvmeError::InvalidArgument(format!(
                "LBA format {lbaf} does not exist; this namespace has {}",
                ns.lba_formats.len()
            )));
        }
        *self.geometry.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.submit(
            "format NVM",
            Queue::Admin,
            cmd::format_nvm(nsid, lbaf, ses),
            None,
        )?;
        Ok(())
    }

    /// Sanitize with block erase, if SANICAP says the drive supports it.
    pub fn sanitize_block_erase(&self) -> Result<(), NvmeError> {
        let ctrl = self.identify_controller()?;
        if !ctrl.sanitize_block_erase() {
            return Err(NvmeError::Unsupported(format!(
                "this drive does not support sanitize block erase (SANICAP = {:#x})",
                ctrl.sanicap
            )));
        }
        self.sanitize_raw(SanitizeAction::BlockErase)
    }

    /// The Sanitize Status log (controller scope).
    pub fn sanitize_status(&self) -> Result<SanitizeStatus, NvmeError> {
        reset::decode_sanitize_status(&self.get_log_page(lid::SANITIZE_STATUS, NSID_ALL, 0, 512)?)
    }

    /// Erases this namespace with the strongest command that touches nothing else (see
    /// [`reset::choose_reset`]) and waits until the drive is done. Returns what was done, for
    /// the report; `Ok` with [`ResetMethod::DeallocateOnly`] means the caller must deallocate.
    pub fn erase_namespace(&self, timeout: Duration) -> Result<ResetMethod, NvmeError> {
        let nsid = self.need_nsid()?;
        let ctrl = self.identify_controller()?;
        let method = reset::choose_reset(&ctrl, &self.active_namespaces()?, nsid);
        match method {
            ResetMethod::SanitizeBlockErase => {
                self.sanitize_raw(SanitizeAction::BlockErase)?;
                reset::wait_for_sanitize(
                    || self.sanitize_status(),
                    timeout,
                    Duration::from_millis(250),
                )?;
            }
            ResetMethod::Format => {
                let ns = self.identify_namespace()?;
                self.format(ns.lbaf_index, SecureErase::None)?;
            }
            ResetMethod::DeallocateOnly(_) => {}
        }
        Ok(method)
    }

    /// Sends Sanitize without checking SANICAP (the caller has checked, or is probing).
    pub fn sanitize_raw(&self, action: SanitizeAction) -> Result<(), NvmeError> {
        self.submit("sanitize", Queue::Admin, cmd::sanitize(action, false), None)?;
        Ok(())
    }
}

/// Samples the write counters of the drive behind `dev` (a namespace or controller node).
/// This is the data source of the engine's device-counter hook.
pub fn write_counters(dev: &Path) -> Result<WriteCounters, NvmeError> {
    Device::open(dev)?.write_counters()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_kinds() {
        let none = Path::new("/nonexistent-sysfs");
        let m = map_name(none, "nvme0n1").unwrap();
        assert_eq!(m.kind, NodeKind::NamespaceBlock);
        assert_eq!(m.controller.as_deref(), Some("nvme0"));
        let m = map_name(none, "ng3n2").unwrap();
        assert_eq!(m.kind, NodeKind::NamespaceGeneric);
        assert_eq!(m.block_name.as_deref(), Some("nvme3n2"));
        assert_eq!(m.controller.as_deref(), Some("nvme3"));
        let m = map_name(none, "nvme12").unwrap();
        assert_eq!(m.kind, NodeKind::Controller);
        assert_eq!(m.controller.as_deref(), Some("nvme12"));
        assert!(map_name(none, "sda").is_none());
        assert!(map_name(none, "nvme0n1p1").is_none());
        assert!(map_name(none, "nvme-fabrics").is_none());
    }

    #[test]
    fn controller_from_a_fake_sysfs_with_multipath() {
        let dir = std::env::temp_dir().join(format!("ssdiq-nvme-sysfs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let subsys = dir.join("devices/virtual/nvme-subsystem/nvme-subsys0");
        std::fs::create_dir_all(subsys.join("nvme2")).unwrap();
        std::fs::create_dir_all(dir.join("block/nvme0n1")).unwrap();
        std::os::unix::fs::symlink(&subsys, dir.join("block/nvme0n1/device")).unwrap();
        let m = map_name(&dir, "nvme0n1").unwrap();
        assert_eq!(m.controller.as_deref(), Some("nvme2"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn regular_files_are_not_nvme() {
        let e = map_device(Path::new("/sys"), Path::new("/proc/self/status")).unwrap_err();
        assert!(matches!(e, NvmeError::NotNvme { .. }), "{e}");
    }

    #[test]
    fn device_can_move_to_a_sampling_thread() {
        fn send<T: Send>() {}
        send::<Device>();
    }

    #[test]
    fn waf_from_counters() {
        let a = WriteCounters {
            host_bytes_written: 1_024_000,
            media_bytes_written: Some(1_000_000),
        };
        let b = WriteCounters {
            host_bytes_written: 2_048_000,
            media_bytes_written: Some(3_048_000),
        };
        assert_eq!(b.waf_since(&a), Some(2.0));
        assert_eq!(a.waf_since(&a), None);
        let no_ocp = WriteCounters {
            media_bytes_written: None,
            ..b
        };
        assert_eq!(no_ocp.waf_since(&a), None);
        assert_eq!(b.as_u64(), (2_048_000, Some(3_048_000)));
        let huge = WriteCounters {
            host_bytes_written: u128::MAX,
            media_bytes_written: None,
        };
        assert_eq!(huge.as_u64(), (u64::MAX, None));
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(
            json,
            r#"{"host_bytes_written":2048000,"media_bytes_written":3048000}"#
        );
        assert_eq!(serde_json::from_str::<WriteCounters>(&json).unwrap(), b);
    }
}
