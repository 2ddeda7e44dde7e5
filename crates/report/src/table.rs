//! Tables 2 and 3 of the SSD-iq paper, one column per drive: spec beside measured, with the
//! paper's colours. Renderers (Markdown, terminal, HTML) draw these tables; they do not
//! compute anything themselves.

use std::collections::BTreeMap;

use crate::colour::{self, Colour};
use crate::model::{figures as keys, steps, Figure, RunResult, Spec, StepResult};

#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub text: String,
    pub colour: Option<Colour>,
    /// A datasheet value rather than a measurement.
    pub spec: bool,
}

impl Cell {
    fn empty() -> Self {
        Cell {
            text: "-".into(),
            colour: None,
            spec: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub metric: String,
    pub variant: String,
    pub cells: Vec<Cell>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
}

fn drive_name(r: &RunResult) -> String {
    let mut name = r
        .target
        .model
        .clone()
        .unwrap_or_else(|| r.target.name.clone());
    if is_file(r) {
        name.push_str(" (file)");
    }
    if r.partial {
        name.push_str(" (partial)");
    }
    name
}

fn is_file(r: &RunResult) -> bool {
    r.target.kind.as_deref() == Some("file")
}

/// The figures of a result: its own, or for results written before the `ssd-iq` protocol,
/// one sample each from the step of that name.
pub fn figures_of(r: &RunResult) -> BTreeMap<String, Figure> {
    if !r.figures.is_empty() {
        return r.figures.clone();
    }
    let mut f = BTreeMap::new();
    let mut put = |k: String, v: Option<f64>| {
        if let Some(v) = v.filter(|v| v.is_finite()) {
            f.insert(
                k,
                Figure {
                    median: v,
                    min: v,
                    max: v,
                    samples: vec![v],
                },
            );
        }
    };
    let op = |step: &str, op: &str| r.step(step).and_then(|s| s.ops.get(op));
    let probe = |op: &str| {
        r.step(steps::LATENCY_UNDER_LOAD)
            .and_then(|s| s.probes.get(op))
    };
    put(
        keys::SEQ_READ_MB_S.into(),
        op(steps::SEQ_READ, "read").map(|o| o.mb_s),
    );
    put(
        keys::SEQ_WRITE_MB_S.into(),
        op(steps::SEQ_WRITE, "write").map(|o| o.mb_s),
    );
    put(
        keys::RAND_READ_KIOPS.into(),
        op(steps::RAND_READ, "read").map(|o| o.iops / 1e3),
    );
    for (w, step) in WORKLOADS {
        put(
            keys::of(keys::RAND_WRITE_KIOPS, w),
            op(step, "write").map(|o| o.iops / 1e3),
        );
        put(
            keys::of(keys::WAF_MEASURED, w),
            r.step(step).and_then(|s| s.waf_measured),
        );
        put(
            keys::of(keys::WAF_IMPLIED, w),
            r.step(step).and_then(|s| s.waf_implied),
        );
    }
    put(
        keys::READ_LAT_LOAD_AVG_US.into(),
        probe("read").map(|o| o.lat_ns.mean / 1e3),
    );
    put(
        keys::READ_LAT_LOAD_P999_US.into(),
        probe("read").map(|o| o.lat_ns.p99_9 as f64 / 1e3),
    );
    put(
        keys::WRITE_LAT_LOAD_AVG_US.into(),
        probe("write").map(|o| o.lat_ns.mean / 1e3),
    );
    put(
        keys::WRITE_LAT_LOAD_P999_US.into(),
        probe("write").map(|o| o.lat_ns.p99_9 as f64 / 1e3),
    );
    put(keys::OP_ESTIMATE.into(), r.derived.op_estimate_formula);
    put(
        keys::OP_ESTIMATE_GREEDY.into(),
        r.derived.op_estimate_greedy,
    );
    f
}

/// (short name, step name) of the three write workloads.
const WORKLOADS: [(&str, &str); 3] = [
    ("uniform", steps::RAND_WRITE_UNIFORM),
    ("twozone", steps::RAND_WRITE_TWOZONE),
    ("zipf", steps::RAND_WRITE_ZIPF),
];

/// A figure's cell: the median, and `[min-max]` when the samples differ. Colours follow the
/// median.
fn fig_cell(f: Option<&Figure>, decimals: usize, colour: impl Fn(f64) -> Option<Colour>) -> Cell {
    match f {
        Some(f) if f.median.is_finite() => {
            let mut text = format!("{:.decimals$}", f.median);
            let (lo, hi) = (
                format!("{:.decimals$}", f.min),
                format!("{:.decimals$}", f.max),
            );
            if f.samples.len() > 1 && lo != hi {
                text = format!("{text} [{lo}-{hi}]");
            }
            Cell {
                text,
                colour: colour(f.median),
                spec: false,
            }
        }
        _ => Cell::empty(),
    }
}

fn num(
    v: Option<f64>,
    decimals: usize,
    colour: impl Fn(f64) -> Option<Colour>,
    spec: bool,
) -> Cell {
    match v {
        Some(v) if v.is_finite() => Cell {
            text: format!("{v:.decimals$}"),
            colour: colour(v),
            spec,
        },
        _ => Cell::empty(),
    }
}

fn plain(v: Option<f64>, decimals: usize) -> Cell {
    num(v, decimals, |_| None, false)
}

fn spec(v: Option<f64>, decimals: usize) -> Cell {
    num(v, decimals, |_| None, true)
}

fn row(metric: &str, variant: &str, results: &[&RunResult], f: impl Fn(&RunResult) -> Cell) -> Row {
    Row {
        metric: metric.into(),
        variant: variant.into(),
        cells: results.iter().map(|r| f(r)).collect(),
    }
}

/// The WAF a step reports: measured where the drive reports media writes, else implied.
pub fn step_waf(s: &StepResult) -> Option<f64> {
    s.waf_measured.or(s.waf_implied)
}

/// Steady state of a workload over all its runs: the median drive writes at which the
/// steady window ended when every run was steady within the reference bound; else how many
/// were not.
fn steady_cell(r: &RunResult, step: &str) -> Cell {
    let cs: Vec<&crate::model::Convergence> = r
        .steps
        .iter()
        .filter(|s| s.name == step)
        .filter_map(|s| s.convergence.as_ref())
        .collect();
    if cs.is_empty() {
        return Cell::empty();
    }
    let ok = |c: &&crate::model::Convergence| c.within_reference.unwrap_or(c.converged);
    let not = cs.iter().filter(|c| !ok(c)).count();
    if not == 0 {
        let mut dw: Vec<f64> = cs.iter().map(|c| c.drive_writes).collect();
        dw.sort_by(f64::total_cmp);
        Cell {
            text: format!("{:.1}", dw[dw.len() / 2]),
            colour: None,
            spec: false,
        }
    } else {
        let reference = cs[0]
            .reference_drive_writes
            .map(|d| format!(" within {d:.1}"))
            .unwrap_or_default();
        Cell {
            text: if cs.len() == 1 {
                format!("not steady{reference}")
            } else {
                format!("{not}/{} not steady{reference}", cs.len())
            },
            colour: Some(Colour::Yellow),
            spec: false,
        }
    }
}

/// Table 2 (performance) and Table 3 (internal characteristics) for these drives.
pub fn build_tables(results: &[&RunResult]) -> (Table, Table) {
    let columns: Vec<String> = results.iter().map(|r| drive_name(r)).collect();
    let figs: Vec<BTreeMap<String, Figure>> = results.iter().map(|r| figures_of(r)).collect();
    let at = |r: &RunResult| {
        results
            .iter()
            .position(|x| std::ptr::eq(*x, r))
            .expect("one of the results")
    };
    let fig = |r: &RunResult, k: &str| figs[at(r)].get(k).cloned();
    let sp = |r: &RunResult| r.spec.clone().unwrap_or_default();
    let mut t2 = Vec::new();
    t2.push(row("Capacity [GB]", "", results, |r| {
        let gb = r.target.capacity_bytes as f64 / 1e9;
        plain(Some(gb), if gb >= 10.0 { 0 } else { 2 })
    }));
    for (metric, spec_v, key, dec) in [
        (
            "Seq. Read [MB/s]",
            (|s: &Spec| s.seq_read_mb_s) as fn(&Spec) -> Option<f64>,
            keys::SEQ_READ_MB_S,
            0,
        ),
        (
            "Seq. Write [MB/s]",
            |s: &Spec| s.seq_write_mb_s,
            keys::SEQ_WRITE_MB_S,
            0,
        ),
        (
            "Rnd. Read [k IOPS]",
            |s: &Spec| s.rand_read_kiops,
            keys::RAND_READ_KIOPS,
            0,
        ),
    ] {
        t2.push(row(metric, "Spec", results, |r| spec(spec_v(&sp(r)), 0)));
        t2.push(row("", "Measured", results, |r| {
            fig_cell(fig(r, key).as_ref(), dec, |_| None)
        }));
    }
    t2.push(row("Rnd. Write [k IOPS]", "Spec", results, |r| {
        spec(sp(r).rand_write_kiops, 0)
    }));
    let kiops = |w: &str| keys::of(keys::RAND_WRITE_KIOPS, w);
    t2.push(row("", "Unif", results, |r| {
        let s = sp(r).rand_write_kiops;
        fig_cell(fig(r, &kiops("uniform")).as_ref(), 0, |v| {
            s.map(|s| colour::against_spec(v, s))
        })
    }));
    for (label, w) in [("TwoZ", "twozone"), ("Zipf", "zipf")] {
        t2.push(row("", label, results, |r| {
            let u = fig(r, &kiops("uniform")).map(|f| f.median);
            fig_cell(fig(r, &kiops(w)).as_ref(), 0, |v| {
                u.and_then(|u| colour::skew_higher_is_better(v, u))
            })
        }));
    }
    for (metric, spec_v, idle, avg, p999, c_avg, c_p999) in [
        (
            "Read Lat. [us]",
            (|s: &Spec| s.read_lat_us) as fn(&Spec) -> Option<f64>,
            keys::READ_LAT_IDLE_US,
            keys::READ_LAT_LOAD_AVG_US,
            keys::READ_LAT_LOAD_P999_US,
            colour::read_avg as fn(f64) -> Colour,
            colour::read_p999 as fn(f64) -> Colour,
        ),
        (
            "Write Lat. [us]",
            |s: &Spec| s.write_lat_us,
            keys::WRITE_LAT_IDLE_US,
            keys::WRITE_LAT_LOAD_AVG_US,
            keys::WRITE_LAT_LOAD_P999_US,
            colour::write_avg,
            colour::write_p999,
        ),
    ] {
        t2.push(row(metric, "Spec", results, |r| spec(spec_v(&sp(r)), 0)));
        if figs.iter().any(|f| f.contains_key(idle)) {
            t2.push(row("", "idle (QD1) Avg", results, |r| {
                fig_cell(fig(r, idle).as_ref(), 0, |_| None)
            }));
        }
        t2.push(row("", "under load Avg", results, |r| {
            fig_cell(fig(r, avg).as_ref(), 0, |v| Some(c_avg(v)))
        }));
        t2.push(row("", "P99.9", results, |r| {
            fig_cell(fig(r, p999).as_ref(), 0, |v| Some(c_p999(v)))
        }));
    }
    let many = figs.iter().any(|f| f.values().any(|x| x.samples.len() > 1));
    let mut notes2 = vec![
        "Spec: datasheet values. Rnd. Write Unif is coloured against the spec (>= 95% green, >= 80% yellow, else red); TwoZ/Zipf against Unif (2% band).".into(),
        "Latency under load: open-loop probes (5k reads and 5k writes per second) beside Poisson random writes, 25% of the spec random-write rate in all; the medians over their 60 s intervals. Read avg < 100 us green; P99.9 < 500 green, < 1000 yellow. Write avg < 20 us green; P99.9 < 20 green, < 100 yellow.".into(),
    ];
    if many {
        notes2.push("A cell with several samples (passes, before and after the write workload, repetitions) shows the median and [min-max].".into());
    }
    let table2 = Table {
        title: "Table 2: SSD performance".into(),
        columns: columns.clone(),
        rows: t2,
        notes: notes2,
    };

    let mut t3 = Vec::new();
    t3.push(row("Media write counters", "", results, |r| Cell {
        text: if r.target.reports_media_writes {
            "yes"
        } else {
            "no"
        }
        .into(),
        colour: None,
        spec: false,
    }));
    for (kind, metric) in [
        ("WA (measured)", keys::WAF_MEASURED),
        ("WA (implied)", keys::WAF_IMPLIED),
    ] {
        for (i, (label, w)) in [("Unif", "uniform"), ("TwoZ", "twozone"), ("Zipf", "zipf")]
            .into_iter()
            .enumerate()
        {
            t3.push(row(if i == 0 { kind } else { "" }, label, results, |r| {
                let u = fig(r, &keys::of(metric, "uniform")).map(|f| f.median);
                fig_cell(fig(r, &keys::of(metric, w)).as_ref(), 2, |v| {
                    if i == 0 {
                        None
                    } else {
                        u.and_then(|u| colour::skew_lower_is_better(v, u))
                    }
                })
            }));
        }
    }
    // An estimate above 100% means the drive wrote almost nothing extra (no GC seen, or a
    // cache in front): no OP figure follows from that, only that it is large.
    let pct = |f: Option<Figure>| match f {
        Some(f) if f.median > 1.0 => Cell {
            text: "> 100".into(),
            colour: None,
            spec: false,
        },
        Some(f) => fig_cell(
            Some(&Figure {
                median: f.median * 100.0,
                min: f.min * 100.0,
                max: f.max * 100.0,
                samples: f.samples.iter().map(|x| x * 100.0).collect(),
            }),
            1,
            |_| None,
        ),
        None => Cell::empty(),
    };
    t3.push(row("Estimated OP [%]", "1/(2 WA)", results, |r| {
        pct(fig(r, keys::OP_ESTIMATE))
    }));
    t3.push(row("", "greedy model", results, |r| {
        pct(fig(r, keys::OP_ESTIMATE_GREEDY))
    }));
    for (i, (label, step)) in [
        ("Unif", steps::RAND_WRITE_UNIFORM),
        ("TwoZ", steps::RAND_WRITE_TWOZONE),
        ("Zipf", steps::RAND_WRITE_ZIPF),
    ]
    .into_iter()
    .enumerate()
    {
        t3.push(row(
            if i == 0 {
                "Steady state [drive writes]"
            } else {
                ""
            },
            label,
            results,
            |r| steady_cell(r, step),
        ));
    }
    let mut notes3 = vec![
            "WA (measured) = media / host writes where the drive reports media writes; WA (implied) = sequential write bandwidth / random write bandwidth. TwoZ/Zipf coloured against Unif (green better, red worse).".into(),
            "Estimated OP is a lower bound: greedy GC is optimal for uniform writes, so a worse GC implies more OP than estimated; \"> 100\" means the uniform WA was too close to 1 to tell.".into(),
            "Steady state (SNIA PTS rule, 5 rounds of 1/30 of the workload: range within 20%, fitted slope within 10% of the mean): the drive writes at which the first steady window ended, or \"not steady within\" the workload's drive writes.".into(),
        ];
    if results.iter().any(|r| is_file(r)) {
        notes3.push("(file): a file target's WA and OP figures describe the filesystem stack (file system, its allocation and the device beneath), not a drive.".into());
    }
    let table3 = Table {
        title: "Table 3: Additional SSD characteristics".into(),
        columns,
        rows: t3,
        notes: notes3,
    };
    (table2, table3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::tests::sample;

    fn cell<'a>(t: &'a Table, metric: &str, variant: &str) -> &'a str {
        let mut current = "";
        for r in &t.rows {
            if !r.metric.is_empty() {
                current = &r.metric;
            }
            if current == metric && r.variant == variant {
                return &r.cells[0].text;
            }
        }
        panic!("no row {metric}/{variant}")
    }

    #[test]
    fn small_drives_keep_their_capacity_and_a_wa_near_one_gives_no_op_figure() {
        let mut r = sample();
        let (t2, t3) = build_tables(&[&r]);
        assert_eq!(cell(&t2, "Capacity [GB]", ""), "960");
        assert_eq!(cell(&t3, "Estimated OP [%]", "greedy model"), "14.7");
        r.target.capacity_bytes = 67_108_864;
        r.derived.op_estimate_formula = Some(0.496);
        r.derived.op_estimate_greedy = Some(3.875);
        let (t2, t3) = build_tables(&[&r]);
        assert_eq!(cell(&t2, "Capacity [GB]", ""), "0.07");
        assert_eq!(cell(&t3, "Estimated OP [%]", "1/(2 WA)"), "49.6");
        assert_eq!(cell(&t3, "Estimated OP [%]", "greedy model"), "> 100");
    }
}
