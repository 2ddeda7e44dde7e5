//! A regular file or a block device, through the engine's target layer (O_DIRECT, the same
//! opening rules and safety as `ssdiq io`): synchronous pread/pwrite, trim by BLKDISCARD or
//! hole punching, device counters from SMART/OCP when the device is an NVMe namespace.
//!
//! The caller runs the destructive-write safety check on block devices before opening.

use std::path::Path;

use ssdiq_engine::Job;
use ssdiq_engine::{aligned_zeroed, AlignedBuf};
use ssdiq_engine::{Target, TargetKind};
use ssdiq_workload::RwMix;

use super::{check_range, Device, DeviceError, DeviceInfo, Placement, WriteCounters};

pub struct FileDevice {
    target: Target,
    info: DeviceInfo,
    bounce: AlignedBuf,
    nvme: Option<ssdiq_nvme::Device>,
}

impl FileDevice {
    /// Opens `path`: a file is created or extended to `size` bytes (required for a new file);
    /// a block device is used whole, or its first `size` bytes.
    pub fn open(path: &Path, size: Option<u64>) -> Result<FileDevice, DeviceError> {
        let facts = ssdiq_engine::TargetFacts::probe(path)?;
        let capacity = match (size, facts.size) {
            (Some(s), Some(have)) if facts.kind == TargetKind::Block && s > have => {
                return Err(DeviceError::Invalid(format!(
                    "invalid --size {s}: beyond the end of {} ({have} bytes)",
                    path.display()
                )))
            }
            (Some(s), _) => s,
            (None, Some(have)) if have > 0 => have,
            _ => {
                return Err(DeviceError::Invalid(format!(
                    "{} does not exist or is empty; give --size to create it",
                    path.display()
                )))
            }
        } / 4096
            * 4096;
        let mut job = Job::new(
            path.display().to_string(),
            RwMix::parse("randrw:50").expect("built-in mix"),
            4096,
            capacity,
        );
        job.direct = true;
        let target = Target::open(&job)?;
        let nvme = if facts.kind == TargetKind::Block {
            ssdiq_nvme::Device::open(path)
                .ok()
                .filter(|d| d.nsid().is_some() && d.write_counters().is_ok())
        } else {
            None
        };
        let kind = match facts.kind {
            TargetKind::Block | TargetKind::NvmeChar => "block device",
            TargetKind::File => "file",
        };
        Ok(FileDevice {
            info: DeviceInfo {
                description: format!(
                    "{} ({kind}, {})",
                    path.display(),
                    ssdiq_workload::units::format_size(capacity)
                ),
                capacity,
                zoned: None,
                streams: 1,
                gc_unit: None,
                virtual_time: false,
                keeps_data: true,
            },
            target,
            bounce: aligned_zeroed(1 << 20),
            nvme,
        })
    }

    fn bounce(&mut self, len: usize) -> &mut [u8] {
        if self.bounce.len() < len {
            self.bounce = aligned_zeroed(len);
        }
        &mut self.bounce.as_mut_slice()[..len]
    }
}

fn errno_err(what: String) -> DeviceError {
    DeviceError::io(what, std::io::Error::last_os_error())
}

impl Device for FileDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn read(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        check_range(&self.info, offset, buf.len() as u64)?;
        let fd = self.target.fd();
        let len = buf.len();
        let b = self.bounce(len);
        let mut done = 0;
        while done < len {
            // SAFETY: reading into the live bounce buffer within its length.
            let r = unsafe {
                libc::pread(
                    fd,
                    b[done..].as_mut_ptr() as *mut libc::c_void,
                    len - done,
                    (offset + done as u64) as libc::off_t,
                )
            };
            if r < 0 {
                return Err(errno_err(format!("read at {}", offset + done as u64)));
            }
            if r == 0 {
                b[done..].fill(0);
                break;
            }
            done += r as usize;
        }
        buf.copy_from_slice(&self.bounce.as_slice()[..len]);
        Ok(())
    }

    fn write(&mut self, offset: u64, data: &[u8], _: Placement) -> Result<(), DeviceError> {
        check_range(&self.info, offset, data.len() as u64)?;
        let fd = self.target.fd();
        let len = data.len();
        let b = self.bounce(len);
        b.copy_from_slice(data);
        let mut done = 0;
        while done < len {
            // SAFETY: writing from the live bounce buffer within its length.
            let r = unsafe {
                libc::pwrite(
                    fd,
                    b[done..].as_ptr() as *const libc::c_void,
                    len - done,
                    (offset + done as u64) as libc::off_t,
                )
            };
            if r <= 0 {
                return Err(errno_err(format!("write at {}", offset + done as u64)));
            }
            done += r as usize;
        }
        Ok(())
    }

    fn trim(&mut self, offset: u64, len: u64) -> Result<(), DeviceError> {
        check_range(&self.info, offset, len)?;
        self.target.trim(offset, len).map_err(|e| {
            DeviceError::io(
                format!("trim at {offset}"),
                std::io::Error::from_raw_os_error(e),
            )
        })
    }

    fn counters(&mut self) -> Option<WriteCounters> {
        let c = self.nvme.as_ref()?.write_counters().ok()?;
        Some(WriteCounters {
            host_bytes: c.host_bytes_written as u64,
            media_bytes: c.media_bytes_written.map(|m| m as u64),
            buffered_bytes: None,
        })
    }
}
