//! The SSD-iq procedure as data: which steps run, with which job shape, until when.
//!
//! Order matters: reads run on a sequentially preconditioned drive; random-write steps run
//! uniform first (its WAF is the reference for the skewed ones); latency under load runs last,
//! on a drive in GC steady state.

use ssdiq_schema::steps;
use ssdiq_workload::{Pattern, RwMix};

use crate::steady::SteadyCriteria;

/// How long a step runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// A fixed amount of time (seconds, wall or virtual), one round.
    Seconds(f64),
    /// Until the tracked metric is steady, in rounds of `round_s` seconds each, giving up
    /// after `cap_s` seconds (read and sequential steps).
    SteadyTime {
        round_s: f64,
        cap_s: f64,
        criteria: SteadyCriteria,
    },
    /// Until the tracked metric is steady, measured in rounds of `round_drive_writes` drive
    /// writes each, giving up after `cap_drive_writes`. A steady window may start only after
    /// `warmup_drive_writes`: a step that follows another write step inherits its GC state,
    /// and the throughput can look flat for five rounds while the WAF still moves.
    SteadyWrites {
        round_drive_writes: f64,
        warmup_drive_writes: f64,
        cap_drive_writes: f64,
        criteria: SteadyCriteria,
    },
}

/// Pace of each latency probe: 20,000 samples per probe in the full 20 s step (P99.9 rests
/// on 20 of them), and a write probe adds 4 MB/s, which the background load makes room for.
pub const PROBE_IOPS: f64 = 1000.0;

/// The background load of the latency-under-load step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadFraction(pub f64);

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub name: &'static str,
    pub mix: RwMix,
    pub pattern: Pattern,
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
    pub bound: Bound,
    /// QD1 probe streams that run beside the main load.
    pub probes: Vec<&'static str>,
    /// I/Os per second of each probe. The paper's probe thread runs at io-depth 1; left
    /// unpaced, a write probe on a drive with 10 µs buffered writes adds ~400 MB/s of its own
    /// and the "25% load" is no longer 25%, so the probes sample at a fixed pace instead.
    pub probe_iops: Option<f64>,
    /// For latency under load: the main load's rate as a fraction of the spec random-write
    /// bandwidth (or of the measured one when there is no spec).
    pub load: Option<LoadFraction>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Sequential preconditioning: drive writes of `seq` large-block writes before the steps.
    pub precondition_drive_writes: f64,
    pub precondition_bs: u64,
    pub steps: Vec<Step>,
}

/// Knobs of a plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanOptions {
    /// Short demonstration run: fewer, shorter rounds.
    pub quick: bool,
    pub threads: u32,
}

fn mix(s: &str) -> RwMix {
    RwMix::parse(s).expect("built-in mix")
}

fn pattern(s: &str) -> Pattern {
    Pattern::parse(s).expect("built-in pattern")
}

impl Plan {
    /// The SSD-iq benchmark (paper §3 and §6.1).
    pub fn ssd_iq(o: PlanOptions) -> Plan {
        // Reads and sequential writes: rounds of `read_s / 5`, at most twice the minimum of
        // five rounds.
        let (read_s, round, warmup, cap) = if o.quick {
            (1.0, 0.1, 0.3, 1.5)
        } else {
            (5.0, 0.25, 2.0, 8.0)
        };
        let timed = |criteria| Bound::SteadyTime {
            round_s: read_s / 5.0,
            cap_s: read_s * 2.0,
            criteria,
        };
        let steady = |criteria| Bound::SteadyWrites {
            round_drive_writes: round,
            warmup_drive_writes: warmup,
            cap_drive_writes: cap,
            criteria,
        };
        let crit = SteadyCriteria::default();
        let large = 128 * 1024;
        let small = 4096;
        let t = o.threads.max(1);
        let step = |name, m: &str, p: &str, bs, qd, bound| Step {
            name,
            mix: mix(m),
            pattern: pattern(p),
            bs,
            qd,
            threads: t,
            bound,
            probes: Vec::new(),
            probe_iops: None,
            load: None,
        };
        let mut steps = vec![
            step(steps::SEQ_READ, "read", "seq", large, 32, timed(crit)),
            step(
                steps::RAND_READ,
                "randread",
                "uniform",
                small,
                64,
                timed(crit),
            ),
            step(steps::SEQ_WRITE, "write", "seq", large, 32, timed(crit)),
            step(
                steps::RAND_WRITE_UNIFORM,
                "randwrite",
                "uniform",
                small,
                64,
                steady(crit),
            ),
            step(
                steps::RAND_WRITE_TWOZONE,
                "randwrite",
                "twozone:80/20",
                small,
                64,
                steady(crit),
            ),
            step(
                steps::RAND_WRITE_ZIPF,
                "randwrite",
                "zipf:0.8",
                small,
                64,
                steady(crit),
            ),
        ];
        let mut lat = step(
            steps::LATENCY_UNDER_LOAD,
            "randwrite",
            "uniform",
            small,
            32,
            Bound::Seconds(if o.quick { 2.0 } else { 20.0 }),
        );
        lat.probes = vec!["read", "write"];
        lat.probe_iops = Some(PROBE_IOPS);
        lat.load = Some(LoadFraction(0.25));
        steps.push(lat);
        Plan {
            precondition_drive_writes: 1.0,
            precondition_bs: large,
            steps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_steps_in_order() {
        let p = Plan::ssd_iq(PlanOptions {
            quick: false,
            threads: 1,
        });
        let names: Vec<_> = p.steps.iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "seq_read",
                "rand_read",
                "seq_write",
                "rand_write_uniform",
                "rand_write_twozone",
                "rand_write_zipf",
                "latency_under_load"
            ]
        );
        let lat = p.steps.last().unwrap();
        assert_eq!(lat.probes, ["read", "write"]);
        assert_eq!(lat.load, Some(LoadFraction(0.25)));
        assert_eq!(p.steps[4].pattern.to_string(), "twozone:80/20");
        assert_eq!(p.steps[5].pattern.to_string(), "zipf:0.8");
        assert!(p.steps.iter().all(|s| s.bs % 4096 == 0));
    }

    #[test]
    fn quick_is_shorter() {
        let q = Plan::ssd_iq(PlanOptions {
            quick: true,
            threads: 1,
        });
        let f = Plan::ssd_iq(PlanOptions {
            quick: false,
            threads: 1,
        });
        for (a, b) in q.steps.iter().zip(&f.steps) {
            match (&a.bound, &b.bound) {
                (Bound::Seconds(x), Bound::Seconds(y)) => assert!(x < y),
                (Bound::SteadyTime { cap_s: x, .. }, Bound::SteadyTime { cap_s: y, .. }) => {
                    assert!(x < y)
                }
                (
                    Bound::SteadyWrites {
                        cap_drive_writes: x,
                        ..
                    },
                    Bound::SteadyWrites {
                        cap_drive_writes: y,
                        ..
                    },
                ) => assert!(x < y),
                _ => panic!("bounds differ in kind"),
            }
        }
    }
}
