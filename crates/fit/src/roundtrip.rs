//! The fit's own test on drives it has never seen: a seeded hidden drive (a library profile
//! with random OP, GC policy, buffer, timings, suspension and write stalls) is measured with
//! the whole SSD-iq protocol, a twin is fitted from that run alone, and both run workloads
//! the protocol does not include. Used by the round-trip test and `bench/fit-roundtrip.sh`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use ssdiq_emu::Profile;
use ssdiq_schema::figures as keys;
use ssdiq_suite::plan::{Plan, PlanOptions};
use ssdiq_suite::study::StudyOptions;
use ssdiq_suite::{RunOptions, Silent};
use ssdiq_workload::SeededRng;

use crate::emu_target::emu_target;
use crate::load_curve::study_curve;
use crate::predict::{steady_writes, under_load, Outcome};
use crate::profile_text::{set, size_literal};
use crate::{fit, FitError, FitOptions, LoadCurve, Observed};

/// The library profiles hidden drives are built from (the paper's nine drives).
const BASES: [&str; 9] = ssdiq_emu::profile::SSD_IQ_PROFILES;

/// Write workloads the protocol does not run.
pub const PATTERNS: [&str; 3] = ["twozone:95/5", "zipf:1.2", "readonly:0.5"];
/// Load levels, as shares of the drive's measured uniform random-write rate.
pub const LOADS: [f64; 3] = [0.5, 0.75, 0.9];

/// A hidden drive: its profile's text and what was drawn.
pub struct Hidden {
    pub text: String,
    pub summary: String,
}

/// Hidden drive `index` of `seed`, at `capacity` bytes.
pub fn hidden(seed: u64, index: u64, capacity: u64) -> Hidden {
    let mut r = SeededRng::substream(seed, index);
    let mut u = |lo: f64, hi: f64| lo + (hi - lo) * r.unit_f64();
    let base = BASES[(u(0.0, BASES.len() as f64) as usize).min(BASES.len() - 1)];
    let p = Profile::parse(
        ssdiq_emu::profile::builtin(base).expect("a library profile"),
        &[],
    )
    .expect("library profiles parse");
    let op = u(0.07, 0.40);
    let frontier = u(0.0, 1.0) < 0.5;
    // The emulator keeps a buffer's size at any capacity (docs/emulator.md), so on these
    // 1 GiB drives 64 MiB already stands for a buffer of 6% of the drive; 128-256 MiB would
    // be a quarter of it, which no drive has.
    let buffer_mib = [16u64, 32, 64][(u(0.0, 3.0) as usize).min(2)];
    let program = p.nand.program_us * u(0.6, 1.5);
    let read = p.nand.read_us * u(0.6, 1.5);
    let write_us = u(8.0, 25.0);
    let overhead = u(5.0, 30.0);
    let suspend = u(0.0, 1.0) < 0.7;
    let stall = if u(0.0, 1.0) < 0.5 {
        u(100.0, 3000.0)
    } else {
        0.0
    };
    // The base's datasheet stays, so the fit finds its nearest profile as it would for a
    // real drive of that model.
    let mut t = ssdiq_emu::profile::builtin(base)
        .expect("a library profile")
        .to_string();
    for (s, k, v) in [
        ("drive", "capacity", size_literal(capacity)),
        ("drive", "op", format!("{op:.4}")),
        ("drive", "gc_frontier", frontier.to_string()),
        (
            "drive",
            "gc_frontier_share",
            if frontier { "1.0" } else { "" }.into(),
        ),
        ("buffer", "buffer_kib", (buffer_mib * 1024).to_string()),
        ("nand", "program_us", format!("{program:.1}")),
        ("nand", "read_us", format!("{read:.2}")),
        ("nand", "suspend", suspend.to_string()),
        ("host", "write_us", format!("{write_us:.2}")),
        ("host", "read_overhead_us", format!("{overhead:.2}")),
        (
            "host",
            "write_stall_rate",
            if stall > 0.0 { "0.002" } else { "0" }.into(),
        ),
        ("host", "write_stall_us", format!("{:.0}", stall.max(1.0))),
    ] {
        t = set(&t, s, k, &v, "hidden");
    }
    Hidden {
        text: t,
        summary: format!(
            "{base}: OP {:.1}%, {}{}, buffer {buffer_mib} MiB, program {program:.0} us, read {read:.1} us, write {write_us:.1} us, overhead {overhead:.1} us, suspend {suspend}, stalls {}",
            op * 100.0,
            p.drive.policy,
            if frontier { " + frontier" } else { "" },
            if stall > 0.0 { format!("{stall:.0} us") } else { "none".into() }
        ),
    }
}

