//! An NVMe namespace through passthrough: FDP writes with placement directives, or a zoned
//! namespace with Zone Append and Zone Reset. Counters from SMART/OCP.
//!
//! The caller runs the destructive-write safety check before opening.

use std::path::Path;

use ssdiq_engine::{aligned_zeroed, AlignedBuf};
use ssdiq_nvme::{Device as Nvme, DsmRange, Placement as NvmePlacement};

use super::{check_range, Device, DeviceError, DeviceInfo, Placement, WriteCounters, ZoneGeometry};

/// Transfer size per command (a conservative split below common MDTS and ZASL limits).
const CHUNK: usize = 128 * 1024;

pub struct NvmeDevice {
    dev: Nvme,
    info: DeviceInfo,
    block: u64,
    buf: AlignedBuf,
}

impl NvmeDevice {
    /// An FDP namespace: writes carry placement identifiers `0..handles` (the reclaim unit
    /// handles of the namespace, from its RUH status).
    pub fn open_fdp(path: &Path) -> Result<NvmeDevice, DeviceError> {
        let dev = Nvme::open(path)?;
        let ns = dev.identify_namespace()?;
        let g = dev.endurance_group()?;
        if !dev.fdp_enabled(g).unwrap_or(false) {
            return Err(DeviceError::Invalid(format!(
                "{}: FDP is not enabled (endurance group {g}); use a conventional backend",
                path.display()
            )));
        }
        let handles = dev.ruh_status()?.len().clamp(1, u16::MAX as usize) as u16;
        let ru = dev
            .fdp_configs(g)
            .ok()
            .and_then(|c| c.into_iter().find(|c| c.valid).map(|c| c.runs));
        let capacity = (ns.capacity_bytes() as u64) / 4096 * 4096;
        let block = ns.block_size();
        Ok(NvmeDevice {
            info: DeviceInfo {
                description: format!(
                    "{} (NVMe FDP, {handles} reclaim unit handles, reclaim unit {})",
                    path.display(),
                    ru.map_or("unknown".into(), ssdiq_workload::units::format_size)
                ),
                capacity,
                zoned: None,
                streams: handles,
                gc_unit: ru,
                virtual_time: false,
                keeps_data: true,
            },
            dev,
            block,
            buf: aligned_zeroed(CHUNK),
        })
    }

    /// A zoned namespace (all zones of equal size and capacity).
    pub fn open_zoned(path: &Path) -> Result<NvmeDevice, DeviceError> {
        let dev = Nvme::open(path)?;
        let block = dev.block_size()?;
        let (n, zones) = dev.report_zones(0, 2)?;
        let first = zones.first().ok_or_else(|| {
            DeviceError::Invalid(format!("{}: not a zoned namespace", path.display()))
        })?;
        if first.zone_type != 2 {
            return Err(DeviceError::Invalid(format!(
                "{}: zone type {} is not sequential-write-required",
                path.display(),
                first.zone_type
            )));
        }
        let zone_blocks = match zones.get(1) {
            Some(z) => z.start_lba - first.start_lba,
            None => first.capacity_blocks,
        };
        let name = path.file_name().map(|s| s.to_string_lossy().to_string());
        let max_open = name
            .and_then(|n| {
                std::fs::read_to_string(format!("/sys/block/{n}/queue/max_open_zones")).ok()
            })
            .and_then(|s| s.trim().parse::<u32>().ok())
            .unwrap_or(0);
        let geo = ZoneGeometry {
            zone_bytes: zone_blocks * block,
            zone_capacity: first.capacity_blocks * block,
            zones: n as u32,
            max_open,
        };
        Ok(NvmeDevice {
            info: DeviceInfo {
                description: format!(
                    "{} (NVMe ZNS, {} zones of {}, capacity {}{})",
                    path.display(),
                    n,
                    ssdiq_workload::units::format_size(geo.zone_bytes),
                    ssdiq_workload::units::format_size(geo.zone_capacity),
                    if max_open > 0 {
                        format!(", {max_open} open")
                    } else {
                        String::new()
                    }
                ),
                capacity: geo.zone_bytes * n,
                zoned: Some(geo),
                streams: 1,
                gc_unit: Some(geo.zone_bytes),
                virtual_time: false,
                keeps_data: true,
            },
            dev,
            block,
            buf: aligned_zeroed(CHUNK),
        })
    }

