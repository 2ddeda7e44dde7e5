//! The facts `ssdiq info` shows, in a shape both a real drive and the emulated one can fill:
//! every part is optional, and `notes` says why something is missing.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::device::{Device, WriteCounters};
use crate::fdp::{FdpConfig, FdpStats, RuhStatus};
use crate::ocp::OcpSmartLog;
use crate::NvmeError;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InfoReport {
    /// The target as given (`/dev/nvme0n1`, `emu:default`).
    pub target: String,
    /// `nvme` for a real drive, `emulated` for the emulated SSD.
    pub source: String,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    /// NVMe version the controller implements, e.g. "1.4".
    pub nvme_version: Option<String>,
    pub controller: Option<String>,
    pub namespace_id: Option<u32>,
    pub capacity_bytes: Option<u128>,
    pub block_size: Option<u64>,
    pub metadata_bytes: Option<u16>,
    /// Index of the LBA format in use and the formats available.
    pub lba_format: Option<u8>,
    pub lba_formats: Vec<LbaFormatInfo>,
    /// `none`, `host-aware`, `host-managed` (from sysfs).
    pub zoned: Option<String>,
    pub optimal_io: Option<OptimalIo>,
    pub capabilities: Option<Capabilities>,
    pub smart: Option<SmartSummary>,
    /// The OCP SMART extended log; None means "not reported by this drive".
    pub ocp: Option<OcpSmartLog>,
    pub fdp: Option<FdpInfo>,
    pub write_counters: Option<WriteCounters>,
    /// Why parts are missing, one line each.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LbaFormatInfo {
    pub index: u8,
    pub block_size: u64,
    pub metadata_bytes: u16,
    /// 0 best .. 3 degraded.
    pub relative_performance: u8,
}

