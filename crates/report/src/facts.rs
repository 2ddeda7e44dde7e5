//! How a run was done, as label/value lines and a per-step table: what the Markdown report
//! and the HTML report both print, from one place, so neither says less than the other.

use crate::model::{steps, RunResult, StepResult};
use ssdiq_schema::figures;

/// One line of a run's description.
#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    pub key: &'static str,
    pub value: String,
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

/// ssdiq's map reads in words (the terminal summary and the facts), where the run has them.
pub fn map_reads(r: &RunResult) -> Option<String> {
    let map: Vec<String> = steps::MAP_READS
        .iter()
        .filter_map(|&(_, k)| {
            let f = r.figure(&ssdiq_schema::figures::of(
                ssdiq_schema::figures::MAP_READ_US,
                &format!("1/{k}"),
            ))?;
            Some(format!("1/{k} {:.0}", f.median))
        })
        .collect();
    (!map.is_empty()).then(|| {
        format!(
            "not in the paper: QD1 read latency [us] over the first part of the drive, {} (a DRAM-less drive's map cache shows as a rise once the span outgrows it)",
            map.join(", ")
        )
    })
}

/// The sequential init on the fresh drive in words (the terminal summary and the facts), where
/// the run measured it.
pub fn init(r: &RunResult) -> Option<String> {
    use ssdiq_schema::figures::{INIT_MB_S, INIT_WAF};
    let mb_s = r.figure(INIT_MB_S).map(|f| format!("{:.0} MB/s", f.median));
    let waf = r.figure(INIT_WAF).map(|f| {
        format!(
            "WA {:.3} from the reset to the idle after it (above 1: an SLC cache folded what it took in, or a DRAM-less drive wrote its map)",
            f.median
        )
    });
    let parts: Vec<String> = [mb_s, waf].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| {
        format!(
            "on the fresh drive, not in the paper's tables: {}",
            parts.join("; ")
        )
    })
}

/// What was measured and how: target, identity, capacity, clock, run settings, reset,
/// preconditioning, the latency-under-load load asked for and applied, completeness.
pub fn run_facts(r: &RunResult) -> Vec<Fact> {
    let mut out = Vec::new();
    let mut add = |key, value: String| out.push(Fact { key, value });
    let t = &r.target;
    add("target", t.name.clone());
    if let Some(m) = t.model.as_ref().filter(|m| **m != t.name) {
        add("model", m.clone());
    }
    if let Some(s) = &t.serial {
        add("serial", s.clone());
    }
    if let Some(f) = &t.firmware {
        add("firmware", f.clone());
    }
    add(
        "capacity",
        format!(
            "{:.2} GB ({} bytes){}",
            t.capacity_bytes as f64 / 1e9,
            t.capacity_bytes,
            if t.emulated { ", emulated" } else { "" }
        ),
    );
    add("clock", r.clock.clone());
    if let Some(i) = &r.run {
        add(
            "run",
            format!(
                "{}{}seed {}{}, reset: {}, {:.1} s in total{}",
                i.protocol
                    .as_deref()
                    .map(|p| format!("protocol {p}, "))
                    .unwrap_or_default(),
                if i.quick { "quick, " } else { "" },
                i.seed,
                if i.threads > 0 {
                    format!(", {} thread(s)", i.threads)
                } else {
                    String::new()
                },
                i.reset,
                i.elapsed_s,
                i.wall_s
                    .filter(|_| r.clock == "virtual")
                    .map(|w| format!(" ({w:.1} s wall)"))
                    .unwrap_or_default()
            ),
        );
        if let (Some(t), Some(l), Some(d)) = (i.time_scale, i.load_time_scale, i.drive_write_scale)
        {
            add(
                "scales",
                format!(
                    "time x{t:.4}, idle x{:.4}, latency under load x{l:.4}, drive writes x{d:.3}; repetitions {}, fill {}{}",
                    i.idle_time_scale.unwrap_or(t),
                    i.repeat.unwrap_or(1),
                    i.fill.unwrap_or(1.0),
                    if i.until_steady == Some(true) {
                        ", until steady"
                    } else {
                        ""
                    }
                ),
            );
        }
        add(
            "preconditioning",
            format!(
                "{:.2} GB sequential in {:.1} s",
                i.precondition_bytes as f64 / 1e9,
                i.precondition_s
            ),
        );
    }
    if let Some(b) = &r.derived.load_basis {
        add("latency under load", b.clone());
    }
    if let Some(b) = &r.derived.implied_basis {
        match &r.derived.implied_not_meaningful {
            Some(why) => add("implied WA", format!("divides {b}; {why}")),
            None => add("implied WA", format!("divides {b}")),
        }
    }
    if let Some(applied) = r.step(steps::LATENCY_UNDER_LOAD).and_then(load_applied) {
        add("load applied", applied);
    }
    if let Some(f) = r.figure(ssdiq_schema::figures::WRITE_BURST_FAST_MIB) {
        add(
            "write burst",
            format!(
                "not in the paper: {:.1} MiB went in after idle before writes waited for the flash (the write buffer, and what the dies programmed meanwhile)",
                f.median
            ),
        );
    }
    if let Some(h) = heavy_skew(r) {
        add("heavy skew", h);
    }
    if let Some(m) = map_reads(r) {
        add("map reads", m);
    }
    if let Some(i) = init(r) {
        add("sequential init", i);
    }
    if r.partial {
        add(
            "status",
            match r.run.as_ref().and_then(|i| i.error.as_deref()) {
                Some(e) => format!("partial: {e}"),
                None => "partial: the run was stopped".into(),
            },
        );
    }
    out
}

