//! The emulated drive's part of `ssdiq info`: its facts (`"emulated"`), its profile's
//! parameters with their sources, and `emu:list`. The emu crate fills them in.

use serde::{Deserialize, Serialize};

use crate::info::InfoReport;
use crate::run::SCHEMA;

/// Where the emulated drive's bytes are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmuGeometry {
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub logical_block_bytes: u64,
    pub op: f64,
    pub fill: f64,
    pub spare_factor: f64,
    pub channels: u32,
    pub dies: u32,
    pub planes: u32,
    pub page_kib: u32,
    pub program_unit_bytes: u64,
    pub superblock_bytes: u64,
    pub superblocks: u32,
    pub buffer_bytes: u64,
}

/// What a scaled drive changed to stand for its full-size drive (capacity / full capacity).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmuScaling {
    pub scale: f64,
    pub full_capacity_bytes: u64,
    pub units_per_block: u32,
    pub full_units_per_block: u32,
    pub superblock_bytes: u64,
    pub full_superblock_bytes: u64,
    pub erase_us: f64,
    pub full_erase_us: f64,
    pub rewrite_window_bytes: u64,
    pub buffer_bytes: u64,
    pub superblocks: u32,
    pub full_superblocks: u64,
}

/// What `ssdiq info` tells of an emulated drive beyond the info document (`"emulated"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmulatedFacts {
    pub profile: String,
    pub description: String,
    pub policy: String,
    pub suspend: bool,
    pub geometry: EmuGeometry,
    pub scaling: EmuScaling,
    pub spec: ProfileSpec,
    pub host_bytes: u64,
    pub media_bytes: u64,
    /// How GC runs, for the text only (the profile's parameters are in the JSON's own keys).
    #[serde(skip)]
    pub gc_timing: String,
    /// The SLC cache, when the profile has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slc_cache: Option<String>,
    /// The host interface, unless it is NVMe with no per-command limits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_interface: Option<String>,
    /// The drive's readahead, when the profile has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readahead: Option<String>,
    /// A DRAM-less drive's map cache, when the profile has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_cache: Option<String>,
    /// In-place media (3D XPoint), when the profile has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<String>,
    /// The policy with its GC frontier and mode, for the text only.
    #[serde(skip)]
    pub gc: String,
    /// The profile's `op`, before rounding up to whole superblocks (text only).
    #[serde(skip)]
    pub profile_op: f64,
}

/// A profile's datasheet-style spec (its `[spec]` section); field names as in the run
/// document's `Spec`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    pub seq_read_mb_s: Option<f64>,
    pub seq_write_mb_s: Option<f64>,
    pub rand_read_kiops: Option<f64>,
    pub rand_write_kiops: Option<f64>,
    pub read_lat_us: Option<f64>,
    pub write_lat_us: Option<f64>,
}

/// One parameter as a profile file writes it: where it sits, its value as written, and the
/// comment after it, which says where the value comes from (a source or "assumption").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamSource {
    pub section: String,
    pub key: String,
    pub value: String,
    pub source: String,
}

/// A parameter's value and where it comes from, as `ssdiq info` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileParameter {
    #[serde(flatten)]
    pub file: ParamSource,
    /// The value given on the command line (`emu:NAME,key=value`), which replaces the file's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overridden: Option<String>,
}

/// One shipped profile as `ssdiq info emu:list` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ListedProfile {
    pub name: String,
    /// `data-center` or `consumer / SATA`.
    pub group: String,
    pub description: String,
    pub capacity: String,
    pub full_capacity: Option<String>,
    pub op: f64,
    pub policy: String,
    pub spec: ProfileSpec,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmuInfoDoc {
    pub schema: String,
    /// Always `"info"`.
    pub kind: String,
    pub info: InfoReport,
    pub emulated: EmulatedFacts,
    pub parameters: Vec<ProfileParameter>,
}

impl EmuInfoDoc {
    pub fn new(
        info: InfoReport,
        emulated: EmulatedFacts,
        parameters: Vec<ProfileParameter>,
    ) -> Self {
        EmuInfoDoc {
            schema: SCHEMA.into(),
            kind: "info".into(),
            info,
            emulated,
            parameters,
        }
    }
}

/// `ssdiq info emu:list --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmuListDoc {
    pub schema: String,
    /// Always `"emu-list"`.
    pub kind: String,
    pub profiles: Vec<ListedProfile>,
}

impl EmuListDoc {
    pub fn new(profiles: Vec<ListedProfile>) -> Self {
        EmuListDoc {
            schema: SCHEMA.into(),
            kind: "emu-list".into(),
            profiles,
        }
    }
}