/// Preferred sizes in bytes (None = not reported).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptimalIo {
    pub preferred_write_granularity: Option<u64>,
    pub preferred_write_alignment: Option<u64>,
    pub preferred_deallocate_granularity: Option<u64>,
    pub optimal_write_size: Option<u64>,
    pub optimal_io_boundary: Option<u64>,
    pub atomic_write_unit_power_fail: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    pub format: bool,
    pub format_crypto_erase: bool,
    /// Sanitize actions supported: `block_erase`, `crypto_erase`, `overwrite`; empty = none.
    pub sanitize: Vec<String>,
    pub deallocate: bool,
    pub write_zeroes: bool,
    pub fdp: bool,
    pub deallocated_reads_zeroes: bool,
    pub max_transfer_bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmartSummary {
    pub temperature_c: Option<i32>,
    pub percentage_used: u8,
    pub available_spare: u8,
    pub available_spare_threshold: u8,
    pub critical_warnings: Vec<String>,
    pub media_errors: u128,
    pub power_on_hours: u128,
    pub power_cycles: u128,
    pub unsafe_shutdowns: u128,
    pub host_bytes_read: u128,
    pub host_bytes_written: u128,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FdpInfo {
    pub supported: bool,
    pub enabled: Option<bool>,
    pub endurance_group: Option<u16>,
    pub configs: Vec<FdpConfig>,
    pub stats: Option<FdpStats>,
    pub handles: Vec<RuhStatus>,
}

impl InfoReport {
    /// Gathers everything a real drive will tell. Fails only if the device cannot be opened or
    /// does not answer Identify Controller; everything else degrades into `notes`.
    pub fn from_device(target: &str, path: &Path) -> Result<InfoReport, NvmeError> {
        let dev = Device::open(path)?;
        let ctrl = dev.identify_controller()?;
        let mut r = InfoReport {
            target: target.to_string(),
            source: "nvme".into(),
            model: Some(ctrl.model.clone()),
            serial: Some(ctrl.serial.clone()),
            firmware: Some(ctrl.firmware.clone()),
            nvme_version: Some(ctrl.version_string()),
            controller: dev.map().controller.clone(),
            namespace_id: dev.nsid(),
            ..Default::default()
        };
        let mut sanitize = Vec::new();
        if ctrl.sanitize_block_erase() {
            sanitize.push("block_erase".to_string());
        }
        if ctrl.sanitize_crypto_erase() {
            sanitize.push("crypto_erase".to_string());
        }
        if ctrl.sanitize_overwrite() {
            sanitize.push("overwrite".to_string());
        }
        let mut caps = Capabilities {
            format: ctrl.supports_format(),
            format_crypto_erase: ctrl.format_crypto_erase(),
            sanitize,
            deallocate: ctrl.supports_dsm(),
            write_zeroes: ctrl.supports_write_zeroes(),
            fdp: ctrl.supports_fdp(),
            deallocated_reads_zeroes: false,
            max_transfer_bytes: ctrl.max_transfer_bytes(),
        };
        let mut endgid = None;
        if dev.nsid().is_some() {
            match dev.identify_namespace() {
                Ok(ns) => {
                    let bs = ns.block_size();
                    let b = |blocks: Option<u32>| blocks.map(|n| n as u64 * bs);
                    r.capacity_bytes = Some(ns.capacity_bytes());
                    r.block_size = Some(bs);
                    r.metadata_bytes = Some(ns.metadata_size());
                    r.lba_format = Some(ns.lbaf_index);
                    r.lba_formats = ns
                        .lba_formats
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| f.block_size != 0)
                        .map(|(i, f)| LbaFormatInfo {
                            index: i as u8,
                            block_size: f.block_size,
                            metadata_bytes: f.ms,
                            relative_performance: f.rp,
                        })
                        .collect();
                    r.optimal_io = Some(OptimalIo {
                        preferred_write_granularity: b(ns.npwg),
                        preferred_write_alignment: b(ns.npwa),
                        preferred_deallocate_granularity: b(ns.npdg),
                        optimal_write_size: b(ns.nows),
                        optimal_io_boundary: (ns.noiob != 0).then(|| ns.noiob as u64 * bs),
                        atomic_write_unit_power_fail: b(ns.nawupf),
                    });
                    caps.deallocated_reads_zeroes = ns.deallocate_reads_zeroes();
                    endgid = Some(if ns.endgid == 0 { 1 } else { ns.endgid });
                }
                Err(e) => r.notes.push(format!("identify namespace: {e}")),
            }
            if let Some(b) = &dev.map().block_name {
                r.zoned = std::fs::read_to_string(format!("/sys/block/{b}/queue/zoned"))
                    .ok()
                    .map(|s| s.trim().to_string());
            }
        }
        r.capabilities = Some(caps);
        match dev.smart_log() {
            Ok(s) => {
                r.smart = Some(SmartSummary {
                    temperature_c: s.temperature_c(),
                    percentage_used: s.percentage_used,
                    available_spare: s.available_spare,
                    available_spare_threshold: s.available_spare_threshold,
                    critical_warnings: s
                        .critical_warnings()
                        .into_iter()
                        .map(String::from)
                        .collect(),
                    media_errors: s.media_errors,
                    power_on_hours: s.power_on_hours,
                    power_cycles: s.power_cycles,
                    unsafe_shutdowns: s.unsafe_shutdowns,
                    host_bytes_read: s.host_bytes_read(),
                    host_bytes_written: s.host_bytes_written(),
                });
            }
            Err(e) => r.notes.push(format!("SMART log: {e}")),
        }
        match dev.ocp_smart_log() {
            Ok(l) => r.ocp = l,
            Err(e) => r.notes.push(format!("OCP log: {e}")),
        }
        if let Some(s) = &r.smart {
            r.write_counters = Some(WriteCounters {
                host_bytes_written: s.host_bytes_written,
                media_bytes_written: r.ocp.as_ref().map(|o| o.physical_media_bytes_written),
            });
        }
        if ctrl.supports_fdp() {
            let g = endgid.unwrap_or(1);
            let mut f = FdpInfo {
                supported: true,
                endurance_group: Some(g),
                ..Default::default()
            };
            match dev.fdp_enabled(g) {
                Ok(e) => f.enabled = Some(e),
                Err(e) => r.notes.push(format!("FDP feature: {e}")),
            }
            if f.enabled != Some(false) {
                match dev.fdp_configs(g) {
                    Ok(c) => f.configs = c,
                    Err(e) => r.notes.push(format!("FDP configurations log: {e}")),
                }
                match dev.fdp_stats(g) {
                    Ok(s) => f.stats = Some(s),
                    Err(e) => r.notes.push(format!("FDP statistics log: {e}")),
                }
                if dev.nsid().is_some() {
                    match dev.ruh_status() {
                        Ok(h) => f.handles = h,
                        Err(e) => r.notes.push(format!("RUH status: {e}")),
                    }
                }
            }
            r.fdp = Some(f);
        } else {
            r.fdp = Some(FdpInfo::default());
        }
        Ok(r)
    }
}
