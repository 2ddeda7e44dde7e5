//! What `ssdiq info` tells of an emulated drive ([`facts`]), of its profile's parameters
//! ([`parameters`]) and of the shipped profiles ([`listed`]): the emulated part of the info
//! document (`ssdiq_schema::emu_info`).

use std::fmt::Write as _;

use ssdiq_schema::emu_info::{
    EmuGeometry, EmuScaling, EmulatedFacts, ListedProfile, ProfileParameter,
};
use ssdiq_workload::units::{format_size, format_size_approx};

use crate::executor::EmuExecutor;
use crate::profile::{sources, ParamSource, Profile, ProfileError, BUILTIN};
use crate::target::EmuTarget;

/// What `ssdiq info` tells of the drive `e` runs: geometry, scaling, spec, counters, and each
/// mechanism the profile turns on, in words.
pub fn facts(e: &EmuExecutor) -> EmulatedFacts {
    let p = e.profile();
    let g = e.drive().geometry();
    let t = e.drive().timing();
    let c = e.write_counters();
    EmulatedFacts {
        profile: p.name.clone(),
        description: e.description().to_string(),
        policy: e.drive().ftl().policy().to_string(),
        gc: p.gc_phrase(),
        suspend: p.nand.suspend,
        geometry: EmuGeometry {
            logical_bytes: g.logical_bytes(),
            physical_bytes: g.physical_bytes(),
            logical_block_bytes: e.logical_block_size(),
            op: g.op(),
            fill: g.fill(),
            spare_factor: g.spare_factor(),
            channels: p.nand.channels,
            dies: t.dies,
            planes: p.nand.planes,
            page_kib: p.nand.page_kib,
            program_unit_bytes: t.unit_pages as u64 * g.page_bytes,
            superblock_bytes: g.ppb() * g.page_bytes,
            superblocks: g.blocks,
            buffer_bytes: t.buffer_pages * g.page_bytes,
        },
        scaling: EmuScaling {
            scale: t.scale,
            full_capacity_bytes: p.full_capacity_bytes().unwrap_or(g.logical_bytes()),
            units_per_block: t.units_per_block,
            full_units_per_block: p.nand.units_per_block,
            superblock_bytes: g.ppb() * g.page_bytes,
            full_superblock_bytes: g.ppb() * g.page_bytes / t.units_per_block as u64
                * p.nand.units_per_block as u64,
            erase_us: t.erase_ns as f64 / 1e3,
            full_erase_us: p.nand.erase_us,
            rewrite_window_bytes: t.window_pages * g.page_bytes,
            buffer_bytes: t.buffer_pages * g.page_bytes,
            superblocks: g.blocks,
            full_superblocks: {
                let full = p.full_capacity_bytes().unwrap_or(g.logical_bytes());
                let sb = g.ppb() * g.page_bytes / t.units_per_block as u64
                    * p.nand.units_per_block as u64;
                ((full as f64 * (1.0 + p.drive.op)).ceil() as u64).div_ceil(sb)
            },
        },
        spec: e.spec(),
        host_bytes: c.host_bytes,
        media_bytes: c.media_bytes.unwrap_or(0),
        profile_op: p.drive.op,
        gc_timing: if p.in_place() {
            "none: pages are rewritten in place".into()
        } else {
            let idle = if p.gc.idle_mb_s > 0.0 {
                format!(
                    "idle-time GC after {} ms idle at {} MB/s, up to {:.0}% of the spare free",
                    p.gc.idle_delay_ms,
                    p.gc.idle_mb_s,
                    p.gc.idle_spare * 100.0
                )
            } else {
                "no idle-time GC".into()
            };
            let levelling = match p.gc.wear_level_gap {
                0 => String::new(),
                gap => format!(
                    "; static wear levelling once a superblock lags the mean by more than {gap} erases"
                ),
            };
            format!("GC paced against host writes; {idle}{levelling}")
        },
        host_interface: host_interface(p),
        readahead: (p.host.readahead_kib > 0).then(|| {
            format!(
                "{} KiB chunks into DRAM once reads run sequentially (one chunk ahead of the stream); reads found there skip the flash read path",
                p.host.readahead_kib
            )
        }),
        map_cache: (t.map_cache_pages > 0).then(|| {
            let segs = g.logical_pages.div_ceil(t.map_seg_pages);
            format!(
                "DRAM-less (DFTL): {segs} map pages of {} KiB in flash ({} entries, {} of data each), {} of them cached (a {} cache at full size); a miss reads the page, first writing back a changed one it evicts; data written in order maps as extents, which need no cache",
                p.nand.page_kib,
                t.map_seg_pages,
                format_size(t.map_seg_pages * g.page_bytes),
                t.map_cache_pages.min(segs as u32),
                format_size(p.map.map_cache_kib * 1024),
            )
        }),
        media: p.in_place().then(|| {
            "3D XPoint, written in place: no mapping, GC or erase (WAF 1); a read finds a page on the die its address stripes to".into()
        }),
        slc_cache: (t.slc_pages > 0).then(|| {
            format!(
                "{} ({}% of the capacity, less as the drive fills: at most a {} of the free flash), SLC program {} us per {}; folded when the host is idle{} or when the free flash runs short",
                format_size_approx((t.slc_pages * g.page_bytes) as f64),
                p.slc.slc_share * 100.0,
                match p.nand.bits_per_cell {
                    2 => "half".to_string(),
                    3 => "third".to_string(),
                    4 => "quarter".to_string(),
                    b => format!("1/{b}"),
                },
                p.slc.slc_program_us,
                format_size(t.slc_unit_pages as u64 * g.page_bytes),
                if p.gc.idle_mb_s > 0.0 {
                    format!(" ({} ms)", p.gc.idle_delay_ms)
                } else {
                    " (never: no idle-time GC)".to_string()
                }
            )
        }),
    }
}

