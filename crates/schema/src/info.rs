//! `"kind": "info"`: what `ssdiq info` tells of a drive, in a shape both a real drive (the NVMe
//! crate fills it from Identify, SMART, OCP C0h and the FDP logs) and the emulated one can
//! fill: every part is optional, and `notes` says why something is missing.

use serde::{Deserialize, Serialize};

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

/// Bytes the host wrote and (with OCP C0h) the media programmed: the drive's own WAF inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteCounters {
    /// SMART data units written x 512,000 (the drive rounds each unit up).
    pub host_bytes_written: u128,
    /// OCP C0h physical media units written, in bytes; None when the drive has no OCP log.
    pub media_bytes_written: Option<u128>,
}

impl WriteCounters {
    /// Measured WAF between `earlier` and `self`: media delta / host delta. None without media
    /// counters or when the host wrote nothing in between.
    pub fn waf_since(&self, earlier: &WriteCounters) -> Option<f64> {
        let host = self
            .host_bytes_written
            .checked_sub(earlier.host_bytes_written)?;
        let media = self
            .media_bytes_written?
            .checked_sub(earlier.media_bytes_written?)?;
        (host > 0).then(|| media as f64 / host as f64)
    }

    /// `(host, media)` clamped to u64 (16 EiB), for consumers that count in u64.
    pub fn as_u64(&self) -> (u64, Option<u64>) {
        let c = |v: u128| u64::try_from(v).unwrap_or(u64::MAX);
        (c(self.host_bytes_written), self.media_bytes_written.map(c))
    }
}

/// A raw counter with its normalized value (percent of the factory allowance left).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawNormalized {
    pub raw: u64,
    pub normalized: u16,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OcpSmartLog {
    /// Bytes written to the media (the OCP spec counts "physical media units" in bytes).
    pub physical_media_bytes_written: u128,
    pub physical_media_bytes_read: u128,
    pub bad_user_nand_blocks: RawNormalized,
    pub bad_system_nand_blocks: RawNormalized,
    pub xor_recovery_count: u64,
    pub uncorrectable_read_errors: u64,
    pub soft_ecc_errors: u64,
    pub end_to_end_detected_errors: u32,
    pub end_to_end_corrected_errors: u32,
    pub system_data_percent_used: u8,
    pub refresh_counts: u64,
    pub user_data_erase_count_max: u32,
    pub user_data_erase_count_min: u32,
    pub thermal_throttling_events: u8,
    /// 0 = not throttled, 1 = first level, 2 = second level, 3 = third level.
    pub thermal_throttling_status: u8,
    /// DSSD spec version as "major.minor.point" plus the errata letter/number byte.
    pub dssd_major: u8,
    pub dssd_minor: u16,
    pub dssd_point: u16,
    pub dssd_errata: u8,
    pub pcie_correctable_errors: u64,
    pub incomplete_shutdowns: u32,
    pub percent_free_blocks: u8,
    pub capacitor_health: u16,
    pub nvme_base_errata_version: u8,
    pub nvme_command_set_errata_version: u8,
    pub unaligned_io: u64,
    pub security_version: u64,
    pub total_nuse: u64,
    pub plp_start_count: u128,
    pub endurance_estimate: u128,
    pub pcie_link_retraining_count: u64,
    pub power_state_change_count: u64,
    pub log_page_version: u16,
}

impl OcpSmartLog {
    pub fn dssd_version(&self) -> String {
        format!(
            "{}.{}.{}",
            self.dssd_major, self.dssd_minor, self.dssd_point
        )
    }
}

/// Reclaim unit handle types (RUHT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuhType {
    InitiallyIsolated,
    PersistentlyIsolated,
    Reserved(u8),
}

/// One FDP configuration descriptor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FdpConfig {
    /// FDPA bit 7: this configuration is valid.
    pub valid: bool,
    /// FDPA bits 1:0: reclaim group identifier format (bits of the placement ID taken by the RG).
    pub rgif: u8,
    /// FDPA bit 4: volatile write cache.
    pub fdpvwc: bool,
    /// Number of reclaim groups.
    pub nrg: u32,
    /// Number of reclaim unit handles.
    pub nruh: u16,
    /// Max placement identifiers per namespace (1-based here).
    pub max_pids: u32,
    /// Number of namespaces supported.
    pub nnss: u32,
    /// Reclaim unit nominal size in bytes.
    pub runs: u64,
    /// Estimated reclaim unit time limit in seconds (0 = none).
    pub erutl: u32,
    pub ruh_types: Vec<RuhType>,
}

/// FDP Statistics log: byte counters of the endurance group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FdpStats {
    /// Host bytes with metadata written.
    pub host_bytes_written: u128,
    /// Media bytes with metadata written.
    pub media_bytes_written: u128,
    /// Media bytes erased.
    pub media_bytes_erased: u128,
}

/// One Reclaim Unit Handle Status descriptor (I/O Management Receive, MO 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuhStatus {
    /// Placement identifier.
    pub pid: u16,
    /// Reclaim unit handle identifier.
    pub ruhid: u16,
    /// Estimated active reclaim unit time remaining, seconds.
    pub earutr: u32,
    /// Reclaim unit available media writes, in logical blocks.
    pub ruamw: u64,
}
