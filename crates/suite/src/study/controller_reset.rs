//! `controller-reset` (what-does-the-ftl-do, section 3.4): three identical sequences of random
//! reads, timed; the first fills whatever caches the drive has, the controller is reset
//! between the second and the third. If the reset cleared the caches, the third would run
//! like the first. NVMe namespaces only (`NVME_IOCTL_RESET` on the controller's node).

use std::collections::BTreeMap;
use std::os::fd::AsRawFd;
use std::path::Path;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::Op;

use super::bench::{values, Bench};
use super::sweep::prepare;
use crate::observe::Unit;
use crate::target::SuiteError;

pub const SERIES: &str = "random 4 KiB reads, QD 1";

/// The controller node (`/dev/nvmeX`) of an NVMe namespace block device.
fn controller_of(device: &str) -> Result<String, SuiteError> {
    let not_nvme = || {
        SuiteError::Invalid(format!(
            "the controller-reset study needs an NVMe namespace (/dev/nvmeXnY); \"{device}\" is not one"
        ))
    };
    let map = ssdiq_nvme::device::map_device(Path::new("/sys"), Path::new(device))
        .map_err(|_| not_nvme())?;
    let ctrl = map.controller.ok_or_else(not_nvme)?;
    Ok(format!("/dev/{ctrl}"))
}

fn reset(ctrl: &str) -> Result<(), SuiteError> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(ctrl)
        .map_err(|e| SuiteError::Invalid(format!("cannot open {ctrl}: {e}")))?;
    ssdiq_nvme::ioctl::reset_controller(f.as_raw_fd()).map_err(|e| SuiteError::Reset {
        target: ctrl.to_string(),
        reason: format!("controller reset failed: {e}"),
    })
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let ctrl = controller_of(&b.target().job_target())?;
    let reads: u64 = if b.quick { 20_000 } else { 200_000 };
    b.plan(3);
    if !prepare(b)? {
        return Ok(());
    }
    let mut seed = None;
    for run in 1..=3u32 {
        if run == 3 {
            reset(&ctrl)?;
        }
        let label = match run {
            1 => "run 1 (fills caches)".to_string(),
            2 => "run 2".to_string(),
            _ => "run 3 (after a controller reset)".to_string(),
        };
        b.begin(label.clone(), Unit::Bytes, (reads * 4096) as f64);
        let mut j = b.job("randread", "uniform", 4096, 1);
        // The same sequence every time.
        j.seed = *seed.get_or_insert(j.seed);
        j.bound.bytes = Some(reads * 4096);
        let m = b.run(j)?;
        if b.stopped() {
            return Ok(());
        }
        let v = values(&[
            ("seconds", Some(m.seconds())),
            ("kiops", m.kiops(Op::Read)),
            ("avg_us", m.mean_us(Op::Read)),
            ("p99_us", m.quantile_us(Op::Read, 0.99)),
        ]);
        b.point(SERIES, run as f64, label, v);
    }
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let secs = |x: f64| {
        points
            .iter()
            .find(|p| p.x == x)
            .and_then(|p| p.values.get("seconds").copied())
    };
    if let (Some(a), Some(b), Some(c)) = (secs(1.0), secs(2.0), secs(3.0)) {
        result.insert("run3_over_run2".into(), c / b);
        result.insert("run1_over_run2".into(), a / b);
        findings.push(format!(
            "the same reads took {a:.3} s, {b:.3} s, and {c:.3} s after the controller reset ({:+.1}% against run 2; run 1 {:+.1}%)",
            (c / b - 1.0) * 100.0,
            (a / b - 1.0) * 100.0
        ));
    }
    (result, findings)
}