/// The host interface in words, unless it is NVMe with no per-command limits.
fn host_interface(p: &Profile) -> Option<String> {
    let h = &p.host;
    let mut s = match p.queue_limit() {
        Some(q) => format!(
            "SATA: one queue of {q} commands (NCQ; more wait in the host), one half-duplex {} MB/s link",
            h.link_mb_s
        ),
        None if h.command_us > 0.0 || h.command_slots > 0 => {
            format!("NVMe, {} MB/s link each way", h.link_mb_s)
        }
        None => return None,
    };
    if h.command_us > 0.0 {
        let _ = write!(
            s,
            "; controller {} us per command (at most {:.0}k commands/s)",
            h.command_us,
            1e3 / h.command_us
        );
    }
    match h.command_slots {
        0 => {}
        1 => s.push_str("; one command serviced at a time"),
        n => {
            let _ = write!(s, "; {n} commands serviced at a time");
        }
    }
    Some(s)
}

/// The parameters of the profile `target` names, each with where its value comes from, and
/// the command line's overrides.
pub fn parameters(target: &str) -> Result<Vec<ProfileParameter>, ProfileError> {
    let EmuTarget {
        text, overrides, ..
    } = EmuTarget::parse(target)?;
    let mut params: Vec<ProfileParameter> = sources(&text)
        .into_iter()
        .filter(|p| p.key != "name" && p.key != "description")
        .map(|file| ProfileParameter {
            file,
            overridden: None,
        })
        .collect();
    for (k, v) in overrides {
        let (sec, key) = match k.split_once('.') {
            Some((s, k)) => (Some(s.to_string()), k.to_string()),
            None => (None, k),
        };
        match params
            .iter_mut()
            .find(|p| p.file.key == key && sec.as_deref().is_none_or(|s| s == p.file.section))
        {
            Some(p) => p.overridden = Some(v),
            None => params.push(ProfileParameter {
                file: ParamSource {
                    section: sec.unwrap_or_default(),
                    key,
                    value: String::new(),
                    source: String::new(),
                },
                overridden: Some(v),
            }),
        }
    }
    Ok(params)
}

/// Every shipped profile, as `ssdiq info emu:list` shows it.
pub fn listed() -> Result<Vec<ListedProfile>, ProfileError> {
    let mut rows = Vec::new();
    for (name, text) in BUILTIN {
        let p = Profile::parse(text, &[])
            .map_err(|e| ProfileError(format!("shipped profile {name} is invalid: {e}")))?;
        let policy = p.gc_description();
        rows.push(ListedProfile {
            name: name.to_string(),
            group: p.group().to_string(),
            description: p.description.clone(),
            capacity: p.drive.capacity.clone(),
            full_capacity: p.drive.full_capacity.clone(),
            op: p.drive.op,
            policy,
            spec: p.spec,
        });
    }
    Ok(rows)
}