/// ssdiq's heavy-skew pass (Zipf 1.1 after a reset and init): its WA and write rate.
pub fn heavy_skew(r: &RunResult) -> Option<String> {
    let fig = |metric: &str| {
        r.figure(&figures::of(metric, "zipf_heavy"))
            .map(|f| f.median)
    };
    let (wa, how) = match (fig(figures::WAF_MEASURED), fig(figures::WAF_IMPLIED)) {
        (Some(m), _) => (m, "measured"),
        (None, Some(i)) => (i, "implied"),
        (None, None) => return None,
    };
    let kiops = fig(figures::RAND_WRITE_KIOPS)
        .map(|k| format!(", {k:.1} kIOPS"))
        .unwrap_or_default();
    let absorbed = if wa < 1.0 {
        " (below 1: the drive kept rewrites of the hottest pages off the flash, in its write buffer)"
    } else {
        ""
    };
    Some(format!(
        "not in the paper: 4 KiB random writes under Zipf 1.1 after a reset and init, WA {wa:.2} ({how}){absorbed}{kiops}; GC policies part at this skew where the paper's TwoZ 80/20 and Zipf 0.8 barely tell them apart"
    ))
}

/// The bandwidth latency under load actually ran at: background load and probes.
fn load_applied(s: &StepResult) -> Option<String> {
    let load: f64 = s.ops.values().map(|o| o.mb_s).sum();
    if s.ops.is_empty() {
        return None;
    }
    let mut text = format!(
        "{load:.1} MB/s background {}",
        s.rw.trim_start_matches("rand")
    );
    for (name, p) in &s.probes {
        text.push_str(&format!(
            ", {name} probe {:.1} MB/s ({:.0} IOPS)",
            p.mb_s, p.iops
        ));
    }
    Some(text)
}

pub const STEP_HEADER: [&str; 13] = [
    "pass",
    "Step",
    "pattern",
    "bs",
    "threads x QD",
    "s",
    "MB/s",
    "k IOPS",
    "probe avg / P99.9 [us]",
    "WA meas.",
    "WA impl.",
    "steady",
    "drive writes",
];

