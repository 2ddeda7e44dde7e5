//! What a real drive tells `ssdiq info` ([`from_device`]), as the info document of
//! `ssdiq_schema::info`.

use std::path::Path;

use crate::device::{Device, WriteCounters};
use crate::NvmeError;

pub use ssdiq_schema::info::{
    Capabilities, FdpInfo, InfoReport, LbaFormatInfo, OptimalIo, SmartSummary,
};

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
