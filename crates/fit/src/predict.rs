//! Workloads a fit never saw, run the same way on a twin and on the drive it stands for:
//! steady random writes of any pattern (WA and throughput) and Poisson write load at a rate
//! (write tail). The round trip compares the two; the report shows the twin's as predictions.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use ssdiq_emu::Profile;
use ssdiq_engine::Arrivals;
use ssdiq_suite::study::Bench;
use ssdiq_suite::{EmuTarget, Silent};
use ssdiq_workload::units::Rate;
use ssdiq_workload::Op;

use crate::FitError;

const BS: u64 = 4096;
/// Drive writes before the measured one: greedy's WA is steady within about two.
const WARM_DRIVE_WRITES: u64 = 2;
/// Virtual seconds of a load level.
const LOAD_S: f64 = 5.0;

/// What a workload showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Outcome {
    pub waf: Option<f64>,
    pub write_kiops: Option<f64>,
    pub write_p99_us: Option<f64>,
}

fn target(text: &str) -> Result<EmuTarget, FitError> {
    let p = Profile::parse(text, &[]).map_err(|e| FitError::Profile(e.to_string()))?;
    EmuTarget::from_profile("emu:twin".into(), p).map_err(|e| FitError::Profile(e.to_string()))
}

fn twin_err(e: ssdiq_suite::SuiteError) -> FitError {
    FitError::Twin(e.to_string())
}

/// Fill, `WARM_DRIVE_WRITES` of 4 KiB random writes of `pattern` at QD 32, then one more
/// drive write measured.
pub fn steady_writes(text: &str, pattern: &str, seed: u64) -> Result<Outcome, FitError> {
    let mut t = target(text)?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut b = Bench::new(&mut t, stop, &Silent, seed, false);
    b.reset().map_err(twin_err)?;
    b.fill().map_err(twin_err)?;
    let mut j = b.job("randwrite", pattern, BS, 32);
    j.bound.bytes = Some(j.range_bytes * WARM_DRIVE_WRITES);
    b.run(j).map_err(twin_err)?;
    let mut j = b.job("randwrite", pattern, BS, 32);
    j.bound.bytes = Some(j.range_bytes);
    let m = b.run(j).map_err(twin_err)?;
    Ok(Outcome {
        waf: m.waf,
        write_kiops: m.kiops(Op::Write),
        write_p99_us: m.quantile_us(Op::Write, 0.99),
    })
}

/// After steady uniform random writes, 4 KiB random writes arriving as a Poisson process at
/// `iops` (up to 256 in flight) for `LOAD_S` virtual seconds.
pub fn under_load(text: &str, iops: f64, seed: u64) -> Result<Outcome, FitError> {
    let mut t = target(text)?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut b = Bench::new(&mut t, stop, &Silent, seed, false);
    b.reset().map_err(twin_err)?;
    b.fill().map_err(twin_err)?;
    let mut j = b.job("randwrite", "uniform", BS, 32);
    j.bound.bytes = Some(j.range_bytes * WARM_DRIVE_WRITES);
    b.run(j).map_err(twin_err)?;
    let mut j = b.job("randwrite", "uniform", BS, 256);
    j.bound.time_ns = Some((LOAD_S * 1e9) as u64);
    j.rate = Some(Rate::IoPerSec(iops));
    j.arrivals = Arrivals::Poisson;
    let m = b.run(j).map_err(twin_err)?;
    Ok(Outcome {
        waf: m.waf,
        write_kiops: m.kiops(Op::Write),
        write_p99_us: m.quantile_us(Op::Write, 0.99),
    })
}