/// Which columns of [`STEP_HEADER`] hold numbers (right-aligned); one entry per column, so a
/// table's delimiter row always has the header's cell count.
pub const STEP_ALIGN: [bool; STEP_HEADER.len()] = [
    true, false, false, false, false, true, true, true, false, true, true, false, true,
];

/// A request size as the tables show it: KiB when whole.
fn kib(bytes: u64) -> String {
    if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{}K", bytes / 1024)
    } else {
        bytes.to_string()
    }
}

/// One row per step, the columns of [`STEP_HEADER`]: the step's value by the reference rule
/// where the result has one (latency under load: the probe medians), else its totals.
pub fn step_rows(r: &RunResult) -> Vec<[String; 13]> {
    r.steps
        .iter()
        .map(|st| {
            let (mb, kiops) = match &st.value {
                Some(v) => (v.mb_s, v.iops.map(|i| i / 1e3)),
                None => {
                    let (m, k) = st
                        .ops
                        .values()
                        .fold((0.0, 0.0), |(m, k), o| (m + o.mb_s, k + o.iops / 1e3));
                    (Some(m), Some(k))
                }
            };
            let probes: Vec<String> = match &st.value {
                Some(v) if !v.probes.is_empty() => v
                    .probes
                    .iter()
                    .map(|(op, p)| {
                        format!(
                            "{op}\u{a0}{:.0}\u{a0}/\u{a0}{:.0}",
                            p.mean_ns / 1e3,
                            p.p99_9_ns / 1e3
                        )
                    })
                    .collect(),
                _ => st
                    .probes
                    .iter()
                    .map(|(op, p)| {
                        format!(
                            "{op}\u{a0}{:.0}\u{a0}/\u{a0}{:.0}",
                            p.lat_ns.mean / 1e3,
                            p.lat_ns.p99_9 as f64 / 1e3
                        )
                    })
                    .collect(),
            };
            let c = st.convergence.as_ref();
            [
                st.pass.map(|p| p.to_string()).unwrap_or_default(),
                format!(
                    "{}{}",
                    match &st.stage {
                        Some(stage) if !stage.is_empty() => format!("{} ({stage})", st.name),
                        _ => st.name.clone(),
                    },
                    if st.stopped { ", stopped" } else { "" }
                ),
                st.pattern.clone(),
                kib(st.bs),
                format!("{}x{}", st.threads, st.qd),
                opt(st.elapsed_s, 1),
                opt(mb, 0),
                opt(kiops, 1),
                if probes.is_empty() {
                    "-".into()
                } else {
                    probes.join(", ")
                },
                match (st.waf_measured, st.waf_buffer_lag) {
                    (Some(w), Some(l)) if l < 0.0 => {
                        format!("{w:.2} (drained {:.0}%)", -l * 100.0)
                    }
                    (Some(w), Some(l)) => format!("{w:.2} (lags {:.0}%)", l * 100.0),
                    (w, _) => opt(w, 2),
                },
                // Table 3 marks a meaningless implied WA n/m: the steps say so too.
                match (st.waf_implied, &r.derived.implied_not_meaningful) {
                    (Some(_), Some(_)) => "n/m".into(),
                    (w, _) => opt(w, 2),
                },
                match c {
                    Some(c) if c.within_reference.unwrap_or(c.converged) => {
                        format!(
                            "rounds\u{a0}{}\u{2011}{}",
                            c.window_first.unwrap_or(0) + 1,
                            c.window_first.unwrap_or(0) + 5
                        )
                    }
                    Some(c) if c.converged => "after extension".into(),
                    Some(c) if c.value_window_steady == Some(false) => format!(
                        "no: rounds\u{a0}{}\u{2011}{} were, the value's window moved",
                        c.window_first.unwrap_or(0) + 1,
                        c.window_first.unwrap_or(0) + 5
                    ),
                    Some(_) => "no".into(),
                    None => "-".into(),
                },
                opt(c.map(|c| c.drive_writes), 2),
            ]
        })
        .collect()
}
