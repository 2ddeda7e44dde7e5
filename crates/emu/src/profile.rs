//! Emulated-drive profiles: TOML text -> [`Profile`], with `key=value` overrides applied to
//! the TOML tree before it is checked, so an override is exactly as if the file said it.
//!
//! Invariants:
//! - Leaf key names are unique across sections, so `op=0.2` names one parameter; the long form
//!   `drive.op=0.2` is accepted too.
//! - Every error is one line naming the key or value and what was expected.
//! - The shipped profiles are embedded in the binary ([`builtin`]); this module never reads
//!   files (`crate::target` does).

pub use crate::error::ProfileError;
use serde::Deserialize;
use ssdiq_workload::units::parse_size;

/// The shipped profiles, by name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("default", include_str!("../profiles/default.toml")),
    ("nosuspend", include_str!("../profiles/nosuspend.toml")),
    ("smallbuf", include_str!("../profiles/smallbuf.toml")),
    ("highop", include_str!("../profiles/highop.toml")),
    ("2r", include_str!("../profiles/2r.toml")),
    ("pm9a3", include_str!("../profiles/pm9a3.toml")),
    ("pe8110", include_str!("../profiles/pe8110.toml")),
    ("p5520", include_str!("../profiles/p5520.toml")),
    ("sn640", include_str!("../profiles/sn640.toml")),
    ("7450pro", include_str!("../profiles/7450pro.toml")),
    ("7450max", include_str!("../profiles/7450max.toml")),
    ("pm1733", include_str!("../profiles/pm1733.toml")),
    ("cm7r", include_str!("../profiles/cm7r.toml")),
    ("i4i", include_str!("../profiles/i4i.toml")),
    ("970evoplus", include_str!("../profiles/970evoplus.toml")),
    ("nv2", include_str!("../profiles/nv2.toml")),
    ("gsm2ne", include_str!("../profiles/gsm2ne.toml")),
    ("optane-m10", include_str!("../profiles/optane-m10.toml")),
    ("sm863a", include_str!("../profiles/sm863a.toml")),
    ("mtron7525", include_str!("../profiles/mtron7525.toml")),
];

/// The TOML text of a shipped profile.
pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The SSD-iq paper's nine drives as library profiles, in the order of its Tables 2 and 3.
pub const SSD_IQ_PROFILES: [&str; 9] = [
    "pm9a3", "pe8110", "p5520", "sn640", "7450pro", "7450max", "pm1733", "cm7r", "i4i",
];

/// Every shipped profile: (name, TOML text), in the library's order.
pub fn builtin_profiles() -> impl Iterator<Item = (&'static str, &'static str)> {
    BUILTIN.iter().copied()
}

/// Names of the shipped profiles, for error messages.
pub fn builtin_names() -> String {
    BUILTIN
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

pub use ssdiq_schema::emu_info::{ParamSource, ProfileSpec as Spec};

/// Every `key = value  # comment` line of a profile's text, in file order. Comment lines and
/// lines without a comment give an empty source; a `#` inside a quoted string is not a comment.
pub fn sources(text: &str) -> Vec<ParamSource> {
    let mut section = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim().to_string();
            continue;
        }
        let Some((key, rest)) = line.split_once('=') else {
            continue;
        };
        let mut quoted = false;
        let mut cut = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '"' => quoted = !quoted,
                '#' if !quoted => {
                    cut = i;
                    break;
                }
                _ => {}
            }
        }
        out.push(ParamSource {
            section: section.clone(),
            key: key.trim().to_string(),
            value: rest[..cut].trim().to_string(),
            source: rest.get(cut + 1..).unwrap_or("").trim().to_string(),
        });
    }
    out
}

fn err<T>(m: String) -> Result<T, ProfileError> {
    Err(ProfileError(m))
}

/// A whole profile. Sections mirror the TOML file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub name: String,
    pub description: String,
    pub drive: DriveParams,
    pub nand: NandParams,
    pub host: HostParams,
    pub buffer: BufferParams,
    pub gc: GcParams,
    /// The SLC cache of a consumer drive; absent: none.
    #[serde(default)]
    pub slc: SlcParams,
    /// The map of a DRAM-less drive; absent: the whole map in DRAM.
    #[serde(default)]
    pub map: MapParams,
    #[serde(default)]
    pub spec: Spec,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DriveParams {
    /// Logical capacity, a size like "16GiB".
    pub capacity: String,
    /// The logical capacity of the drive the profile stands for. Capacity-dependent firmware
    /// parameters (`units_per_block`, `erase_us`, the buffer's rewrite absorption) are given
    /// at this size and scaled by capacity / full_capacity. Absent: no scaling.
    #[serde(default)]
    pub full_capacity: Option<String>,
    /// OP = (physical - logical) / logical; physical is rounded up to whole superblocks.
    pub op: f64,
    /// GC policy (greedy, fifo, 2r-greedy, ...), parsed when the profile is read.
    pub policy: ssdiq_flash::GcPolicy,
    /// Relocate GC data to its own frontier (always on for 2R policies).
    pub gc_frontier: bool,
    /// With `gc_frontier`: the share of relocated pages the GC frontier takes, the rest going
    /// back to the host log (a policy between naive greedy and a separate GC log). Optional
    /// in a profile: absent, all of them.
    #[serde(default)]
    pub gc_frontier_share: Option<f64>,
    /// When GC runs: "naive" (one victim per trigger into the host's new block, the paper's
    /// naive greedy) or "batched" (victims gathered into blocks of their own: an implicit
    /// hot/cold separation that exploits skew). Optional in a profile.
    #[serde(default = "naive_mode")]
    pub gc_mode: String,
    /// Seed of the FTL's random choices.
    pub seed: u64,
    /// Placement streams (FDP reclaim unit handles): each gets its own write frontier, and a
    /// host write names its stream ([`crate::Drive::write_stream`]). Optional in a profile.
    #[serde(default = "one_stream")]
    pub streams: u32,
}

