//! Published SSD-iq results shipped with ssdiq (`--against ssd-iq`): the paper's Tables 2 and
//! 3 for its nine drives, from `data/ssd-iq-paper.toml` (compiled in; its header names the
//! source and how the figures were transcribed).

use serde::Deserialize;
use ssdiq_schema::Spec;

use crate::figures::{DriveFigures, Origin, Skewed, Tail};

const SSD_IQ: &str = include_str!("../data/ssd-iq-paper.toml");

/// Names accepted by `--against`.
pub const NAMES: [&str; 1] = ["ssd-iq"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    source: String,
    short_source: String,
    drive: Vec<Drive>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Drive {
    name: String,
    capacity_gb: f64,
    ocp: bool,
    spec: Spec,
    seq_read_mb_s: f64,
    seq_write_mb_s: f64,
    rand_read_kiops: f64,
    rand_write_kiops: Workloads,
    read_lat_us: Latency,
    write_lat_us: Latency,
    wa: Workloads,
    op_estimate_pct: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Workloads {
    unif: f64,
    twoz: f64,
    zipf: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Latency {
    avg: f64,
    p999: f64,
}

/// A set of published drives and where it comes from.
pub struct Reference {
    /// The full citation.
    pub source: String,
    /// How column headers name it.
    pub short_source: String,
    pub drives: Vec<DriveFigures>,
}

/// The reference named `name` (one of [`NAMES`]); `None` for an unknown name.
pub fn reference(name: &str) -> Option<Reference> {
    match name {
        "ssd-iq" => Some(parse(SSD_IQ)),
        _ => None,
    }
}

fn some(w: &Workloads) -> Skewed<Option<f64>> {
    Skewed {
        unif: Some(w.unif),
        twoz: Some(w.twoz),
        zipf: Some(w.zipf),
    }
}

fn parse(text: &str) -> Reference {
    let f: File = toml::from_str(text).expect("the shipped reference data parses");
    let drives = f
        .drive
        .into_iter()
        .map(|d| {
            // The paper's WA row is OCP-measured where the drive has OCP, else implied.
            let (measured, implied) = if d.ocp {
                (some(&d.wa), Skewed::default())
            } else {
                (Skewed::default(), some(&d.wa))
            };
            DriveFigures {
                name: d.name,
                origin: Origin::Published {
                    source: f.source.clone(),
                },
                capacity_gb: Some(d.capacity_gb),
                spec: d.spec,
                seq_read_mb_s: Some(d.seq_read_mb_s),
                seq_write_mb_s: Some(d.seq_write_mb_s),
                seq_write_free_pool_mb_s: None,
                rand_read_kiops: Some(d.rand_read_kiops),
                rand_write_kiops: some(&d.rand_write_kiops),
                read_lat_us: Tail {
                    avg: Some(d.read_lat_us.avg),
                    p999: Some(d.read_lat_us.p999),
                },
                write_lat_us: Tail {
                    avg: Some(d.write_lat_us.avg),
                    p999: Some(d.write_lat_us.p999),
                },
                media_counters: Some(d.ocp),
                wa_measured: measured,
                wa_implied: implied,
                implied_not_meaningful: None,
                full_capacity_gb: None,
                op_formula: Some(d.op_estimate_pct / 100.0),
                op_greedy: None,
                steady: Skewed::default(),
                steady_runs: Skewed::default(),
                read_idle_us: None,
                write_idle_us: None,
                spread: Default::default(),
                file: false,
            }
        })
        .collect();
    Reference {
        source: f.source,
        short_source: f.short_source,
        drives,
    }
}
