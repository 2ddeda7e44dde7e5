//! `ssdiq info emu:PROFILE`: the emulated drive's identity, geometry, OP, timing profile,
//! datasheet spec and write counters (a fresh drive: zero). Human text on stdout, the same
//! facts as JSON with `--json` (the `info` object a real drive gives, plus `"emulated"`).

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use ssdiq_engine::{EmuExecutor, EmuSpec};
use ssdiq_nvme::{InfoReport, WriteCounters};
use ssdiq_workload::units::format_size;

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
    }
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
        format_size(g.logical_bytes),
        format_size(g.physical_bytes),
        g.logical_block_bytes
    );
    let _ = writeln!(
        w,
        "  provisioning     OP {:.2}% (physical-logical)/logical, fill {:.4}, spare factor {:.2}%",
        g.op * 100.0,
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
        "  firmware         {} GC, suspension {}, write buffer {}",
        f.policy,
        if f.suspend { "on" } else { "off" },
        format_size(g.buffer_bytes)
    );
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
            "  write buffer     {} for data at any size; rewrites absorbed only within the last {} buffered (all of it at full size)",
            format_size(sc.buffer_bytes),
            format_size(sc.rewrite_window_bytes)
        );
        let _ = writeln!(
            w,
            "  unchanged        OP, channels, dies, planes, pages, timings, GC watermarks (in superblocks)"
        );
    }
    let sp = &f.spec;
    let _ = writeln!(
        w,
        "spec (datasheet-style, measured on the model)\n  seq read {}, seq write {}, rand read {}, rand write {}, read latency {}, write latency {}",
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

pub fn main(target: &str, json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let e = EmuExecutor::open(target).map_err(|e| usage(e.to_string()))?;
    let f = facts(&e);
    print!("{}", render(target, &f));
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
            "schema": "ssdiq/1",
            "kind": "info",
            "info": report,
            "emulated": f,
        });
        write_json(p, &doc)?;
    }
    Ok(ExitCode::SUCCESS)
}