fn one_stream() -> u32 {
    1
}

fn naive_mode() -> String {
    "naive".into()
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NandParams {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes: u32,
    pub page_kib: u32,
    /// One-shot program programs this many pages per plane (TLC: 3).
    pub bits_per_cell: u32,
    /// Program units per die in one superblock at full capacity (sets the erase-block size;
    /// scaled with the capacity, at least 1).
    pub units_per_block: u32,
    pub read_us: f64,
    pub program_us: f64,
    /// Erase time of a full-size block (scaled with the block).
    pub erase_us: f64,
    pub channel_mb_s: f64,
    pub suspend: bool,
    /// A read's mean wait for a program to reach its next suspend point: the points lie
    /// twice this apart in the program's progress, so the wait runs from 0 to twice this.
    pub program_suspend_us: f64,
    /// Time for a read to get an erase suspended.
    pub erase_suspend_us: f64,
    pub max_suspends: u32,
    /// Fraction of flash reads that need read-retry, and the most extra read steps one takes
    /// (uniform from 1).
    pub read_retry_rate: f64,
    pub read_retry_max_steps: u32,
    /// The memory: "nand" (default: pages written out of place through the FTL, GC, erases)
    /// or "xpoint" (3D XPoint: pages rewritten in place, so no mapping, GC or erase; a
    /// read finds a page on the die its address stripes to). Optional.
    #[serde(default = "nand")]
    pub media: String,
}

fn nand() -> String {
    "nand".into()
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostParams {
    pub link_mb_s: f64,
    pub read_overhead_us: f64,
    pub write_us: f64,
    pub dram_read_us: f64,
    /// Fraction of buffered host writes that wait for a firmware stall before they complete
    /// (0: none), and how long the longest stall lasts: each stalled write waits uniformly
    /// between half of `write_stall_us` and all of it. Optional in a profile.
    #[serde(default)]
    pub write_stall_rate: f64,
    #[serde(default)]
    pub write_stall_us: f64,
    /// The host interface: "nvme" (default: as many queues and commands as the host sends, a
    /// full-duplex link) or "sata" (AHCI with NCQ: one queue of [`SATA_NCQ_DEPTH`] commands,
    /// the rest wait in the host; one half-duplex link for both directions). Optional.
    #[serde(default = "nvme")]
    pub interface: String,
    /// Controller time per command, one command at a time (the firmware's command
    /// processing): the drive's command rate is at most 1 / `command_us`. Optional (0: none).
    #[serde(default)]
    pub command_us: f64,
    /// Commands the drive services at once: a command's flash work starts when one of these
    /// is free (an early controller that works one command at a time: 1). 0: no limit.
    /// Optional.
    #[serde(default)]
    pub command_slots: u32,
    /// Readahead: once host reads run sequentially, the drive reads the next `readahead_kib`
    /// into DRAM ahead of them (two chunks, double buffered), and reads found there skip the
    /// flash read path (`read_overhead_us`, the dies). 0: none. Optional.
    #[serde(default)]
    pub readahead_kib: u64,
    /// The logical block (sector) size the namespace is formatted with: the smallest I/O the
    /// drive takes. The map keeps 4 KiB units whatever it is, so a read of less than a unit
    /// reads the unit, and a write of less than one rewrites it. Optional (4096).
    #[serde(default = "default_lba_bytes")]
    pub lba_bytes: u64,
}

fn default_lba_bytes() -> u64 {
    4096
}

fn nvme() -> String {
    "nvme".into()
}

/// Commands a SATA drive holds at once: NCQ's 32 tags (Serial ATA Revision 2.6, native
/// command queuing).
pub const SATA_NCQ_DEPTH: u32 = 32;

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BufferParams {
    pub buffer_kib: u64,
    /// Which buffered rewrites are absorbed: `scaled` (default) only within the share of the
    /// buffer that stands for the full-size drive (right for traffic that scales with the
    /// capacity), `full` within the whole buffer (right for hot areas of a fixed size, such
    /// as a database's double-write buffer, which a full-size drive absorbs whole), `none`: a
    /// staging buffer that programs every write it accepted (no rewrite is absorbed).
    #[serde(default = "scaled")]
    pub rewrite_window: String,
}

fn scaled() -> String {
    "scaled".into()
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GcParams {
    pub low_watermark: u32,
    pub critical_watermark: u32,
    /// Idle-time GC: once no host request has been in flight for `idle_delay_ms`, GC collects
    /// victims (the policy's choice) at `idle_mb_s` of relocation until `idle_spare` of the
    /// spare space (physical - logical) is in free superblocks; trimmed space is reclaimed
    /// first (its blocks hold nothing to relocate). `idle_mb_s = 0`: no idle GC. Optional.
    #[serde(default)]
    pub idle_delay_ms: f64,
    #[serde(default)]
    pub idle_mb_s: f64,
    #[serde(default)]
    pub idle_spare: f64,
    /// Static wear levelling (what-does-the-ftl-do §2.2.2): once the full superblock of
    /// fewest erases lags the mean erase count by more than this many erases, GC moves its
    /// data next, so cold data GC would never pick does not hold its block's invalid pages
    /// for good. 0: off. Optional.
    #[serde(default)]
    pub wear_level_gap: u32,
}

/// A dynamic SLC cache: host data is programmed in SLC mode into free flash while the cache
/// has room, and folded into native blocks when the host is idle (with idle-time GC's delay)
/// or when the free space it borrows runs short.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlcParams {
    /// Most host data the cache holds, as a share of the logical capacity (0: no cache). It
    /// also holds at most what the free flash takes in SLC mode (a third of it for TLC).
    #[serde(default)]
    pub slc_share: f64,
    /// Program time of one SLC program unit (planes x page, one bit per cell).
    #[serde(default)]
    pub slc_program_us: f64,
}

/// A DRAM-less drive's map (DFTL): map pages (a flash page of 4-byte entries each) live in
/// flash and a cache of `map_cache_kib` (controller SRAM or the host memory buffer) holds the
/// recently used ones; data written in order maps as extents the controller always holds.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MapParams {
    /// The map cache at full size, KiB (0: the whole map in DRAM). Scaled with the capacity,
    /// so it holds the same share of the map at every size.
    #[serde(default)]
    pub map_cache_kib: u64,
}

/// Keys a profile may leave out (they have defaults), by section, with a value of their type:
/// an override may still set them.
const OPTIONAL_KEYS: [(&str, &str, OptionalKind); 25] = [
    ("spec", "seq_read_mb_s", OptionalKind::Number),
    ("spec", "seq_write_mb_s", OptionalKind::Number),
    ("spec", "rand_read_kiops", OptionalKind::Number),
    ("spec", "rand_write_kiops", OptionalKind::Number),
    ("spec", "read_lat_us", OptionalKind::Number),
    ("spec", "write_lat_us", OptionalKind::Number),
    ("drive", "gc_mode", OptionalKind::Text),
    ("drive", "gc_frontier_share", OptionalKind::Number),
    ("drive", "streams", OptionalKind::Whole),
    ("host", "write_stall_rate", OptionalKind::Number),
    ("host", "write_stall_us", OptionalKind::Number),
    ("nand", "media", OptionalKind::Text),
    ("host", "interface", OptionalKind::Text),
    ("host", "command_us", OptionalKind::Number),
    ("host", "command_slots", OptionalKind::Whole),
    ("host", "readahead_kib", OptionalKind::Whole),
    ("host", "lba_bytes", OptionalKind::Whole),
    ("buffer", "rewrite_window", OptionalKind::Text),
    ("gc", "idle_delay_ms", OptionalKind::Number),
    ("gc", "idle_mb_s", OptionalKind::Number),
    ("gc", "idle_spare", OptionalKind::Number),
    ("gc", "wear_level_gap", OptionalKind::Whole),
    ("slc", "slc_share", OptionalKind::Number),
    ("slc", "slc_program_us", OptionalKind::Number),
    ("map", "map_cache_kib", OptionalKind::Whole),
];

#[derive(Clone, Copy)]
enum OptionalKind {
    Number,
    Whole,
    Text,
}

impl DriveParams {
    /// The GC policy as a reader sees it: "greedy", "greedy + GC frontier (50%)",
    /// "greedy (batched)".
    pub fn gc_description(&self) -> String {
        let mut s = self.policy.to_string();
        match (self.gc_frontier, self.gc_frontier_share) {
            (true, Some(share)) if share < 1.0 => {
                s.push_str(&format!(" + GC frontier ({:.0}%)", share * 100.0))
            }
            (true, _) => s.push_str(" + GC frontier"),
            (false, _) => {}
        }
        if self.gc_mode != "naive" {
            s.push_str(&format!(" ({})", self.gc_mode));
        }
        s
    }
}

impl Profile {
    /// The drive library's group of the profile, as `ssdiq info emu:list` shows it: drives
    /// with an SLC cache or in-place media (consumer), or a SATA interface.
    pub fn group(&self) -> &'static str {
        if self.slc.slc_share > 0.0 || self.is_sata() || self.in_place() || self.dram_less() {
            "consumer / SATA"
        } else {
            "data-center"
        }
    }

    /// The GC policy as a reader sees it ([`DriveParams::gc_description`]), or "none (in
    /// place)" for in-place media.
    pub fn gc_description(&self) -> String {
        if self.in_place() {
            "none (in place)".into()
        } else {
            self.drive.gc_description()
        }
    }

    /// "greedy GC", or "no GC (written in place)" for in-place media.
    pub fn gc_phrase(&self) -> String {
        if self.in_place() {
            "no GC (written in place)".into()
        } else {
            format!("{} GC", self.drive.gc_description())
        }
    }

    /// True for in-place media (3D XPoint): no FTL mapping, GC or erase.
    pub fn in_place(&self) -> bool {
        self.nand.media == "xpoint"
    }

    /// True for a drive whose map is not all in DRAM.
    pub fn dram_less(&self) -> bool {
        self.map.map_cache_kib > 0
    }

    /// True for a drive behind a SATA host interface.
    pub fn is_sata(&self) -> bool {
        self.host.interface == "sata"
    }

    /// Commands the drive holds at once (`None`: as many as the host sends).
    pub fn queue_limit(&self) -> Option<u32> {
        self.is_sata().then_some(SATA_NCQ_DEPTH)
    }

    /// [`Profile::parse`], then the geometry check building its drive makes
    /// ([`crate::check_geometry`]: OP and capacity leave GC its free superblocks): a profile
    /// this accepts builds a drive.
    pub fn parse_checked(text: &str, overrides: &[(&str, &str)]) -> Result<Profile, ProfileError> {
        let p = Profile::parse(text, overrides)?;
        crate::check_geometry(&p)?;
        Ok(p)
    }

    /// Parses `text` (a profile file's contents), applies `overrides` in order, checks it.
    pub fn parse(text: &str, overrides: &[(&str, &str)]) -> Result<Profile, ProfileError> {
        let mut tree: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| ProfileError(located(text, &e)))?;
        // The file read as a profile on its own first, where errors still know their line.
        if let Err(e) = toml::from_str::<Profile>(text) {
            return Err(ProfileError(located(text, &e)));
        }
        let file = tree.clone();
        let mut given: Vec<((String, String), String)> = Vec::new();
        for (k, v) in overrides {
            let at = apply_override(&mut tree, &file, k, v)?;
            if let Some((_, first)) = given.iter().find(|(g, _)| *g == at) {
                return err(format!(
                    "invalid emu option \"{}={}\": {} is already given ({first}); give each key once",
                    k.trim(),
                    v.trim(),
                    at.1
                ));
            }
            given.push((at, format!("{}={}", k.trim(), v.trim())));
        }
        let p: Profile = toml::Value::Table(tree)
            .try_into()
            .map_err(|e: toml::de::Error| {
                ProfileError(format!(
                    "{} (after the options {})",
                    one_line(e.message()),
                    overrides
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(",")
                ))
            })?;
        p.check()?;
        Ok(p)
    }

    /// Logical capacity in bytes.
    pub fn capacity_bytes(&self) -> Result<u64, ProfileError> {
        parse_size(&self.drive.capacity).map_err(|e| ProfileError(format!("capacity: {e}")))
    }

    /// Logical capacity of the full-size drive the profile stands for, in bytes.
    pub fn full_capacity_bytes(&self) -> Result<u64, ProfileError> {
        match &self.drive.full_capacity {
            Some(f) => parse_size(f).map_err(|e| ProfileError(format!("full_capacity: {e}"))),
            None => self.capacity_bytes(),
        }
    }

    /// capacity / full_capacity: the factor capacity-dependent parameters are scaled by.
    pub fn scale(&self) -> Result<f64, ProfileError> {
        Ok(self.capacity_bytes()? as f64 / self.full_capacity_bytes()? as f64)
    }

    fn check(&self) -> Result<(), ProfileError> {
        let cap = self.capacity_bytes()?;
        if cap == 0 || !cap.is_multiple_of(4096) {
            return err(format!(
                "invalid capacity \"{}\": expected a positive multiple of 4 KiB",
                self.drive.capacity
            ));
        }
        if self.full_capacity_bytes()? == 0 {
            return err(format!(
                "invalid full_capacity \"{}\": expected a size > 0",
                self.drive.full_capacity.as_deref().unwrap_or("")
            ));
        }
        if !(self.drive.op > 0.0 && self.drive.op.is_finite() && self.drive.op < 10.0) {
            return err(format!(
                "invalid op \"{}\": expected spare flash as a fraction of the capacity, above 0 and below 10 (e.g. 0.12 for 12%)",
                self.drive.op
            ));
        }
        let n = &self.nand;
        for (k, v) in [
            ("channels", n.channels),
            ("dies_per_channel", n.dies_per_channel),
            ("planes", n.planes),
            ("bits_per_cell", n.bits_per_cell),
            ("units_per_block", n.units_per_block),
        ] {
            if v == 0 || v > 1024 {
                return err(format!(
                    "invalid {k} \"{v}\": expected a whole number from 1 to 1024"
                ));
            }
        }
        if n.page_kib < 4 || !n.page_kib.is_multiple_of(4) || n.page_kib > 1024 {
            return err(format!(
                "invalid page_kib \"{}\": expected a multiple of 4 up to 1024",
                n.page_kib
            ));
        }
        // A buffer holds at least what one program takes, as on any real drive: the flash
        // is written a program unit at a time.
        let unit_kib = n.bits_per_cell as u64 * n.planes as u64 * n.page_kib as u64;
        if self.buffer.buffer_kib < unit_kib {
            return err(format!(
                "invalid buffer_kib \"{}\": expected at least {unit_kib} KiB, one program unit (bits_per_cell x planes x page_kib)",
                self.buffer.buffer_kib
            ));
        }
        // A flash operation or a controller step takes microseconds to milliseconds on any
        // drive (QLC programs some 5 ms); a firmware stall up to a second. Beyond, a drive's
        // requests in flight at a step's deadline would finish hours later.
        for (k, v, below) in [
            ("read_us", n.read_us, 1e5),
            ("program_us", n.program_us, 1e5),
            ("erase_us", n.erase_us, 1e5),
            ("program_suspend_us", n.program_suspend_us, 1e5),
            ("erase_suspend_us", n.erase_suspend_us, 1e5),
            ("read_overhead_us", self.host.read_overhead_us, 1e5),
            ("write_us", self.host.write_us, 1e5),
            ("dram_read_us", self.host.dram_read_us, 1e5),
            ("write_stall_us", self.host.write_stall_us, 1e6),
            ("command_us", self.host.command_us, 1e5),
        ] {
            if !(0.0..below).contains(&v) {
                return err(format!(
                    "invalid {k} \"{v}\": expected microseconds from 0 to below {below}"
                ));
            }
        }
        for (k, v) in [
            ("channel_mb_s", n.channel_mb_s),
            ("link_mb_s", self.host.link_mb_s),
        ] {
            // A floor, not only > 0: a rate of 1e-7 MB/s passed, and one page's transfer took
            // days of virtual time, so a 1 s run ran for 1,966,080 virtual seconds.
            if !(v >= MIN_MB_S && v.is_finite()) {
                return err(format!(
                    "invalid {k} \"{v}\": expected MB/s of at least {MIN_MB_S}"
                ));
            }
        }
        if !(0.0..=1.0).contains(&n.read_retry_rate) {
            return err(format!(
                "invalid read_retry_rate \"{}\": expected a fraction from 0 to 1",
                n.read_retry_rate
            ));
        }
        match n.media.as_str() {
            "nand" => {}
            "xpoint" => {
                let clash = [
                    (
                        self.slc.slc_share > 0.0,
                        format!("slc_share = {} (an SLC cache)", self.slc.slc_share),
                    ),
                    (
                        self.map.map_cache_kib > 0,
                        format!("map_cache_kib = {} (a map cache)", self.map.map_cache_kib),
                    ),
                    (
                        self.drive.streams > 1,
                        format!("streams = {}", self.drive.streams),
                    ),
                ];
                let clash: Vec<String> = clash.into_iter().filter(|c| c.0).map(|c| c.1).collect();
                if !clash.is_empty() {
                    return err(format!(
                        "invalid media \"xpoint\" with {}: in-place media have no SLC cache, no map cache and one stream; set it to 0 (streams to 1)",
                        clash.join(" and ")
                    ));
                }
            }
            other => {
                return err(format!(
                    "invalid media \"{other}\": expected nand or xpoint"
                ))
            }
        }
        if !matches!(self.host.interface.as_str(), "nvme" | "sata") {
            return err(format!(
                "invalid interface \"{}\": expected nvme or sata",
                self.host.interface
            ));
        }
        if self.map.map_cache_kib > 1 << 30 {
            return err(format!(
                "invalid map_cache_kib \"{}\": expected KiB from 0 (the whole map in DRAM) to 2^30",
                self.map.map_cache_kib
            ));
        }
        if self.host.readahead_kib > 1 << 20 {
            return err(format!(
                "invalid readahead_kib \"{}\": expected KiB from 0 (none) to 1048576",
                self.host.readahead_kib
            ));
        }
        if !matches!(self.host.lba_bytes, 512 | 1024 | 2048 | 4096) {
            return err(format!(
                "invalid lba_bytes \"{}\": expected 512, 1024, 2048 or 4096",
                self.host.lba_bytes
            ));
        }
        if self.host.command_slots > 1024 {
            return err(format!(
                "invalid command_slots \"{}\": expected a whole number from 0 (no limit) to 1024",
                self.host.command_slots
            ));
        }
        if !(0.0..=1.0).contains(&self.host.write_stall_rate) {
            return err(format!(
                "invalid write_stall_rate \"{}\": expected a fraction from 0 to 1",
                self.host.write_stall_rate
            ));
        }
        if let Some(s) = self.drive.gc_frontier_share {
            if !(0.0..=1.0).contains(&s) {
                return err(format!(
                    "invalid gc_frontier_share \"{s}\": expected a share from 0 to 1"
                ));
            }
            if !self.drive.gc_frontier {
                return err(format!(
                    "invalid gc_frontier_share \"{s}\": it needs gc_frontier = true (or no gc_frontier_share)"
                ));
            }
        }
        if self.drive.gc_mode.parse::<ssdiq_flash::GcMode>().is_err() {
            return err(format!(
                "invalid gc_mode \"{}\": expected naive or batched",
                self.drive.gc_mode
            ));
        }
        if n.read_retry_max_steps == 0 || n.read_retry_max_steps > 100 {
            return err(format!(
                "invalid read_retry_max_steps \"{}\": expected a whole number from 1 to 100",
                n.read_retry_max_steps
            ));
        }
        let g = &self.gc;
        if g.critical_watermark == 0 || g.low_watermark <= g.critical_watermark {
            return err(format!(
                "invalid watermarks low_watermark={} critical_watermark={}: expected 1 <= critical < low",
                g.low_watermark, g.critical_watermark
            ));
        }
        for (k, v, max) in [
            ("idle_delay_ms", g.idle_delay_ms, 1e9),
            ("idle_mb_s", g.idle_mb_s, 1e6),
            ("idle_spare", g.idle_spare, 0.99),
        ] {
            if !(v >= 0.0 && v <= max) {
                return err(format!(
                    "invalid {k} \"{v}\": expected a number from 0 to {max}"
                ));
            }
        }
        // As the channel's floor: a pace of 1e-12 MB/s overflowed the idle GC's wait per page.
        if g.idle_mb_s > 0.0 && g.idle_mb_s < MIN_MB_S {
            return err(format!(
                "invalid idle_mb_s \"{}\": expected 0 (no idle-time GC) or MB/s of at least {MIN_MB_S}",
                g.idle_mb_s
            ));
        }
        let c = &self.slc;
        if !(0.0..=0.5).contains(&c.slc_share) {
            return err(format!(
                "invalid slc_share \"{}\": expected a share of the capacity from 0 to 0.5",
                c.slc_share
            ));
        }
        if c.slc_share > 0.0 {
            if !(c.slc_program_us > 0.0 && c.slc_program_us < n.program_us) {
                return err(format!(
                    "invalid slc_program_us \"{}\": expected microseconds > 0 and below program_us ({})",
                    c.slc_program_us, n.program_us
                ));
            }
            if n.bits_per_cell < 2 {
                return err(format!(
                    "invalid slc_share \"{}\": an SLC cache needs bits_per_cell >= 2 (the drive's cells hold {} bit)",
                    c.slc_share, n.bits_per_cell
                ));
            }
            if self.drive.streams > 1 {
                return err(format!(
                    "invalid slc_share \"{}\": the emulator's SLC cache takes one stream (streams = {})",
                    c.slc_share, self.drive.streams
                ));
            }
        }
        for (k, v) in [
            ("seq_read_mb_s", self.spec.seq_read_mb_s),
            ("seq_write_mb_s", self.spec.seq_write_mb_s),
            ("rand_read_kiops", self.spec.rand_read_kiops),
            ("rand_write_kiops", self.spec.rand_write_kiops),
            ("read_lat_us", self.spec.read_lat_us),
            ("write_lat_us", self.spec.write_lat_us),
        ] {
            if let Some(v) = v {
                if !(v > 0.0 && v.is_finite()) {
                    return err(format!("invalid {k} \"{v}\": expected a number > 0"));
                }
            }
        }
        Ok(())
    }
}

