//! Tables 2 and 3 of the SSD-iq paper, one column per drive: spec beside measured, with the
//! paper's colours. Renderers (Markdown, terminal, HTML) draw these tables; they do not
//! compute anything themselves.

use crate::colour::{self, Colour};
use crate::model::{steps, RunResult, StepResult};

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
    if r.partial {
        name.push_str(" (partial)");
    }
    name
}

fn op_of<'a>(r: &'a RunResult, step: &str, op: &str) -> Option<&'a crate::model::OpSummary> {
    r.step(step).and_then(|s| s.ops.get(op))
}

fn probe_of<'a>(r: &'a RunResult, op: &str) -> Option<&'a crate::model::OpSummary> {
    r.step(steps::LATENCY_UNDER_LOAD)
        .and_then(|s| s.probes.get(op))
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

fn write_kiops(r: &RunResult, step: &str) -> Option<f64> {
    op_of(r, step, "write").map(|o| o.iops / 1e3)
}

/// The WAF a step reports: measured where the drive reports media writes, else implied.
pub fn step_waf(s: &StepResult) -> Option<f64> {
    s.waf_measured.or(s.waf_implied)
}

/// Table 2 (performance) and Table 3 (internal characteristics) for these drives.
pub fn build_tables(results: &[&RunResult]) -> (Table, Table) {
    let columns: Vec<String> = results.iter().map(|r| drive_name(r)).collect();
    let sp = |r: &RunResult| r.spec.clone().unwrap_or_default();
    let mut t2 = Vec::new();
    t2.push(row("Capacity [GB]", "", results, |r| {
        let gb = r.target.capacity_bytes as f64 / 1e9;
        plain(Some(gb), if gb >= 10.0 { 0 } else { 2 })
    }));
    t2.push(row("Seq. Read [MB/s]", "Spec", results, |r| {
        spec(sp(r).seq_read_mb_s, 0)
    }));
    t2.push(row("", "Measured", results, |r| {
        plain(op_of(r, steps::SEQ_READ, "read").map(|o| o.mb_s), 0)
    }));
    t2.push(row("Seq. Write [MB/s]", "Spec", results, |r| {
        spec(sp(r).seq_write_mb_s, 0)
    }));
    t2.push(row("", "Measured", results, |r| {
        plain(op_of(r, steps::SEQ_WRITE, "write").map(|o| o.mb_s), 0)
    }));
    t2.push(row("Rnd. Read [k IOPS]", "Spec", results, |r| {
        spec(sp(r).rand_read_kiops, 0)
    }));
    t2.push(row("", "Measured", results, |r| {
        plain(op_of(r, steps::RAND_READ, "read").map(|o| o.iops / 1e3), 0)
    }));
    t2.push(row("Rnd. Write [k IOPS]", "Spec", results, |r| {
        spec(sp(r).rand_write_kiops, 0)
    }));
    t2.push(row("", "Unif", results, |r| {
        let s = sp(r).rand_write_kiops;
        num(
            write_kiops(r, steps::RAND_WRITE_UNIFORM),
            0,
            |v| s.map(|s| colour::against_spec(v, s)),
            false,
        )
    }));
    for (label, step) in [
        ("TwoZ", steps::RAND_WRITE_TWOZONE),
        ("Zipf", steps::RAND_WRITE_ZIPF),
    ] {
        t2.push(row("", label, results, |r| {
            let u = write_kiops(r, steps::RAND_WRITE_UNIFORM);
            num(
                write_kiops(r, step),
                0,
                |v| u.and_then(|u| colour::skew_higher_is_better(v, u)),
                false,
            )
        }));
    }
    let us = |ns: f64| ns / 1e3;
    t2.push(row("Read Lat. [us]", "Spec", results, |r| {
        spec(sp(r).read_lat_us, 0)
    }));
    t2.push(row("", "under load Avg", results, |r| {
        num(
            probe_of(r, "read").map(|o| us(o.lat_ns.mean)),
            0,
            |v| Some(colour::read_avg(v)),
            false,
        )
    }));
    t2.push(row("", "P99.9", results, |r| {
        num(
            probe_of(r, "read").map(|o| us(o.lat_ns.p99_9 as f64)),
            0,
            |v| Some(colour::read_p999(v)),
            false,
        )
    }));
    t2.push(row("Write Lat. [us]", "Spec", results, |r| {
        spec(sp(r).write_lat_us, 0)
    }));
    t2.push(row("", "under load Avg", results, |r| {
        num(
            probe_of(r, "write").map(|o| us(o.lat_ns.mean)),
            0,
            |v| Some(colour::write_avg(v)),
            false,
        )
    }));
    t2.push(row("", "P99.9", results, |r| {
        num(
            probe_of(r, "write").map(|o| us(o.lat_ns.p99_9 as f64)),
            0,
            |v| Some(colour::write_p999(v)),
            false,
        )
    }));
    let table2 = Table {
        title: "Table 2: SSD performance".into(),
        columns: columns.clone(),
        rows: t2,
        notes: vec![
            "Spec: datasheet values. Rnd. Write Unif is coloured against the spec (>= 95% green, >= 80% yellow, else red); TwoZ/Zipf against Unif (2% band).".into(),
            "Latency under load: QD1 probes while random writes run at 25% of the spec random-write bandwidth. Read avg < 100 us green; P99.9 < 500 green, < 1000 yellow. Write avg < 20 us green; P99.9 < 20 green, < 100 yellow.".into(),
        ],
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
    let wa_steps = [
        ("Unif", steps::RAND_WRITE_UNIFORM),
        ("TwoZ", steps::RAND_WRITE_TWOZONE),
        ("Zipf", steps::RAND_WRITE_ZIPF),
    ];
    for (kind, pick) in [
        (
            "WA (measured)",
            (|s: &StepResult| s.waf_measured) as fn(&StepResult) -> Option<f64>,
        ),
        ("WA (implied)", |s: &StepResult| s.waf_implied),
    ] {
        for (i, (label, step)) in wa_steps.iter().enumerate() {
            t3.push(row(if i == 0 { kind } else { "" }, label, results, |r| {
                let u = r.step(steps::RAND_WRITE_UNIFORM).and_then(pick);
                num(
                    r.step(step).and_then(pick),
                    2,
                    |v| {
                        if i == 0 {
                            None
                        } else {
                            u.and_then(|u| colour::skew_lower_is_better(v, u))
                        }
                    },
                    false,
                )
            }));
        }
    }
    // An estimate above 100% means the drive wrote almost nothing extra (no GC seen, or a
    // cache in front): no OP figure follows from that, only that it is large.
    let pct = |v: Option<f64>| match v {
        Some(v) if v > 1.0 => Cell {
            text: "> 100".into(),
            colour: None,
            spec: false,
        },
        v => plain(v.map(|v| v * 100.0), 1),
    };
    t3.push(row("Estimated OP [%]", "1/(2 WA)", results, |r| {
        pct(r.derived.op_estimate_formula)
    }));
    t3.push(row("", "greedy model", results, |r| {
        pct(r.derived.op_estimate_greedy)
    }));
    for (i, (label, step)) in wa_steps.iter().enumerate() {
        t3.push(row(
            if i == 0 {
                "Steady state [drive writes]"
            } else {
                ""
            },
            label,
            results,
            |r| match r.step(step).and_then(|s| s.convergence.as_ref()) {
                Some(c) => Cell {
                    text: format!(
                        "{:.1}{}",
                        c.drive_writes,
                        if c.converged { "" } else { " (not steady)" }
                    ),
                    colour: if c.converged {
                        None
                    } else {
                        Some(Colour::Yellow)
                    },
                    spec: false,
                },
                None => Cell::empty(),
            },
        ));
    }
    let table3 = Table {
        title: "Table 3: Additional SSD characteristics".into(),
        columns,
        rows: t3,
        notes: vec![
            "WA (measured) = media / host writes where the drive reports media writes; WA (implied) = sequential write bandwidth / random write bandwidth. TwoZ/Zipf coloured against Unif (green better, red worse).".into(),
            "Estimated OP is a lower bound: greedy GC is optimal for uniform writes, so a worse GC implies more OP than estimated; \"> 100\" means the uniform WA was too close to 1 to tell.".into(),
        ],
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
