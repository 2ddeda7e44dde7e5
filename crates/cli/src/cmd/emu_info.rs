//! `ssdiq info emu:PROFILE`: the emulated drive's identity, geometry, OP, timing profile,
//! datasheet spec and write counters (a fresh drive: zero). Human text on stdout, the same
//! facts as JSON with `--json` (the `info` object a real drive gives, plus `"emulated"`).

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use ssdiq_emu::{
    capacity_text, sources, EmuExecutor, EmuSpec, EmuTarget, ParamSource, Profile, BUILTIN,
};
use ssdiq_nvme::{InfoReport, WriteCounters};
use ssdiq_workload::units::{format_size, format_size_approx};

use crate::error::usage;
use crate::output::write_json;

#[derive(Serialize)]
struct Geometry {
    logical_bytes: u64,
    physical_bytes: u64,
    logical_block_bytes: u64,
    op: f64,
    fill: f64,
    spare_factor: f64,
    channels: u32,
    dies: u32,
    planes: u32,
    page_kib: u32,
    program_unit_bytes: u64,
    superblock_bytes: u64,
    superblocks: u32,
    buffer_bytes: u64,
}

/// What a scaled drive changed to stand for its full-size drive (capacity / full capacity).
#[derive(Serialize)]
struct Scaling {
    scale: f64,
    full_capacity_bytes: u64,
    units_per_block: u32,
    full_units_per_block: u32,
    superblock_bytes: u64,
    full_superblock_bytes: u64,
    erase_us: f64,
    full_erase_us: f64,
    rewrite_window_bytes: u64,
    buffer_bytes: u64,
    superblocks: u32,
    full_superblocks: u64,
}

/// A size as written in a profile: decimal units when it is a whole number of them.
fn size_text(b: u64) -> String {
    for (unit, name) in [(1_000_000_000_000u64, "TB"), (1_000_000_000, "GB")] {
        if b >= unit && b.is_multiple_of(unit / 1000) && !b.is_multiple_of(1 << 30) {
            return format!("{} {name}", b as f64 / unit as f64);
        }
    }
    format_size(b)
}

#[derive(Serialize)]
struct Emulated {
    profile: String,
    description: String,
    policy: String,
    suspend: bool,
    geometry: Geometry,
    scaling: Scaling,
    spec: EmuSpec,
    host_bytes: u64,
    media_bytes: u64,
    /// How GC runs, for the text only (the profile's parameters are in the JSON's own keys).
    #[serde(skip)]
    gc_timing: String,
    /// The SLC cache, when the profile has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    slc_cache: Option<String>,
    /// The host interface, unless it is NVMe with no per-command limits.
    #[serde(skip_serializing_if = "Option::is_none")]
    host_interface: Option<String>,
    /// The drive's readahead, when the profile has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    readahead: Option<String>,
    /// A DRAM-less drive's map cache, when the profile has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    map_cache: Option<String>,
    /// In-place media (3D XPoint), when the profile has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    media: Option<String>,
    /// The policy with its GC frontier and mode, for the text only.
    #[serde(skip)]
    gc: String,
    /// The profile's `op`, before rounding up to whole superblocks (text only).
    #[serde(skip)]
    profile_op: f64,
}