/// The slowest channel or host link a profile may have, in MB/s: a 16 KiB page then moves in
/// 16 ms, and a run's steps stay within their times.
const MIN_MB_S: f64 = 1.0;

/// A TOML error with the line it points at and that line's text (its key), in one line.
fn located(text: &str, e: &toml::de::Error) -> String {
    let Some(span) = e.span() else {
        return one_line(e.message());
    };
    let start = span.start.min(text.len());
    let line_no = text[..start].matches('\n').count() + 1;
    let line = text.lines().nth(line_no - 1).unwrap_or("").trim();
    let shown: String = line.chars().take(80).collect();
    if shown.is_empty() {
        format!("{} (line {line_no})", one_line(e.message()))
    } else {
        format!("{} (line {line_no}: `{shown}`)", one_line(e.message()))
    }
}

fn one_line(s: &str) -> String {
    format!(
        "invalid profile: {}",
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}

/// Every `section.key` leaf of the tree.
fn leaves(tree: &toml::Table) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for (s, val) in tree {
        match val {
            toml::Value::Table(t) => {
                for k in t.keys() {
                    v.push((s.clone(), k.clone()));
                }
            }
            _ => v.push((String::new(), s.clone())),
        }
    }
    v
}

/// Whether the profile's field at `sec.leaf` takes a fraction (a number, not a count), probed
/// on `file`, the profile file's own tree before any override: so the answer does not hang on
/// what earlier overrides did to the tree.
fn takes_fraction(file: &toml::Table, sec: &str, leaf: &str) -> bool {
    let mut t = file.clone();
    let slot = match sec.is_empty() {
        true => Some(&mut t),
        false => t.get_mut(sec).and_then(|s| s.as_table_mut()),
    };
    let Some(slot) = slot else {
        return false;
    };
    slot.insert(leaf.to_string(), toml::Value::Float(0.5));
    toml::Value::Table(t).try_into::<Profile>().is_ok()
}