    /// Uses only the first `bytes` of the namespace (whole zones on a zoned one).
    pub fn limit(&mut self, bytes: u64) -> Result<(), DeviceError> {
        if bytes > self.info.capacity || bytes < 4096 {
            return Err(DeviceError::Invalid(format!(
                "invalid --size {bytes}: expected 4 KiB up to the namespace's {} bytes",
                self.info.capacity
            )));
        }
        match self.info.zoned.as_mut() {
            Some(z) => {
                z.zones = (bytes / z.zone_bytes).max(1) as u32;
                self.info.capacity = z.zones as u64 * z.zone_bytes;
            }
            None => self.info.capacity = bytes / 4096 * 4096,
        }
        self.info.description.push_str(&format!(
            ", first {}",
            ssdiq_workload::units::format_size(self.info.capacity)
        ));
        Ok(())
    }

    /// Resets every zone (a fresh start, as ZLeanStore does).
    pub fn reset_all_zones(&mut self) -> Result<(), DeviceError> {
        Ok(self.dev.zone_reset(0, true)?)
    }
}

impl Device for NvmeDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn read(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        check_range(&self.info, offset, buf.len() as u64)?;
        for (i, chunk) in buf.chunks_mut(CHUNK).enumerate() {
            let off = offset + (i * CHUNK) as u64;
            let b = &mut self.buf.as_mut_slice()[..chunk.len()];
            self.dev.read(off / self.block, b)?;
            chunk.copy_from_slice(b);
        }
        Ok(())
    }

    fn write(&mut self, offset: u64, data: &[u8], placement: Placement) -> Result<(), DeviceError> {
        if self.info.zoned.is_some() {
            return Err(DeviceError::Invalid(
                "a zoned namespace takes zone appends, not writes".into(),
            ));
        }
        check_range(&self.info, offset, data.len() as u64)?;
        let p = match placement {
            Placement::None => NvmePlacement::None,
            Placement::Stream(s) => NvmePlacement::Fdp(s),
        };
        self.dev.write(offset / self.block, data, p)?;
        Ok(())
    }

    fn trim(&mut self, offset: u64, len: u64) -> Result<(), DeviceError> {
        check_range(&self.info, offset, len)?;
        let mut ranges = Vec::new();
        let max = (u32::MAX as u64 / 2) / self.block * self.block;
        let mut o = offset;
        while o < offset + len {
            let l = (offset + len - o).min(max);
            ranges.push(DsmRange {
                slba: o / self.block,
                nlb: (l / self.block) as u32,
            });
            o += l;
        }
        for r in ranges.chunks(256) {
            self.dev.deallocate(r)?;
        }
        Ok(())
    }

    fn zone_append(&mut self, zone: u32, data: &[u8]) -> Result<u64, DeviceError> {
        let geo = self
            .info
            .zoned
            .ok_or_else(|| DeviceError::Invalid("not a zoned namespace".into()))?;
        if zone >= geo.zones {
            return Err(DeviceError::Invalid(format!("zone {zone} does not exist")));
        }
        let zslba = zone as u64 * geo.zone_bytes / self.block;
        let mut first = None;
        for chunk in data.chunks(CHUNK) {
            let b = &mut self.buf.as_mut_slice()[..chunk.len()];
            b.copy_from_slice(chunk);
            let lba = self.dev.zone_append(zslba, b)?;
            first.get_or_insert(lba * self.block);
        }
        first.ok_or_else(|| DeviceError::Invalid("empty zone append".into()))
    }

    fn zone_reset(&mut self, zone: u32) -> Result<(), DeviceError> {
        let geo = self
            .info
            .zoned
            .ok_or_else(|| DeviceError::Invalid("not a zoned namespace".into()))?;
        Ok(self
            .dev
            .zone_reset(zone as u64 * geo.zone_bytes / self.block, false)?)
    }

    fn counters(&mut self) -> Option<WriteCounters> {
        let c = self.dev.write_counters().ok()?;
        Some(WriteCounters {
            host_bytes: c.host_bytes_written as u64,
            media_bytes: c.media_bytes_written.map(|m| m as u64),
            buffered_bytes: None,
        })
    }
}