fn facts(e: &EmuExecutor) -> Emulated {
    let p = e.profile();
    let g = e.drive().geometry();
    let t = e.drive().timing();
    let c = e.write_counters();
    Emulated {
        profile: p.name.clone(),
        description: e.description().to_string(),
        policy: e.drive().ftl().policy().to_string(),
        gc: p.gc_phrase(),
        suspend: p.nand.suspend,
        geometry: Geometry {
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
        scaling: Scaling {
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
        } else if p.gc.idle_mb_s > 0.0 {
            format!(
                "GC paced against host writes; idle-time GC after {} ms idle at {} MB/s, up to {:.0}% of the spare free",
                p.gc.idle_delay_ms,
                p.gc.idle_mb_s,
                p.gc.idle_spare * 100.0
            )
        } else {
            "GC paced against host writes; no idle-time GC".into()
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

fn opt(v: Option<f64>, unit: &str) -> String {
    v.map(|x| format!("{x} {unit}"))
        .unwrap_or_else(|| "-".into())
}

fn render(target: &str, f: &Emulated) -> String {
    let g = &f.geometry;
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "{target} (emulated, virtual time)");
    let _ = writeln!(w, "  model            {}", f.description);
    let _ = writeln!(w, "  profile          {}", f.profile);
    let _ = writeln!(
        w,
        "  capacity         {} logical, {} physical, {}-byte blocks",
        capacity_text(g.logical_bytes),
        format_size(g.physical_bytes),
        g.logical_block_bytes
    );
    let _ = writeln!(
        w,
        "  provisioning     OP {:.2}% (physical-logical)/logical: the profile's op {} rounded up to whole superblocks; fill {:.4}, spare factor {:.2}%",
        g.op * 100.0,
        f.profile_op,
        g.fill,
        g.spare_factor * 100.0
    );
    let _ = writeln!(
        w,
        "  geometry         {} channels, {} dies, {} planes, {} KiB pages; program unit {}, superblock {} x {}",
        g.channels,
        g.dies,
        g.planes,
        g.page_kib,
        format_size(g.program_unit_bytes),
        format_size(g.superblock_bytes),
        g.superblocks
    );
    let _ = writeln!(
        w,
        "  firmware         {}, suspension {}, write buffer {}",
        f.gc,
        if f.suspend { "on" } else { "off" },
        format_size(g.buffer_bytes)
    );
    if let Some(m) = &f.media {
        let _ = writeln!(w, "  media            {m}");
    }
    if let Some(r) = &f.readahead {
        let _ = writeln!(w, "  readahead        {r}");
    }
    if let Some(m) = &f.map_cache {
        let _ = writeln!(w, "  map              {m}");
    }
    if let Some(h) = &f.host_interface {
        let _ = writeln!(w, "  host interface   {h}");
    }
    let _ = writeln!(w, "  GC timing        {}", f.gc_timing);
    if let Some(c) = &f.slc_cache {
        let _ = writeln!(w, "  SLC cache        {c}");
    }
    let sc = &f.scaling;
    if (sc.scale - 1.0).abs() > 1e-9 {
        let _ = writeln!(
            w,
            "scaled: {} logical stands for a {} drive (x {:.4}); what changed with the capacity:",
            format_size(g.logical_bytes),
            size_text(sc.full_capacity_bytes),
            sc.scale
        );
        let _ = writeln!(
            w,
            "  superblock       {} ({} program units per die) x {}; full size {} ({} units) x {}",
            format_size(sc.superblock_bytes),
            sc.units_per_block,
            sc.superblocks,
            format_size(sc.full_superblock_bytes),
            sc.full_units_per_block,
            sc.full_superblocks
        );
        let _ = writeln!(
            w,
            "  erase            {:.1} us per superblock, full size {:.0} us (erase time per byte written kept; reads wait for a suspension as at full size)",
            sc.erase_us, sc.full_erase_us
        );
        let _ = writeln!(
            w,
            "  write buffer     {} for data at any size; {}",
            format_size(sc.buffer_bytes),
            match sc.rewrite_window_bytes {
                0 => "no rewrite absorbed (every accepted write is programmed)".to_string(),
                b if b >= sc.buffer_bytes => "rewrites absorbed within all of it".to_string(),
                b => format!(
                    "rewrites absorbed only within the last {} buffered (all of it at full size)",
                    format_size(b)
                ),
            }
        );
        let _ = writeln!(
            w,
            "  zipf             drawn over the full-size drive's pages and folded onto these (the same workload at every capacity)"
        );
        let _ = writeln!(
            w,
            "  unchanged        OP, channels, dies, planes, pages, timings, GC watermarks (in superblocks)"
        );
    }
    let sp = &f.spec;
    let _ = writeln!(
        w,
        "spec (datasheet-style; its parameters below say where each figure comes from)\n  seq read {}, seq write {}, rand read {}, rand write {}, read latency {}, write latency {}",
        opt(sp.seq_read_mb_s, "MB/s"),
        opt(sp.seq_write_mb_s, "MB/s"),
        opt(sp.rand_read_kiops, "kIOPS"),
        opt(sp.rand_write_kiops, "kIOPS"),
        opt(sp.read_lat_us, "us"),
        opt(sp.write_lat_us, "us")
    );
    let _ = writeln!(
        w,
        "write counters\n  host written     {} B\n  media written    {} B",
        f.host_bytes, f.media_bytes
    );
    s
}

/// A parameter's value and where it comes from, as `ssdiq info` shows it.
#[derive(Serialize)]
struct Parameter {
    #[serde(flatten)]
    file: ParamSource,
    /// The value given on the command line (`emu:NAME,key=value`), which replaces the file's.
    #[serde(skip_serializing_if = "Option::is_none")]
    overridden: Option<String>,
}

fn parameters(target: &str) -> anyhow::Result<Vec<Parameter>> {
    let EmuTarget {
        text, overrides, ..
    } = EmuTarget::parse(target).map_err(|e| usage(e.to_string()))?;
    let mut params: Vec<Parameter> = sources(&text)
        .into_iter()
        .filter(|p| p.key != "name" && p.key != "description")
        .map(|file| Parameter {
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
            None => params.push(Parameter {
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

fn render_parameters(params: &[Parameter]) -> String {
    let mut s = String::from("parameters (value: where it comes from)\n");
    let width = params.iter().map(|p| p.file.key.len()).max().unwrap_or(0);
    for p in params {
        let (value, source) = match &p.overridden {
            Some(v) if p.file.value.is_empty() => {
                (v.clone(), "set on the command line".to_string())
            }
            Some(v) => (
                v.clone(),
                format!(
                    "set on the command line (the profile says {})",
                    p.file.value
                ),
            ),
            None => (
                p.file.value.clone(),
                if p.file.source.is_empty() {
                    "(no source given)".to_string()
                } else {
                    p.file.source.clone()
                },
            ),
        };
        let _ = writeln!(s, "  {:width$} = {value}: {source}", p.file.key);
    }
    s
}

/// One shipped profile as `ssdiq info emu:list` shows it.
#[derive(Serialize)]
struct Listed {
    name: String,
    group: &'static str,
    description: String,
    capacity: String,
    full_capacity: Option<String>,
    op: f64,
    policy: String,
    spec: ssdiq_emu::Spec,
}

pub fn list(json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let mut rows = Vec::new();
    for (name, text) in BUILTIN {
        let p = Profile::parse(text, &[])
            .map_err(|e| anyhow::anyhow!("shipped profile {name} is invalid: {e}"))?;
        let policy = p.gc_description();
        rows.push(Listed {
            name: name.to_string(),
            group: p.group(),
            description: p.description.clone(),
            capacity: p.drive.capacity.clone(),
            full_capacity: p.drive.full_capacity.clone(),
            op: p.drive.op,
            policy,
            spec: p.spec,
        });
    }
    let mut s = String::from(
        "shipped emulated drives (emu:NAME; emu:path/to/file.toml for your own; `ssdiq info emu:NAME` shows each value's source)\n",
    );
    let dw = rows.iter().map(|r| r.description.len()).max().unwrap_or(5);
    let gw = rows.iter().map(|r| r.policy.len()).max().unwrap_or(2);
    let _ = writeln!(
        s,
        "  {:<10} {:<dw$} {:>8} {:>10} {:>6}  {:<gw$} {:>6} {:>6} {:>6} {:>6}",
        "name", "model", "capacity", "stands for", "OP", "GC", "seqR", "seqW", "rndR", "rndW"
    );
    for group in ["data-center", "consumer / SATA"] {
        let _ = writeln!(s, "  {group}");
        for r in rows.iter().filter(|r| r.group == group) {
            list_row(&mut s, r, dw, gw);
        }
    }
    s.push_str(
        "  spec columns: the datasheet's seq. read / write MB/s, random read / write k IOPS\n",
    );
    print!("{s}");
    if let Some(p) = json {
        let doc = serde_json::json!({
            "schema": ssdiq_schema::SCHEMA,
            "kind": "emu-list",
            "profiles": rows,
        });
        write_json(p, &doc)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn list_row(s: &mut String, r: &Listed, dw: usize, gw: usize) {
    let num = |v: Option<f64>| v.map(|x| format!("{x}")).unwrap_or_else(|| "-".into());
    let _ = writeln!(
        s,
        "  {:<10} {:<dw$} {:>8} {:>10} {:>5.1}%  {:<gw$} {:>6} {:>6} {:>6} {:>6}",
        r.name,
        r.description,
        r.capacity,
        r.full_capacity.as_deref().unwrap_or("-"),
        r.op * 100.0,
        r.policy,
        num(r.spec.seq_read_mb_s),
        num(r.spec.seq_write_mb_s),
        num(r.spec.rand_read_kiops),
        num(r.spec.rand_write_kiops)
    );
}

/// The pseudo-target that lists the shipped profiles.
pub const LIST: &str = "emu:list";

/// `ssdiq info` of an emulated drive whose `profile` was parsed from `target`.
pub fn main(target: &str, profile: Profile, json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let e = EmuExecutor::from_profile(profile).map_err(|e| usage(e.to_string()))?;
    let f = facts(&e);
    let params = parameters(target)?;
    print!("{}{}", render(target, &f), render_parameters(&params));
    if let Some(p) = json {
        let report = InfoReport {
            target: target.to_string(),
            source: "emulated".into(),
            model: Some(f.description.clone()),
            capacity_bytes: Some(f.geometry.logical_bytes as u128),
            block_size: Some(f.geometry.logical_block_bytes),
            write_counters: Some(WriteCounters {
                host_bytes_written: f.host_bytes as u128,
                media_bytes_written: Some(f.media_bytes as u128),
            }),
            ..Default::default()
        };
        let doc = serde_json::json!({
            "schema": ssdiq_schema::SCHEMA,
            "kind": "info",
            "info": report,
            "emulated": f,
            "parameters": params,
        });
        write_json(p, &doc)?;
    }
    Ok(ExitCode::SUCCESS)
}
