//! The figures of Tables 2 and 3 for one drive, whether ssdiq measured them or a paper
//! published them. Tables and comparison charts read only these, so a published drive and a
//! measured one go through the same colour rules.

use std::collections::BTreeMap;

use ssdiq_schema::{figures as keys, steps, Convergence, Figure, RunResult, Spec, StepResult};

/// One value per write workload of the paper: uniform, two-zone 80/20, Zipf 0.8.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skewed<T> {
    pub unif: T,
    pub twoz: T,
    pub zipf: T,
}

impl<T> Skewed<T> {
    /// The three values with the paper's labels, uniform first.
    pub fn labelled(&self) -> [(&'static str, &T); 3] {
        [
            ("Unif", &self.unif),
            ("TwoZ", &self.twoz),
            ("Zipf", &self.zipf),
        ]
    }

    /// The value under one of [`Self::labelled`]'s labels.
    pub fn get(&self, label: &str) -> &T {
        self.labelled()
            .into_iter()
            .find(|(l, _)| *l == label)
            .map(|(_, v)| v)
            .expect("a label of Skewed::labelled")
    }
}

/// The random-write steps in the order of [`Skewed`].
pub const SKEWED_STEPS: [&str; 3] = [
    steps::RAND_WRITE_UNIFORM,
    steps::RAND_WRITE_TWOZONE,
    steps::RAND_WRITE_ZIPF,
];

/// Average and 99.9th percentile of a probe's latency under load, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tail {
    pub avg: Option<f64>,
    pub p999: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Measured by ssdiq; `partial` when the run stopped early.
    Measured { partial: bool },
    /// Published figures; `source` names where they come from.
    Published { source: String },
}

#[derive(Clone, Debug, PartialEq)]
pub struct DriveFigures {
    pub name: String,
    pub origin: Origin,
    pub capacity_gb: Option<f64>,
    /// The full-size drive a scaled emulated drive stands for, decimal GB.
    pub full_capacity_gb: Option<f64>,
    pub spec: Spec,
    pub seq_read_mb_s: Option<f64>,
    pub seq_write_mb_s: Option<f64>,
    /// The seq_write steps while the drive's free pool lasted (measured drives with media
    /// counters only).
    pub seq_write_free_pool_mb_s: Option<f64>,
    pub rand_read_kiops: Option<f64>,
    pub rand_write_kiops: Skewed<Option<f64>>,
    pub read_lat_us: Tail,
    pub write_lat_us: Tail,
    /// Whether the drive reports media writes (OCP C0h, or the emulated drive).
    pub media_counters: Option<bool>,
    pub wa_measured: Skewed<Option<f64>>,
    pub wa_implied: Skewed<Option<f64>>,
    /// Why the implied WA is not a write amplification (the run's
    /// `derived.implied_not_meaningful`): its cells say "n/m" and compare with nothing.
    pub implied_not_meaningful: Option<String>,
    /// OP estimates as fractions: 1/(2 WA) and the greedy model's.
    pub op_formula: Option<f64>,
    pub op_greedy: Option<f64>,
    pub steady: Skewed<Option<Convergence>>,
    /// Every run of each workload (repetitions): steady or not, within its drive writes.
    pub steady_runs: Skewed<Vec<Convergence>>,
    /// QD1 latency on the idle drive (the reference's read-lat / write-lat steps), µs.
    pub read_idle_us: Option<f64>,
    pub write_idle_us: Option<f64>,
    /// Where a figure has several samples (passes, before/after, repetitions): its min and
    /// max, by the keys of `ssdiq_schema::figures`; the fields above hold the medians.
    pub spread: BTreeMap<String, (f64, f64)>,
    /// A file target: WA and OP describe the filesystem stack, not a drive.
    pub file: bool,
}

impl DriveFigures {
    pub fn published(&self) -> bool {
        matches!(self.origin, Origin::Published { .. })
    }