/// Sets `key` (a leaf name, or `section.key`) to `value` in `tree`; returns the
/// `(section, key)` it resolved to.
fn apply_override(
    tree: &mut toml::Table,
    file: &toml::Table,
    key: &str,
    value: &str,
) -> Result<(String, String), ProfileError> {
    let key = key.trim();
    let value = value.trim();
    let (want_sec, leaf) = match key.split_once('.') {
        Some((s, k)) => (Some(s), k),
        None => (None, key),
    };
    let mut found: Vec<(String, String)> = leaves(tree)
        .into_iter()
        .filter(|(s, k)| k == leaf && want_sec.is_none_or(|w| w == s))
        .collect();
    let optional = OPTIONAL_KEYS
        .iter()
        .find(|(s, k, _)| *k == leaf && want_sec.is_none_or(|w| w == *s));
    if found.is_empty() {
        if let Some((s, k, _)) = optional {
            found.push((s.to_string(), k.to_string()));
        }
    }
    if found.len() != 1 || key == "name" {
        let mut known: Vec<String> = leaves(tree)
            .into_iter()
            .map(|(_, k)| k)
            .filter(|k| k != "name")
            .collect();
        for (_, k, _) in OPTIONAL_KEYS {
            if !known.iter().any(|x| x == k) {
                known.push(k.into());
            }
        }
        known.sort();
        return err(format!(
            "unknown emu key \"{key}\": expected one of {}",
            known.join(", ")
        ));
    }
    let (sec, leaf) = found.pop().expect("one match");
    let held = match sec.is_empty() {
        true => tree.get(&leaf),
        false => tree
            .get(&sec)
            .and_then(|t| t.as_table())
            .and_then(|t| t.get(&leaf)),
    };
    let old = held.cloned().or(match optional {
        Some((_, _, OptionalKind::Whole)) => Some(toml::Value::Integer(0)),
        Some((_, _, OptionalKind::Text)) => Some(toml::Value::String(String::new())),
        _ => None,
    });
    let bad =
        |what: &str| ProfileError(format!("invalid emu value {key}={value}: expected {what}"));
    // A number the file writes whole (`program_us = 2000`, a fitted share of 1) still takes a
    // fraction where the profile's field is one: it is read as a float, as the field is.
    let old = match old {
        Some(toml::Value::Integer(_)) if takes_fraction(file, &sec, &leaf) => None,
        old => old,
    };
    let new = match old {
        Some(toml::Value::Integer(_)) => toml::Value::Integer(
            value
                .parse::<i64>()
                .ok()
                .filter(|v| *v >= 0)
                .ok_or_else(|| bad("a whole number >= 0"))?,
        ),
        Some(toml::Value::Boolean(_)) => toml::Value::Boolean(match value {
            "on" | "true" | "yes" | "1" => true,
            "off" | "false" | "no" | "0" => false,
            _ => return Err(bad("on or off")),
        }),
        Some(toml::Value::String(_)) => {
            if leaf == "capacity" || leaf == "full_capacity" {
                parse_size(value).map_err(|_| bad("a size like 16GiB"))?;
            }
            if leaf == "gc_mode" {
                value
                    .parse::<ssdiq_flash::GcMode>()
                    .map_err(|_| bad("a GC mode: naive or batched"))?;
            }
            if leaf == "policy" {
                value
                    .parse::<ssdiq_flash::GcPolicy>()
                    .map_err(|_| bad("a GC policy: greedy, fifo, random, dchoices:D, cost-benefit, 2r-greedy or 2r-fifo"))?;
            }
            toml::Value::String(value.to_string())
        }
        _ => {
            // Floats, and spec keys the profile leaves out.
            let v: f64 = value.parse().map_err(|_| bad("a number"))?;
            if !v.is_finite() {
                return Err(bad("a finite number"));
            }
            toml::Value::Float(v)
        }
    };
    let slot = if sec.is_empty() {
        tree
    } else {
        tree.entry(sec.clone())
            .or_insert_with(|| toml::Value::Table(Default::default()))
            .as_table_mut()
            .expect("a section")
    };
    slot.insert(leaf.clone(), new);
    Ok((sec, leaf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse() {
        for (name, text) in BUILTIN {
            let p = Profile::parse(text, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(&p.name, name);
        }
    }

    #[test]
    fn a_number_the_file_writes_whole_takes_a_fraction_but_a_count_does_not() {
        let t = builtin("default").unwrap();
        let p = Profile::parse(t, &[("program_us", "2500.5")]).unwrap();
        assert_eq!(p.nand.program_us, 2500.5);
        // A twin's file, as the fit writes a share of 1.0.
        let twin = t.replacen(
            "gc_frontier = false",
            "gc_frontier = true\ngc_frontier_share = 1",
            1,
        );
        let p = Profile::parse(&twin, &[("gc_frontier_share", "0.5")]).unwrap();
        assert_eq!(p.drive.gc_frontier_share, Some(0.5));
        let e = Profile::parse(t, &[("channels", "2.5")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("invalid emu value channels=2.5: expected a whole number >= 0"),
            "{e}"
        );
    }

    #[test]
    fn an_override_takes_a_fraction_whatever_earlier_overrides_did_and_says_what_it_wanted() {
        let t = builtin("default").unwrap();
        // An earlier override that leaves the tree unreadable (too many channels for a u32)
        // does not turn program_us into a count.
        let e = Profile::parse(t, &[("channels", "5000000000"), ("program_us", "2500.5")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("integer `5000000000`, expected u32")
                && !e.contains("invalid emu value program_us"),
            "{e}"
        );
        // A field of fractions the file writes whole asks for a number, not a whole one.
        let e = Profile::parse(t, &[("program_us", "abc")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("program_us=abc: expected a number"), "{e}");
        let e = Profile::parse(t, &[("idle_mb_s", "0.000000000001")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("expected 0 (no idle-time GC) or MB/s of at least 1"),
            "{e}"
        );
        assert!(Profile::parse(t, &[("idle_mb_s", "0")]).is_ok());
    }

    #[test]
    fn a_channel_or_link_below_one_mb_s_is_refused() {
        let t = builtin("default").unwrap();
        for k in ["channel_mb_s", "link_mb_s"] {
            let e = Profile::parse(t, &[(k, "0.0000001")])
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!(
                    "invalid {k} \"0.0000001\": expected MB/s of at least 1"
                )),
                "{e}"
            );
            assert!(Profile::parse(t, &[(k, "1")]).is_ok());
        }
    }

    #[test]
    fn overrides_apply_and_fail_in_one_line() {
        let t = builtin("default").unwrap();
        let p = Profile::parse(
            t,
            &[("op", "0.2"), ("capacity", "1GiB"), ("suspend", "off")],
        )
        .unwrap();
        assert_eq!(p.drive.op, 0.2);
        assert_eq!(p.capacity_bytes().unwrap(), 1 << 30);
        assert!(!p.nand.suspend);
        let p = Profile::parse(t, &[("nand.read_us", "50"), ("rand_read_kiops", "9")]).unwrap();
        assert_eq!(p.nand.read_us, 50.0);
        assert_eq!(p.spec.rand_read_kiops, Some(9.0));
        for (k, v, want) in [
            ("opp", "1", "unknown emu key \"opp\""),
            ("op", "x", "invalid emu value op=x: expected a number"),
            ("suspend", "maybe", "expected on or off"),
            ("capacity", "lots", "expected a size"),
            ("policy", "lifo", "expected a GC policy"),
            ("channels", "-1", "whole number"),
            ("op", "0", "invalid op"),
            ("gc_frontier_share", "0.5", "it needs gc_frontier = true"),
        ] {
            let e = Profile::parse(t, &[(k, v)]).unwrap_err().to_string();
            assert!(e.contains(want), "{k}={v}: {e}");
            assert!(!e.contains('\n'));
        }
        let with = |v: &str| Profile::parse(t, &[("gc_frontier", "on"), ("gc_frontier_share", v)]);
        assert_eq!(
            with("0.25").unwrap().drive.gc_description(),
            "greedy + GC frontier (25%)"
        );
        let e = with("1.5").unwrap_err().to_string();
        assert!(
            e.contains("invalid gc_frontier_share \"1.5\": expected a share from 0 to 1"),
            "{e}"
        );
    }

    #[test]
    fn a_bad_profile_file_names_the_line_and_its_key() {
        let t = builtin("default").unwrap();
        let bad = t.replacen("capacity = \"", "capacity = 5 # \"", 1);
        let line = bad
            .lines()
            .position(|l| l.starts_with("capacity = 5"))
            .unwrap()
            + 1;
        let e = Profile::parse(&bad, &[]).unwrap_err().to_string();
        assert!(
            e.contains("expected a string") && e.contains(&format!("(line {line}: `capacity = 5")),
            "{e}"
        );
        let e = Profile::parse("[drive\n", &[]).unwrap_err().to_string();
        assert!(e.contains("(line 1"), "{e}");
    }

    #[test]
    fn a_buffer_below_one_program_unit_and_a_key_given_twice_are_refused() {
        let t = builtin("default").unwrap();
        let e = Profile::parse(t, &[("buffer_kib", "191")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("invalid buffer_kib \"191\": expected at least 192 KiB"),
            "{e}"
        );
        assert!(Profile::parse(t, &[("buffer_kib", "192")]).is_ok());
        let e = Profile::parse(t, &[("op", "0.2"), ("drive.op", "0.3")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("op is already given (op=0.2)"), "{e}");
    }
}
