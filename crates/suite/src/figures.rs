//! The figures of Tables 2 and 3 from a run's steps: every sample of a figure (each pass,
//! before and after the workload, each repetition), with its min, median and max.
//!
//! Which value of a step is a sample:
//! - throughput and IOPS: the step's reference value (`StepValue`);
//! - QD1 latency on the idle drive: the step's mean latency;
//! - latency under load: the medians over the probe intervals (`StepValue::probes`);
//! - WAF: the workload's measured and implied WAF;
//! - OP: per repetition, from the uniform workload's WAF (measured, else implied).

use std::collections::BTreeMap;

use ssdiq_schema::{
    figures as keys, steps, DeviceLogPoint, Figure, RunResult, SecondPoint, StepResult,
};

use crate::derived::{op_from_greedy, op_from_waf_formula};
use crate::plan::{workload_key, HEAVY_SKEW, WORKLOADS};
use crate::reference::median;

pub fn figure(samples: Vec<f64>) -> Option<Figure> {
    let samples: Vec<f64> = samples.into_iter().filter(|x| x.is_finite()).collect();
    Some(Figure {
        median: median(&samples)?,
        min: samples.iter().copied().fold(f64::INFINITY, f64::min),
        max: samples.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        samples,
    })
}

fn of<'a>(r: &'a RunResult, name: &'a str) -> impl Iterator<Item = &'a StepResult> + 'a {
    r.steps.iter().filter(move |s| s.name == name)
}

fn value(s: &StepResult, f: impl Fn(&ssdiq_schema::StepValue) -> Option<f64>) -> Option<f64> {
    s.value.as_ref().and_then(f)
}

/// The uniform workload's WAF of each repetition: measured where the drive reports media
/// writes, else implied.
pub fn uniform_wafs(r: &RunResult) -> Vec<f64> {
    of(r, steps::RAND_WRITE_UNIFORM)
        .filter_map(|s| s.waf_measured.or(s.waf_implied))
        .collect()
}

