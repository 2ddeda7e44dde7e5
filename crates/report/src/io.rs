//! The `io` document as text: the terminal summary `ssdiq io` prints, and its per-second
//! series as CSV (`--log`).

use std::fmt::Write as _;

use ssdiq_schema::io::{Clock, IoReport, ReplayReport, Speed};
use ssdiq_schema::{JobSecond, OpSummary};
use ssdiq_workload::units::{format_size, format_size_approx};

/// The per-second series, one row per second and stream.
pub fn series_csv(report: &IoReport) -> String {
    let mut s = String::from(JobSecond::CSV_HEADER);
    s.push('\n');
    for p in &report.series {
        s.push_str(&p.csv_row());
        s.push('\n');
    }
    s
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

fn render_op(s: &mut String, name: &str, o: &OpSummary) {
    let l = &o.lat_ns;
    let _ = writeln!(
        s,
        "{name:<12} {:>10.0} IOPS {:>9.1} MB/s  lat us: mean {:.1} p50 {} p99 {} p99.9 {} p99.99 {} max {}  >1ms {:.3}%",
        o.iops,
        o.mb_s,
        l.mean / 1e3,
        us(l.p50),
        us(l.p99),
        us(l.p99_9),
        us(l.p99_99),
        us(l.max),
        o.over_1ms * 100.0
    );
}

/// Where byte `offset` of a striped job's range lies: the member device and its offset there
/// (the engine deals chunks round robin, `crates/engine/src/stripe.rs`); `None` for one target.
fn on_member(job: &ssdiq_schema::io::JobInfo, offset: u64) -> Option<String> {
    let chunk = job.stripe_bytes.filter(|c| *c > 0)?;
    let members: Vec<&str> = job.target.split(',').map(str::trim).collect();
    let n = members.len() as u64;
    let c = offset / chunk;
    Some(format!(
        " (on {} at offset {})",
        members[(c % n) as usize],
        (c / n) * chunk + offset % chunk
    ))
}

/// `--verify` in one line: what was checked and the first mismatch (on a stripe, with the
/// member it lies on).
pub fn verify_line(v: &ssdiq_schema::io::VerifyLog, job: &ssdiq_schema::io::JobInfo) -> String {
    let back = if v.read_back > 0 {
        format!(" ({} in the read-back)", v.read_back)
    } else {
        String::new()
    };
    match v.first.first() {
        None => format!("verify: {} blocks checked{back}, 0 mismatches", v.checked),
        Some(m) => {
            let gens = match (m.expected_generation, m.found_generation) {
                (Some(e), Some(f)) => format!(", expected generation {e}, found {f}"),
                (None, Some(f)) => format!(", found generation {f}"),
                (Some(e), None) => format!(", expected generation {e}"),
                (None, None) => String::new(),
            };
            let noun = if v.mismatches == 1 {
                "mismatch"
            } else {
                "mismatches"
            };
            format!(
                "verify: {} blocks checked{back}, {} {noun}; the first at offset {}{}: {}{gens}",
                v.checked,
                v.mismatches,
                m.offset,
                on_member(job, m.offset).unwrap_or_default(),
                m.what
            )
        }
    }
}

/// The terminal summary of an io job: the job, then a line per op and probe, errors, and
/// the device's write counters with their measured WAF.
pub fn text(r: &IoReport) -> String {
    let j = &r.job;
    let mut s = String::new();
    // Where writes go: a placement handle is part of the job as the engine is.
    let placement = match (j.fdp_pid, j.fdp_regions.as_slice()) {
        (Some(pid), _) => format!(" fdp-pid={pid}"),
        (None, []) => String::new(),
        (None, regions) => format!(
            " fdp-pid={}",
            regions
                .iter()
                .map(|r| format!(
                    "{}-{}={}",
                    format_size(r.from_bytes),
                    format_size(r.to_bytes),
                    r.pid
                ))
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    let _ = writeln!(
        s,
        "{} {} {} bs={} qd={} threads={} range={} engine={}{}{placement}",
        j.target,
        j.rw,
        j.pattern,
        format_size(j.bs),
        j.qd,
        j.threads,
        format_size(j.range_bytes),
        if r.clock == Clock::Virtual {
            "emulated (virtual time)".to_string()
        } else if j.engine_options.is_empty() {
            j.engine.name().to_string()
        } else {
            format!("{}({})", j.engine.name(), j.engine_options.join(","))
        },
        if j.direct || r.clock == Clock::Virtual {
            ""
        } else {
            " buffered"
        }
    );
    if let Some(f) = &r.fill {
        let what = if f.layout {
            "laid out the file's holes before reading (as fio does)"
        } else {
            "fill"
        };
        let _ = writeln!(s, "{what}: {} in {:.1} s", format_size(f.bytes), f.seconds);
    }
    let _ = writeln!(
        s,
        "ran {:.2} s{}",
        r.elapsed_s,
        if r.partial { " (partial)" } else { "" }
    );
    for (name, o) in &r.ops {
        // A replay records every op; show those the trace had.
        if j.replay.is_some() && o.ios == 0 {
            continue;
        }
        render_op(&mut s, name, o);
    }
    for (name, o) in &r.probes {
        render_op(&mut s, &format!("probe {name}"), o);
    }
    // Reads and writes each land on one device; a trim or write-zeroes range spans them and
    // is counted for the whole only.
    if let Some(chunk) = j
        .stripe_bytes
        .filter(|_| r.targets.iter().any(|t| !t.ops.is_empty()))
    {
        let _ = writeln!(
            s,
            "RAID0 of {} devices in chunks of {}; each device's share:",
            r.targets.len(),
            format_size(chunk)
        );
        for t in &r.targets {
            for (name, o) in &t.ops {
                render_op(&mut s, &format!("  {} {name}", t.path), o);
            }
        }
    }
    if r.errors.count > 0 {
        let _ = writeln!(s, "errors: {}", r.errors.count);
    }
    if let Some(v) = &r.verify {
        let _ = writeln!(s, "{}", verify_line(v, &r.job));
    }
    if let (Some(h), Some(m)) = (r.device.host_bytes, r.device.media_bytes) {
        let _ = writeln!(
            s,
            "device: host writes {}, media writes {}",
            format_size_approx(h as f64),
            format_size_approx(m as f64)
        );
    }
    if let Some(w) = r.device.waf {
        let lag = match r.device.waf_lag() {
            Some(share) if share > 0.0 => format!(
                " (lags: {:.0}% of these writes are still in the drive's write buffer, not yet programmed or counted; a real drive's counters lag the same way)",
                share * 100.0
            ),
            Some(share) if share < 0.0 => format!(
                " (includes programming {:.0}% as much earlier-buffered data as these writes)",
                -share * 100.0
            ),
            Some(_) => " (below 1: the drive's counters may lag writes still in its buffer, or it compresses)".to_string(),
            None => String::new(),
        };
        let _ = writeln!(s, "measured WAF: {w:.3}{lag}");
    }
    s
}

/// The replay's lines of the terminal summary.
pub fn replay_text(r: &ReplayReport) -> String {
    let mut s = String::new();
    let speed = match r.summary.speed {
        Speed::Max => "as fast as possible".to_string(),
        Speed::Scale(1.0) => "at recorded timing".to_string(),
        Speed::Scale(f) => format!("at {f}x recorded speed"),
    };
    let _ = writeln!(
        s,
        "replay of {} ({}, map {}): {} of {} records as {} requests, {speed}",
        r.file, r.format, r.map, r.records_replayed, r.records, r.summary.requests
    );
    if r.split_records > 0 {
        let _ = writeln!(
            s,
            "  {} records split into several requests (--trace-max-io or the map)",
            r.split_records
        );
    }
    if r.summary.speed != Speed::Max {
        let _ = writeln!(
            s,
            "  schedule lag us: mean {:.1} p99 {:.1} max {:.1}; {} requests ({:.2}%) started more than 1 ms late",
            r.summary.lag_mean_us,
            r.summary.lag_p99_us,
            r.summary.lag_max_us,
            r.summary.late,
            if r.summary.requests == 0 {
                0.0
            } else {
                r.summary.late as f64 * 100.0 / r.summary.requests as f64
            }
        );
        if r.summary.late > 0 {
            let _ = writeln!(
                s,
                "  a request starts only when one of the job's --threads x --qd slots is free: raise --qd to keep to the recorded times"
            );
        }
    }
    if let Some(e) = &r.summary.error {
        let _ = writeln!(s, "  the trace ended early: {e}");
    }
    s
}
