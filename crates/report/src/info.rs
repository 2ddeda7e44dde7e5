//! The `info` document as text: what `ssdiq info` prints of a drive.

use std::fmt::Write as _;

use ssdiq_schema::info::InfoReport;

/// Bytes with a binary unit, plus the exact count when it is not round.
fn bytes(b: u128) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.2} {} ({b} bytes)", UNITS[u])
    }
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map(|x| x.to_string())
        .unwrap_or_else(|| "-".into())
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

const NOT_REPORTED: &str = "not reported by this drive";

/// The human summary. Works for any subset of fields, so the emulated drive can fill it too.
/// The terminal report of a drive: identity, capacity and formats, health, media counters and
/// FDP, each part saying when the drive does not report it.
pub fn text(r: &InfoReport) -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "{} ({})", r.target, r.source);
    let _ = writeln!(w, "  model            {}", opt(&r.model));
    let _ = writeln!(w, "  serial           {}", opt(&r.serial));
    let _ = writeln!(w, "  firmware         {}", opt(&r.firmware));
    if let Some(v) = &r.nvme_version {
        let _ = writeln!(
            w,
            "  NVMe             {v}, controller {}, namespace {}",
            opt(&r.controller),
            opt(&r.namespace_id)
        );
    }
    if let Some(c) = r.capacity_bytes {
        let _ = writeln!(w, "  capacity         {}", bytes(c));
    }
    if let (Some(bs), Some(i)) = (r.block_size, r.lba_format) {
        let others: Vec<String> = r
            .lba_formats
            .iter()
            .map(|f| {
                let m = if f.metadata_bytes > 0 {
                    format!("+{}", f.metadata_bytes)
                } else {
                    String::new()
                };
                format!("{}:{}{m}", f.index, f.block_size)
            })
            .collect();
        let _ = writeln!(
            w,
            "  LBA format       #{i}: {bs}-byte blocks{} (available {})",
            match r.metadata_bytes {
                Some(m) if m > 0 => format!(" + {m} metadata"),
                _ => String::new(),
            },
            others.join(" ")
        );
    }
    if let Some(z) = &r.zoned {
        let _ = writeln!(w, "  zoned            {z}");
    }
    if let Some(o) = &r.optimal_io {
        let f = |v: Option<u64>| v.map(|b| bytes(b as u128)).unwrap_or_else(|| "-".into());
        let _ = writeln!(
            w,
            "  optimal I/O      write granularity {}, alignment {}, optimal write {}, boundary {}",
            f(o.preferred_write_granularity),
            f(o.preferred_write_alignment),
            f(o.optimal_write_size),
            f(o.optimal_io_boundary)
        );
    }
    if let Some(c) = &r.capabilities {
        let _ = writeln!(
            w,
            "  commands         format {}{}, deallocate {}{}, write zeroes {}, sanitize {}",
            yes(c.format),
            if c.format_crypto_erase {
                " (crypto erase)"
            } else {
                ""
            },
            yes(c.deallocate),
            if c.deallocated_reads_zeroes {
                " (reads zeroes)"
            } else {
                ""
            },
            yes(c.write_zeroes),
            if c.sanitize.is_empty() {
                "not supported".to_string()
            } else {
                c.sanitize.join(", ")
            }
        );
        if let Some(m) = c.max_transfer_bytes {
            let _ = writeln!(w, "  max transfer     {}", bytes(m as u128));
        }
    }
    let _ = writeln!(w, "health (SMART)");
    match &r.smart {
        Some(h) => {
            let _ = writeln!(
                w,
                "  temperature      {}",
                h.temperature_c
                    .map(|t| format!("{t} C"))
                    .unwrap_or_else(|| NOT_REPORTED.into())
            );
            let _ = writeln!(
                w,
                "  critical warning {}",
                if h.critical_warnings.is_empty() {
                    "none".into()
                } else {
                    h.critical_warnings.join(", ")
                }
            );
            let _ = writeln!(
                w,
                "  percentage used  {}%, available spare {}% (threshold {}%)",
                h.percentage_used, h.available_spare, h.available_spare_threshold
            );
            let _ = writeln!(
                w,
                "  media errors     {}, power-on hours {}, power cycles {}, unsafe shutdowns {}",
                h.media_errors, h.power_on_hours, h.power_cycles, h.unsafe_shutdowns
            );
            let _ = writeln!(w, "  host written     {}", bytes(h.host_bytes_written));
            let _ = writeln!(w, "  host read        {}", bytes(h.host_bytes_read));
        }
        None => {
            let _ = writeln!(w, "  {NOT_REPORTED}");
        }
    }
    let _ = writeln!(w, "media counters (OCP C0h)");
    match &r.ocp {
        Some(o) => {
            let _ = writeln!(
                w,
                "  media written    {}",
                bytes(o.physical_media_bytes_written)
            );
            let _ = writeln!(
                w,
                "  media read       {}",
                bytes(o.physical_media_bytes_read)
            );
            if let Some(waf) = r
                .write_counters
                .and_then(|c| Some((c.host_bytes_written, c.media_bytes_written?)))
                .filter(|(h, _)| *h > 0)
                .map(|(h, m)| m as f64 / h as f64)
            {
                let _ = writeln!(w, "  lifetime WAF     {waf:.3} (media / host written)");
            }
            let _ = writeln!(
                w,
                "  bad NAND blocks  user {} ({}%), system {} ({}%)",
                o.bad_user_nand_blocks.raw,
                o.bad_user_nand_blocks.normalized,
                o.bad_system_nand_blocks.raw,
                o.bad_system_nand_blocks.normalized
            );
            let _ = writeln!(
                w,
                "  erase counts     user data min {} max {}, system data {}% used, free blocks {}%",
                o.user_data_erase_count_min,
                o.user_data_erase_count_max,
                o.system_data_percent_used,
                o.percent_free_blocks
            );
            let _ = writeln!(
                w,
                "  errors           uncorrectable read {}, soft ECC {}, XOR recoveries {}, end-to-end {}/{}, PCIe correctable {}",
                o.uncorrectable_read_errors,
                o.soft_ecc_errors,
                o.xor_recovery_count,
                o.end_to_end_detected_errors,
                o.end_to_end_corrected_errors,
                o.pcie_correctable_errors
            );
            let _ = writeln!(
                w,
                "  other            refreshes {}, thermal throttling {} (status {}), incomplete shutdowns {}, capacitor health {}",
                o.refresh_counts,
                o.thermal_throttling_events,
                o.thermal_throttling_status,
                o.incomplete_shutdowns,
                o.capacitor_health
            );
            let _ = writeln!(
                w,
                "  versions         DSSD spec {}, log page version {}",
                o.dssd_version(),
                o.log_page_version
            );
        }
        None => {
            let _ = writeln!(w, "  {NOT_REPORTED}");
        }
    }
    let _ = writeln!(w, "flexible data placement");
    match &r.fdp {
        Some(f) if f.supported => {
            let _ = writeln!(
                w,
                "  status           supported, {} (endurance group {})",
                match f.enabled {
                    Some(true) => "enabled",
                    Some(false) => "disabled",
                    None => "state unknown",
                },
                opt(&f.endurance_group)
            );
            for (i, c) in f.configs.iter().enumerate() {
                let _ = writeln!(
                    w,
                    "  config {i}         {} reclaim groups, {} handles, reclaim unit {}{}",
                    c.nrg,
                    c.nruh,
                    bytes(c.runs as u128),
                    if c.valid { "" } else { " (not valid)" }
                );
            }
            if let Some(st) = &f.stats {
                let _ = writeln!(
                    w,
                    "  statistics       host written {}, media written {}, media erased {}",
                    bytes(st.host_bytes_written),
                    bytes(st.media_bytes_written),
                    bytes(st.media_bytes_erased)
                );
            }
            if !f.handles.is_empty() {
                let h: Vec<String> = f
                    .handles
                    .iter()
                    .map(|h| format!("{}:{}", h.pid, h.ruamw))
                    .collect();
                let _ = writeln!(w, "  handles          pid:available blocks {}", h.join(" "));
            }
        }
        Some(_) => {
            let _ = writeln!(w, "  not supported");
        }
        None => {
            let _ = writeln!(w, "  {NOT_REPORTED}");
        }
    }
    for n in &r.notes {
        let _ = writeln!(w, "note: {n}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_report_renders_not_reported() {
        let r = InfoReport {
            target: "emu:default".into(),
            source: "emulated".into(),
            ..Default::default()
        };
        let s = text(&r);
        assert!(s.contains("media counters (OCP C0h)\n  not reported by this drive"));
        assert!(s.contains("health (SMART)\n  not reported by this drive"));
    }

    #[test]
    fn byte_formatting() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1 << 30), "1 GiB");
        assert_eq!(bytes(1_536_000), "1.46 MiB (1536000 bytes)");
    }
}