    /// The figures of a run: its `figures` (medians over every sample) when it has them, else,
    /// for results of earlier versions, the one step of each name.
    pub fn from_run(r: &RunResult) -> Self {
        let mut d = Self::from_steps(r);
        if r.figures.is_empty() {
            return d;
        }
        let f = |k: &str| r.figure(k).map(|x| x.median);
        let sk = |metric: &str| Skewed {
            unif: f(&keys::of(metric, "uniform")),
            twoz: f(&keys::of(metric, "twozone")),
            zipf: f(&keys::of(metric, "zipf")),
        };
        d.seq_read_mb_s = f(keys::SEQ_READ_MB_S);
        d.seq_write_mb_s = f(keys::SEQ_WRITE_MB_S);
        d.seq_write_free_pool_mb_s = f(keys::SEQ_WRITE_FREE_POOL_MB_S);
        d.rand_read_kiops = f(keys::RAND_READ_KIOPS);
        d.rand_write_kiops = sk(keys::RAND_WRITE_KIOPS);
        d.read_lat_us = Tail {
            avg: f(keys::READ_LAT_LOAD_AVG_US),
            p999: f(keys::READ_LAT_LOAD_P999_US),
        };
        d.write_lat_us = Tail {
            avg: f(keys::WRITE_LAT_LOAD_AVG_US),
            p999: f(keys::WRITE_LAT_LOAD_P999_US),
        };
        d.wa_measured = sk(keys::WAF_MEASURED);
        d.wa_implied = sk(keys::WAF_IMPLIED);
        d.op_formula = f(keys::OP_ESTIMATE);
        d.op_greedy = f(keys::OP_ESTIMATE_GREEDY);
        d.read_idle_us = f(keys::READ_LAT_IDLE_US);
        d.write_idle_us = f(keys::WRITE_LAT_IDLE_US);
        d.spread = r
            .figures
            .iter()
            .filter(|(_, x)| x.samples.len() > 1)
            .map(|(k, x): (&String, &Figure)| (k.clone(), (x.min, x.max)))
            .collect();
        d
    }

    /// The spread of a figure, when it has several samples.
    pub fn spread(&self, key: &str) -> Option<(f64, f64)> {
        self.spread.get(key).copied()
    }

    fn from_steps(r: &RunResult) -> Self {
        let op = |step: &str, op: &str| r.step(step).and_then(|s| s.ops.get(op));
        let probe = |name: &str| {
            let o = r
                .step(steps::LATENCY_UNDER_LOAD)
                .and_then(|s| s.probes.get(name));
            Tail {
                avg: o.map(|o| o.lat_ns.mean / 1e3),
                p999: o.map(|o| o.lat_ns.p99_9 as f64 / 1e3),
            }
        };
        let skewed = |f: &dyn Fn(&StepResult) -> Option<f64>| Skewed {
            unif: r.step(SKEWED_STEPS[0]).and_then(f),
            twoz: r.step(SKEWED_STEPS[1]).and_then(f),
            zipf: r.step(SKEWED_STEPS[2]).and_then(f),
        };
        let steady = |i: usize| r.step(SKEWED_STEPS[i]).and_then(|s| s.convergence.clone());
        let steady_all = |i: usize| {
            r.steps
                .iter()
                .filter(|s| s.name == SKEWED_STEPS[i])
                .filter_map(|s| s.convergence.clone())
                .collect::<Vec<_>>()
        };
        DriveFigures {
            name: r
                .target
                .model
                .clone()
                .unwrap_or_else(|| r.target.name.clone()),
            origin: Origin::Measured { partial: r.partial },
            capacity_gb: Some(r.target.capacity_bytes as f64 / 1e9),
            full_capacity_gb: r.target.full_capacity_bytes.map(|b| b as f64 / 1e9),
            spec: r.spec.clone().unwrap_or_default(),
            seq_read_mb_s: op(steps::SEQ_READ, "read").map(|o| o.mb_s),
            seq_write_mb_s: op(steps::SEQ_WRITE, "write").map(|o| o.mb_s),
            seq_write_free_pool_mb_s: None,
            rand_read_kiops: op(steps::RAND_READ, "read").map(|o| o.iops / 1e3),
            rand_write_kiops: skewed(&|s| s.ops.get("write").map(|o| o.iops / 1e3)),
            read_lat_us: probe("read"),
            write_lat_us: probe("write"),
            media_counters: Some(r.target.reports_media_writes),
            wa_measured: skewed(&|s| s.waf_measured),
            wa_implied: skewed(&|s| s.waf_implied),
            implied_not_meaningful: r.derived.implied_not_meaningful.clone(),
            op_formula: r.derived.op_estimate_formula,
            op_greedy: r.derived.op_estimate_greedy,
            steady: Skewed {
                unif: steady(0),
                twoz: steady(1),
                zipf: steady(2),
            },
            steady_runs: Skewed {
                unif: steady_all(0),
                twoz: steady_all(1),
                zipf: steady_all(2),
            },
            read_idle_us: None,
            write_idle_us: None,
            spread: BTreeMap::new(),
            file: r.target.kind.as_deref() == Some("file"),
        }
    }
}