pub fn compute(r: &RunResult) -> BTreeMap<String, Figure> {
    let mut f: BTreeMap<String, Figure> = BTreeMap::new();
    let mut put = |k: String, v: Vec<f64>| {
        if let Some(x) = figure(v) {
            f.insert(k, x);
        }
    };
    let collect = |name, pick: &dyn Fn(&StepResult) -> Option<f64>| -> Vec<f64> {
        of(r, name).filter_map(pick).collect()
    };
    put(
        keys::SEQ_READ_MB_S.into(),
        collect(steps::SEQ_READ, &|s| value(s, |v| v.mb_s)),
    );
    put(
        keys::SEQ_WRITE_MB_S.into(),
        collect(steps::SEQ_WRITE, &|s| value(s, |v| v.mb_s)),
    );
    put(
        keys::SEQ_WRITE_FREE_POOL_MB_S.into(),
        collect(steps::SEQ_WRITE, &|s| s.free_pool.as_ref().map(|f| f.mb_s)),
    );
    put(
        keys::RAND_READ_KIOPS.into(),
        collect(steps::RAND_READ, &|s| value(s, |v| v.iops.map(|x| x / 1e3))),
    );
    for (name, _, _) in WORKLOADS.into_iter().chain([HEAVY_SKEW]) {
        let w = workload_key(name);
        put(
            keys::of(keys::RAND_WRITE_KIOPS, w),
            collect(name, &|s| value(s, |v| v.iops.map(|x| x / 1e3))),
        );
        put(
            keys::of(keys::WAF_MEASURED, w),
            collect(name, &|s| s.waf_measured),
        );
        put(
            keys::of(keys::WAF_IMPLIED, w),
            collect(name, &|s| s.waf_implied),
        );
    }
    let mean_us = |op: &'static str| {
        move |s: &StepResult| {
            s.ops
                .get(op)
                .filter(|o| o.ios > 0)
                .map(|o| o.lat_ns.mean / 1e3)
        }
    };
    put(
        keys::READ_LAT_IDLE_US.into(),
        collect(steps::READ_LATENCY, &mean_us("read")),
    );
    put(
        keys::WRITE_LAT_IDLE_US.into(),
        collect(steps::WRITE_LATENCY, &mean_us("write")),
    );
    for (op, avg, p999) in [
        (
            "read",
            keys::READ_LAT_LOAD_AVG_US,
            keys::READ_LAT_LOAD_P999_US,
        ),
        (
            "write",
            keys::WRITE_LAT_LOAD_AVG_US,
            keys::WRITE_LAT_LOAD_P999_US,
        ),
    ] {
        let probe = |s: &StepResult| s.value.as_ref().and_then(|v| v.probes.get(op).cloned());
        put(
            avg.into(),
            collect(steps::LATENCY_UNDER_LOAD, &|s| {
                probe(s).map(|p| p.mean_ns / 1e3)
            }),
        );
        put(
            p999.into(),
            collect(steps::LATENCY_UNDER_LOAD, &|s| {
                probe(s).map(|p| p.p99_9_ns / 1e3)
            }),
        );
    }
    put(
        keys::WRITE_BURST_FAST_MIB.into(),
        collect(steps::WRITE_BURST, &|s| burst_fast_mib(&s.seconds)),
    );
    for (name, span) in steps::MAP_READS {
        // QD1: the mean latency is the inverse of the reference window's IOPS (the window
        // leaves out the first reads, which bring the span's map pages in).
        put(
            keys::of(keys::MAP_READ_US, &format!("1/{span}")),
            collect(name, &|s| {
                value(s, |v| v.iops.filter(|x| *x > 0.0).map(|x| 1e6 / x))
            }),
        );
    }
    let inits = inits(&r.device_log);
    put(
        keys::INIT_WAF.into(),
        inits.iter().filter_map(|i| i.waf).collect(),
    );
    put(
        keys::INIT_MB_S.into(),
        inits.iter().filter_map(|i| i.mb_s).collect(),
    );
    let wafs = uniform_wafs(r);
    put(
        keys::OP_ESTIMATE.into(),
        wafs.iter()
            .filter_map(|&w| op_from_waf_formula(w))
            .collect(),
    );
    put(
        keys::OP_ESTIMATE_GREEDY.into(),
        wafs.iter().filter_map(|&w| op_from_greedy(w)).collect(),
    );
    f
}

/// What the device log shows of one sequential init on a freshly reset drive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Init {
    /// Media over host bytes since the reset, at the end of the idle pause after the init.
    pub waf: Option<f64>,
    /// Host bytes over the init's time.
    pub mb_s: Option<f64>,
}

/// Each init of the device log (phase `init`), with the idle pause that follows it: an SLC
/// cache folds what it took in during and after the init, so its folds count only by the
/// pause's end.
pub fn inits(log: &[DeviceLogPoint]) -> Vec<Init> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < log.len() {
        if log[i].phase != "init" {
            i += 1;
            continue;
        }
        let start = i.checked_sub(1).map(|j| &log[j]);
        let mut end = i;
        while end + 1 < log.len() && log[end + 1].phase == "init" {
            end += 1;
        }
        let last = &log[end];
        let mb_s = start.and_then(|s| {
            let host = last.host_bytes?.checked_sub(s.host_bytes?)?;
            let dt = last.t_s - s.t_s;
            (dt > 0.0 && host > 0).then(|| host as f64 / dt / 1e6)
        });
        let mut after = end;
        while after + 1 < log.len() && log[after + 1].phase == "idle" {
            after += 1;
        }
        out.push(Init {
            waf: (after > end).then(|| log[after].waf_since_reset).flatten(),
            mb_s,
        });
        i = after + 1;
    }
    out
}

