//! The trace-stats document as text: what `ssdiq trace stats` prints.

use std::fmt::Write as _;

use ssdiq_schema::trace::TraceStats;
use ssdiq_workload::units::format_size_approx;

fn size(b: u64) -> String {
    format_size_approx(b as f64)
}

fn pct(x: f64) -> String {
    format!("{:.2}%", x * 100.0)
}

/// The terminal summary of `ssdiq trace stats`.
pub fn text(s: &TraceStats) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "trace {} ({}{}): {} requests in {} lines over {:.3} s ({:.0} requests/s), {} device{}",
        s.file,
        s.format,
        s.device
            .as_deref()
            .map(|d| format!(", device {d}"))
            .unwrap_or_default(),
        s.requests,
        s.lines,
        s.duration_s,
        s.requests_per_s,
        s.device_count,
        if s.device_count == 1 { "" } else { "s" }
    );
    if s.device_count > 1 {
        let list: Vec<String> = s
            .devices
            .iter()
            .take(8)
            .map(|d| format!("{} ({})", d.device, d.requests))
            .collect();
        let _ = writeln!(
            o,
            "busiest devices: {}{}",
            list.join(", "),
            if s.device_count > 8 { ", ..." } else { "" }
        );
    }
    let _ = writeln!(
        o,
        "{:<6} {:>12} {:>9} {:>12} {:>11} {:>11}",
        "op", "requests", "share", "bytes", "mean size", "sequential"
    );
    for (name, op) in [("read", &s.read), ("write", &s.write), ("trim", &s.trim)] {
        if op.requests == 0 {
            continue;
        }
        let _ = writeln!(
            o,
            "{name:<6} {:>12} {:>9} {:>12} {:>11} {:>11}",
            op.requests,
            pct(op.requests as f64 / s.requests as f64),
            size(op.bytes),
            size(op.mean_bytes.round() as u64),
            if name == "trim" {
                "-".into()
            } else {
                pct(op.sequential_fraction)
            }
        );
    }
    let _ = writeln!(
        o,
        "read share of reads+writes: {} of requests, {} of bytes",
        pct(s.read_fraction),
        pct(s.read_bytes_fraction)
    );
    let f = &s.footprint;
    let _ = writeln!(
        o,
        "footprint: {} ({} pages of {}): read {}, written {}, read-only {}; offsets {} .. {}",
        size(f.bytes),
        f.pages,
        size(f.page_bytes),
        size(f.read_pages * f.page_bytes),
        size(f.written_pages * f.page_bytes),
        size(f.read_only_pages * f.page_bytes),
        size(f.min_offset),
        size(f.max_end)
    );
    if f.uncounted_pages > 0 {
        let _ = writeln!(
            o,
            "note: {} pages beyond 2^48 pages into a device are left out of the footprint",
            f.uncounted_pages
        );
    }
    let _ = writeln!(
        o,
        "{:<10} {:>10} {:>10} {:>10}",
        "size <=", "read", "write", "trim"
    );
    for b in s.sizes.iter().filter(|b| b.read + b.write + b.trim > 0) {
        let _ = writeln!(
            o,
            "{:<10} {:>10} {:>10} {:>10}",
            if b.up_to_bytes == u64::MAX {
                format!("> {}", size(1 << 29))
            } else {
                size(b.up_to_bytes)
            },
            b.read,
            b.write,
            b.trim
        );
    }
    let ia = &s.inter_arrival;
    let _ = writeln!(
        o,
        "inter-arrival us: mean {:.1} p50 {:.1} p90 {:.1} p99 {:.1} p99.9 {:.1} max {:.1}{}",
        ia.mean_us,
        ia.p50_us,
        ia.p90_us,
        ia.p99_us,
        ia.p99_9_us,
        ia.max_us,
        if ia.backwards > 0 {
            format!(
                "; {} records stamped before their predecessor",
                ia.backwards
            )
        } else {
            String::new()
        }
    );
    let w = &s.write_skew;
    if w.written_pages == 0 {
        let _ = writeln!(o, "write skew: the trace writes nothing");
        return o;
    }
    let _ = writeln!(
        o,
        "write skew: {} page writes to {} written pages ({:.2} per page, at most {})",
        w.page_writes, w.written_pages, w.mean_writes_per_page, w.max_writes_per_page
    );
    let _ = writeln!(o, "{:<26} {:>15}", "most written pages", "share of writes");
    for t in &w.top {
        let frac = format!("{:.2}", t.pages_fraction * 100.0);
        let frac = frac.trim_end_matches('0').trim_end_matches('.');
        let label = format!("top {frac}% ({} pages)", t.pages);
        let _ = writeln!(o, "{label:<26} {:>15}", pct(t.share));
    }
    o
}
