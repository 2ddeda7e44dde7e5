//! The emulated drive's part of `ssdiq info` as text: its facts, its profile's parameters
//! with their sources, and the list of shipped profiles.

use std::fmt::Write as _;

use ssdiq_schema::emu_info::{EmulatedFacts, ListedProfile, ProfileParameter};
use ssdiq_workload::units::{capacity_text, format_size};

/// A size as written in a profile: decimal units when it is a whole number of them.
fn size_text(b: u64) -> String {
    for (unit, name) in [(1_000_000_000_000u64, "TB"), (1_000_000_000, "GB")] {
        if b >= unit && b.is_multiple_of(unit / 1000) && !b.is_multiple_of(1 << 30) {
            return format!("{} {name}", b as f64 / unit as f64);
        }
    }
    format_size(b)
}

fn opt(v: Option<f64>, unit: &str) -> String {
    v.map(|x| format!("{x} {unit}"))
        .unwrap_or_else(|| "-".into())
}

/// The terminal report of an emulated drive.
pub fn text(target: &str, f: &EmulatedFacts) -> String {
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

/// The profile's parameters, each with its value and where it comes from.
pub fn parameters_text(params: &[ProfileParameter]) -> String {
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

/// `ssdiq info emu:list`: the shipped profiles by group, with their datasheet spec.
pub fn list_text(rows: &[ListedProfile]) -> String {
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
    s
}

fn list_row(s: &mut String, r: &ListedProfile, dw: usize, gw: usize) {
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