/// A write burst's intervals before its writes wait: how many MiB the drive took before the
/// first interval in which no write completed (every write waiting for the flash) or whose
/// mean write latency exceeds [`BURST_JUMP`] times the first interval's (its buffer full:
/// writes then wait for programs). `None` without either (the burst did not fill the buffer)
/// or without intervals.
pub fn burst_fast_mib(points: &[SecondPoint]) -> Option<f64> {
    let mut writes = points.iter().filter(|p| p.stream == "write");
    let first = writes.next().filter(|p| p.ios > 0)?;
    let limit = BURST_JUMP * first.lat_mean_ns;
    let mut bytes = first.bytes;
    for p in writes {
        if p.ios == 0 || p.lat_mean_ns > limit {
            return Some(bytes as f64 / (1u64 << 20) as f64);
        }
        bytes += p.bytes;
    }
    None
}

/// How much slower than at the burst's start a write must be to count as waiting for the
/// flash: a buffered write takes its firmware and link time (10-30 us at QD 32), one that
/// waits for a program unit takes the queue over the drive's program rate (hundreds of us).
pub const BURST_JUMP: f64 = 4.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(i: u64, mib: u64, lat_us: f64) -> SecondPoint {
        SecondPoint {
            t_s: i as f64 / 1e3,
            stream: "write".into(),
            ios: mib * 256,
            bytes: mib << 20,
            iops: 0.0,
            mb_s: 0.0,
            lat_mean_ns: lat_us * 1e3,
            lat_p99_ns: 0,
            span_s: None,
            partial: false,
        }
    }

    fn point(t_s: f64, phase: &str, host_mib: u64, waf_since_reset: Option<f64>) -> DeviceLogPoint {
        DeviceLogPoint {
            t_s,
            phase: phase.into(),
            host_bytes: Some(host_mib << 20),
            media_bytes: None,
            temperature_c: None,
            throttling: None,
            free_blocks_pct: None,
            erase_count_min: None,
            erase_count_max: None,
            erase_count_avg: None,
            waf: None,
            waf_since_reset,
        }
    }

    #[test]
    fn an_init_counts_its_folds_to_the_end_of_the_idle_after_it() {
        let log = vec![
            point(0.0, "reset", 0, None),
            point(0.3, "idle", 0, None),
            point(0.5, "init", 200, Some(1.0)),
            point(1.3, "init", 1000, Some(1.05)),
            point(1.5, "idle", 1000, Some(1.08)),
            point(1.6, "idle", 1000, Some(1.10)),
            point(1.7, "pass 1 seq_read (before)", 1000, Some(1.10)),
            point(1.8, "reset", 0, None),
            point(1.9, "idle", 0, None),
            point(2.9, "init", 1000, Some(1.0)),
        ];
        let i = inits(&log);
        assert_eq!(i.len(), 2);
        assert_eq!(i[0].waf, Some(1.10));
        let mb_s = (1000u64 << 20) as f64 / 1.0 / 1e6;
        assert!((i[0].mb_s.unwrap() / mb_s - 1.0).abs() < 1e-9);
        // No idle pause after it (a stopped run): no WA, the throughput still.
        assert_eq!(i[1].waf, None);
        assert!(i[1].mb_s.is_some());
    }

    #[test]
    fn a_burst_counts_what_went_in_before_the_latency_jump() {
        let p = vec![
            ms(0, 6, 20.0),
            ms(1, 6, 22.0),
            ms(2, 6, 70.0),
            ms(3, 1, 400.0),
        ];
        assert_eq!(burst_fast_mib(&p), Some(18.0));
        // A millisecond in which no write completed is the buffer full too, even if the
        // writes after it are quick again for a while.
        let stall = vec![
            ms(0, 6, 20.0),
            ms(1, 2, 21.0),
            ms(2, 0, 0.0),
            ms(3, 3, 55.0),
        ];
        assert_eq!(burst_fast_mib(&stall), Some(8.0));
        // No jump: the burst did not fill the buffer, so it says nothing of its size.
        assert_eq!(burst_fast_mib(&p[..3]), None);
        assert_eq!(burst_fast_mib(&[]), None);
    }

    #[test]
    fn min_median_max() {
        let f = figure(vec![3.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!((f.min, f.median, f.max), (1.0, 2.5, 10.0));
        assert_eq!(f.samples.len(), 4);
        assert!(figure(vec![]).is_none());
        assert!(figure(vec![f64::NAN]).is_none());
    }
}