/// The SSD-iq protocol, once, on the hidden drive (what a user's `ssdiq run` would give;
/// `quick`: `ssdiq run --quick`).
pub fn measure_hidden(text: &str, seed: u64, quick: bool) -> Result<Observed, FitError> {
    let mut t = emu_target(text, "emu:hidden")?;
    let opts = RunOptions {
        plan: Plan::ssd_iq(PlanOptions { repeat: 1 }),
        spec: ssdiq_suite::SuiteTarget::builtin_spec(&t),
        seed,
        quick,
        fill: 1.0,
        until_steady: false,
        time_scale: None,
    };
    let r = ssdiq_suite::run(&mut t, &opts, Arc::new(AtomicBool::new(false)), &Silent)
        .map_err(|e| FitError::Twin(e.to_string()))?;
    Observed::from_run(&r, "the hidden drive's run")
}

/// One workload on the hidden drive and on its twin.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Compared {
    pub workload: String,
    pub hidden: Outcome,
    pub twin: Outcome,
}

/// A latency-load study of the hidden drive (what `ssdiq study latency-load` would give),
/// at its datasheet's random-write rate.
pub fn study_hidden(text: &str, seed: u64) -> Result<LoadCurve, FitError> {
    let mut t = emu_target(text, "emu:hidden")?;
    let opts = StudyOptions {
        quick: false,
        seed,
        spec_rand_write_iops: ssdiq_suite::SuiteTarget::builtin_spec(&t)
            .and_then(|s| s.rand_write_kiops)
            .map(|k| k * 1e3),
        pts_cell_s: None,
        max_load_percent: None,
        load_relative_to_own: false,
    };
    study_curve(&mut t, &opts, "the hidden drive's study")
}

/// Which studies of the hidden drive join its run as the fit's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Studies {
    pub latency_load: bool,
    pub skew: bool,
}

/// A skew study of the hidden drive (what `ssdiq study skew` would give).
pub fn skew_of_hidden(text: &str, seed: u64) -> Result<crate::SkewCurve, FitError> {
    crate::skew_study(text, false, seed, "the hidden drive's skew study")
}

/// Fits a twin to hidden drive `index` (from its run, and the `studies` of it) and runs both
/// on the unseen workloads.
pub fn round_trip(
    seed: u64,
    index: u64,
    capacity: u64,
    studies: Studies,
) -> Result<(Hidden, crate::Fit, Vec<Compared>), FitError> {
    let h = hidden(seed, index, capacity);
    let mut obs = measure_hidden(&h.text, seed, false)?;
    if studies.latency_load {
        obs.load_curve = Some(study_hidden(&h.text, seed)?);
    }
    if studies.skew {
        obs.skew_curve = Some(skew_of_hidden(&h.text, seed)?);
    }
    let fitted = fit(&obs, &FitOptions::default(), &mut |_| {})?;
    let twin = fitted.text.clone();
    let mut out = Vec::new();
    for pat in PATTERNS {
        out.push(Compared {
            workload: pat.to_string(),
            hidden: steady_writes(&h.text, pat, seed)?,
            twin: steady_writes(&twin, pat, seed)?,
        });
    }
    let full = obs
        .get(&keys::of(keys::RAND_WRITE_KIOPS, "uniform"))
        .ok_or_else(|| {
            FitError::Twin("the hidden drive's run has no uniform random write".into())
        })?
        * 1e3;
    for load in LOADS {
        out.push(Compared {
            workload: format!("load {:.0}%", load * 100.0),
            hidden: under_load(&h.text, full * load, seed)?,
            twin: under_load(&twin, full * load, seed)?,
        });
    }
    Ok((h, fitted, out))
}

/// Within the bounds: WAF and throughput within 10% on the write workloads.
pub fn wa_and_throughput_within(c: &Compared, tolerance: f64) -> bool {
    let near = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => ((b - a) / a).abs() <= tolerance,
        _ => false,
    };
    near(c.hidden.waf, c.twin.waf) && near(c.hidden.write_kiops, c.twin.write_kiops)
}

/// Write P99 within `factor` either way.
pub fn p99_within(c: &Compared, factor: f64) -> bool {
    match (c.hidden.write_p99_us, c.twin.write_p99_us) {
        (Some(a), Some(b)) if a > 0.0 && b > 0.0 => (b / a).max(a / b) <= factor,
        _ => false,
    }
}
