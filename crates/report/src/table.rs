//! Tables 2 and 3 of the SSD-iq paper, one column per drive: spec beside measured, with the
//! paper's colours, published drives beside measured ones, and the difference of every
//! further measured drive from the first. Renderers (Markdown, terminal, HTML) draw these
//! tables; they do not compute anything themselves.

use crate::colour::{self, Colour};
use crate::figures::{DriveFigures, Skewed, Tail};
use crate::model::{figures as keys, Convergence, RunResult};

#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub text: String,
    /// The number shown, for comparisons.
    pub value: Option<f64>,
    pub colour: Option<Colour>,
    /// A datasheet value rather than a measurement.
    pub spec: bool,
    /// How far this measured value is from the first drive's (`+15%`, `×120`), when it
    /// differs by at least [`DIFF_THRESHOLD`].
    pub diff: Option<String>,
}

impl Cell {
    fn empty() -> Self {
        Cell {
            text: "-".into(),
            value: None,
            colour: None,
            spec: false,
            diff: None,
        }
    }

    fn text(text: &str) -> Self {
        Cell {
            text: text.into(),
            ..Cell::empty()
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub metric: String,
    pub variant: String,
    /// What the metric means and how it was measured (first row of a metric only).
    pub help: String,
    pub cells: Vec<Cell>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    /// Published figures (a paper), not measured by ssdiq.
    pub published: bool,
    /// Index of this drive among the measured drives (its colour on the page).
    pub measured_index: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub title: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
}

/// Relative differences below this are not annotated.
pub const DIFF_THRESHOLD: f64 = 0.10;

/// `+15%` / `-35%` within a factor of two, `×2.3` / `×0.04` beyond.
pub fn diff_text(value: f64, base: f64) -> Option<String> {
    if !(value.is_finite() && base.is_finite()) || base == 0.0 {
        return None;
    }
    let r = value / base;
    if (r - 1.0).abs() < DIFF_THRESHOLD {
        return None;
    }
    Some(if (0.5..=2.0).contains(&r) {
        format!("{:+.0}%", (r - 1.0) * 100.0)
    } else if r >= 10.0 {
        format!("×{r:.0}")
    } else {
        format!(
            "×{}",
            crate::chart::axis::format_number(r, if r >= 0.1 { 2 } else { 3 })
        )
    })
}

fn column(d: &DriveFigures, measured_index: &mut usize) -> Column {
    let mut name = d.name.clone();
    if d.file {
        name.push_str(" (file)");
    }
    if d.origin == (crate::figures::Origin::Measured { partial: true }) {
        name.push_str(" (partial)");
    }
    let published = d.published();
    let idx = (!published).then(|| {
        *measured_index += 1;
        *measured_index - 1
    });
    Column {
        name,
        published,
        measured_index: idx,
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
            value: Some(v),
            colour: colour(v),
            spec,
            diff: None,
        },
        _ => Cell {
            spec,
            ..Cell::empty()
        },
    }
}

fn plain(v: Option<f64>, decimals: usize) -> Cell {
    num(v, decimals, |_| None, false)
}

/// A cell of a figure with several samples: the median, then `[min-max]` when they differ
/// at the cell's precision.
fn spread(mut c: Cell, s: Option<(f64, f64)>, decimals: usize, scale: f64) -> Cell {
    if let (Some((lo, hi)), Some(_)) = (s, c.value) {
        let (lo, hi) = (
            format!("{:.decimals$}", lo * scale),
            format!("{:.decimals$}", hi * scale),
        );
        if lo != hi {
            c.text = format!("{} [{lo}-{hi}]", c.text);
        }
    }
    c
}

/// The key of a figure of one workload (`rand_write_kiops.zipf`).
fn wkey(metric: &str, label: &str) -> String {
    let w = match label {
        "Unif" => "uniform",
        "TwoZ" => "twozone",
        _ => "zipf",
    };
    keys::of(metric, w)
}

/// Steady state of a workload over all its runs: the drive writes at which the steady
/// window ended (the median when there were several runs) when every run was steady within
/// its drive writes; else how many were not.
fn steady_cell(runs: &[Convergence], first: Option<&Convergence>) -> Cell {
    let runs: Vec<&Convergence> = if runs.is_empty() {
        first.into_iter().collect()
    } else {
        runs.iter().collect()
    };
    if runs.is_empty() {
        return Cell::empty();
    }
    let ok = |c: &&Convergence| c.within_reference.unwrap_or(c.converged);
    let not = runs.iter().filter(|c| !ok(c)).count();
    if not == 0 {
        let mut dw: Vec<f64> = runs.iter().map(|c| c.drive_writes).collect();
        dw.sort_by(f64::total_cmp);
        let v = dw[dw.len() / 2];
        return Cell {
            text: format!("{v:.1}"),
            value: Some(v),
            ..Cell::empty()
        };
    }
    let within = runs[0]
        .reference_drive_writes
        .map(|d| format!(" within {d:.1}"))
        .unwrap_or_default();
    Cell {
        text: if runs.len() == 1 {
            format!("not steady{within}")
        } else {
            format!("{not}/{} not steady{within}", runs.len())
        },
        colour: Some(Colour::Yellow),
        ..Cell::empty()
    }
}

fn spec(v: Option<f64>, decimals: usize) -> Cell {
    num(v, decimals, |_| None, true)
}

struct Rows<'a> {
    drives: &'a [DriveFigures],
    rows: Vec<Row>,
}

impl Rows<'_> {
    fn add(&mut self, metric: &str, variant: &str, help: &str, f: impl Fn(&DriveFigures) -> Cell) {
        self.rows.push(Row {
            metric: metric.into(),
            variant: variant.into(),
            help: help.into(),
            cells: self.drives.iter().map(f).collect(),
        });
    }

    /// [`Self::add`] for a row only some results can fill (new in the schema, or from media
    /// counters): left out when no drive has a value, so older results read as before.
    fn add_if_any(
        &mut self,
        metric: &str,
        variant: &str,
        help: &str,
        f: impl Fn(&DriveFigures) -> Cell,
    ) {
        let cells: Vec<Cell> = self.drives.iter().map(f).collect();
        if cells.iter().any(|c| c.value.is_some()) {
            self.rows.push(Row {
                metric: metric.into(),
                variant: variant.into(),
                help: help.into(),
                cells,
            });
        }
    }

    /// Annotates measured cells that differ from the first measured drive's.
    fn finish(mut self) -> Vec<Row> {
        let measured: Vec<usize> = (0..self.drives.len())
            .filter(|&i| !self.drives[i].published())
            .collect();
        if let Some((&first, rest)) = measured.split_first() {
            for row in &mut self.rows {
                let Some(base) = row.cells[first].value.filter(|_| !row.cells[first].spec) else {
                    continue;
                };
                for &i in rest {
                    let c = &mut row.cells[i];
                    c.diff = c.value.and_then(|v| diff_text(v, base));
                }
            }
        }
        self.rows
    }
}

/// Throughput under skew: Unif against the spec, TwoZ/Zipf against Unif.
fn skew_kiops(r: &mut Rows, help: &str) {
    r.add("Rnd. Write [k IOPS]", "Spec", help, |d| {
        spec(d.spec.rand_write_kiops, 0)
    });
    r.add("", "Unif", "", |d| {
        let s = d.spec.rand_write_kiops;
        spread(
            num(
                d.rand_write_kiops.unif,
                0,
                |v| s.map(|s| colour::against_spec(v, s)),
                false,
            ),
            d.spread(&wkey(keys::RAND_WRITE_KIOPS, "Unif")),
            0,
            1.0,
        )
    });
    for (label, pick) in [
        (
            "TwoZ",
            (|w| w.twoz) as fn(&Skewed<Option<f64>>) -> Option<f64>,
        ),
        ("Zipf", |w| w.zipf),
    ] {
        r.add("", label, "", |d| {
            let u = d.rand_write_kiops.unif;
            spread(
                num(
                    pick(&d.rand_write_kiops),
                    0,
                    |v| u.and_then(|u| colour::skew_higher_is_better(v, u)),
                    false,
                ),
                d.spread(&wkey(keys::RAND_WRITE_KIOPS, label)),
                0,
                1.0,
            )
        });
    }
}

/// What a latency metric reads: spec, idle QD1 average, the figure keys of its load
/// average and P99.9, its colours.
struct Lat {
    spec_us: fn(&DriveFigures) -> Option<f64>,
    idle_us: fn(&DriveFigures) -> Option<f64>,
    tail: fn(&DriveFigures) -> Tail,
    keys: [&'static str; 3],
    avg_colour: fn(f64) -> Colour,
    p999_colour: fn(f64) -> Colour,
}

fn latency(r: &mut Rows, metric: &str, help: &str, l: Lat) {
    r.add(metric, "Spec", help, |d| spec((l.spec_us)(d), 0));
    if r.drives.iter().any(|d| (l.idle_us)(d).is_some()) {
        r.add("", "idle (QD1) Avg", "", |d| {
            spread(plain((l.idle_us)(d), 0), d.spread(l.keys[0]), 0, 1.0)
        });
    }
    r.add("", "under load Avg", "", |d| {
        spread(
            num((l.tail)(d).avg, 0, |v| Some((l.avg_colour)(v)), false),
            d.spread(l.keys[1]),
            0,
            1.0,
        )
    });
    r.add("", "P99.9", "", |d| {
        spread(
            num((l.tail)(d).p999, 0, |v| Some((l.p999_colour)(v)), false),
            d.spread(l.keys[2]),
            0,
            1.0,
        )
    });
}

/// Table 2 (performance) and Table 3 (internal characteristics) for these runs.
pub fn build_tables(results: &[&RunResult]) -> (Table, Table) {
    let drives: Vec<DriveFigures> = results.iter().map(|r| DriveFigures::from_run(r)).collect();
    tables(&drives)
}

/// Table 2 (performance) and Table 3 (internal characteristics) for these drives.
pub fn tables(drives: &[DriveFigures]) -> (Table, Table) {
    let mut n = 0;
    let columns: Vec<Column> = drives.iter().map(|d| column(d, &mut n)).collect();
    let mut sources: Vec<String> = Vec::new();
    for d in drives {
        if let crate::figures::Origin::Published { source } = &d.origin {
            if !sources.contains(source) {
                sources.push(source.clone());
            }
        }
    }
    let published_note = sources
        .iter()
        .map(|s| format!("Published figures (marked *): {s}."))
        .collect::<Vec<_>>();
    let diff_note = (n >= 2).then(|| {
        format!(
            "Differences: a measured value more than {:.0}% away from the first drive's ({}) shows how far, as +/-% or as a factor.",
            DIFF_THRESHOLD * 100.0,
            columns.iter().find(|c| !c.published).map_or("", |c| c.name.as_str())
        )
    });

    let mut r = Rows {
        drives,
        rows: Vec::new(),
    };
    r.add(
        "Capacity [GB]",
        "",
        "Capacity benchmarked, decimal GB.",
        |d| {
            let gb = d.capacity_gb;
            plain(gb, if gb.unwrap_or(0.0) >= 10.0 { 0 } else { 2 })
        },
    );
    r.add(
        "Seq. Read [MB/s]",
        "Spec",
        "512 KiB reads over the filled drive.",
        |d| spec(d.spec.seq_read_mb_s, 0),
    );
    r.add("", "Measured", "", |d| {
        spread(
            plain(d.seq_read_mb_s, 0),
            d.spread(keys::SEQ_READ_MB_S),
            0,
            1.0,
        )
    });
    r.add(
        "Seq. Write [MB/s]",
        "Spec",
        "512 KiB writes after the sequential init: 60-99% of each step; free pool while spare blocks lasted.",
        |d| spec(d.spec.seq_write_mb_s, 0),
    );
    r.add("", "Measured", "", |d| {
        spread(
            plain(d.seq_write_mb_s, 0),
            d.spread(keys::SEQ_WRITE_MB_S),
            0,
            1.0,
        )
    });
    r.add_if_any("", "free pool", "", |d| {
        spread(
            plain(d.seq_write_free_pool_mb_s, 0),
            d.spread(keys::SEQ_WRITE_FREE_POOL_MB_S),
            0,
            1.0,
        )
    });
    r.add(
        "Rnd. Read [k IOPS]",
        "Spec",
        "4 KiB uniform random reads over the whole drive.",
        |d| spec(d.spec.rand_read_kiops, 0),
    );
    r.add("", "Measured", "", |d| {
        spread(
            plain(d.rand_read_kiops, 0),
            d.spread(keys::RAND_READ_KIOPS),
            0,
            1.0,
        )
    });
    skew_kiops(
        &mut r,
        "4 KiB random writes with garbage collection in steady state: uniform, two-zone (80% of writes to 20% of the LBAs), Zipf 0.8. A GC that separates hot from cold data does better under skew.",
    );
    latency(
        &mut r,
        "Read Lat. [us]",
        "Idle: QD1 reads on an otherwise idle drive, as datasheets quote. Under load: an open-loop read probe while random writes run at 25% of the spec random-write rate.",
        Lat {
            spec_us: |d| d.spec.read_lat_us,
            idle_us: |d| d.read_idle_us,
            tail: |d| d.read_lat_us,
            keys: [
                keys::READ_LAT_IDLE_US,
                keys::READ_LAT_LOAD_AVG_US,
                keys::READ_LAT_LOAD_P999_US,
            ],
            avg_colour: colour::read_avg,
            p999_colour: colour::read_p999,
        },
    );
    latency(
        &mut r,
        "Write Lat. [us]",
        "An open-loop write probe under the same load. A high P99.9 means writes wait for garbage collection or a full write buffer.",
        Lat {
            spec_us: |d| d.spec.write_lat_us,
            idle_us: |d| d.write_idle_us,
            tail: |d| d.write_lat_us,
            keys: [
                keys::WRITE_LAT_IDLE_US,
                keys::WRITE_LAT_LOAD_AVG_US,
                keys::WRITE_LAT_LOAD_P999_US,
            ],
            avg_colour: colour::write_avg,
            p999_colour: colour::write_p999,
        },
    );
    let mut notes2 = vec![
        "Spec: datasheet values. Rnd. Write Unif is coloured against the spec (>= 95% green, >= 80% yellow, else red); TwoZ/Zipf against Unif (2% band).".to_string(),
        "Seq. Read and Write: 512 KiB requests at random aligned offsets, as the SSD-iq scripts do. Seq. Write Measured is 60-99% of each step, below spec once GC has to make room; free pool is the leading part of the steps in which the drive wrote only what it was given (WAF <= 1.5: the free blocks left by the sequential init, or freed by idle-time GC), as what the flash programmed per second, the phase the paper's sequential write measures (drives that report media writes only).".into(),
        "Latency under load: open-loop probes (5k reads and 5k writes per second, latency from each I/O's due time) beside Poisson random writes, 25% of the spec random-write rate in all; the medians over 60 s intervals. Read avg < 100 us green; P99.9 < 500 green, < 1000 yellow. Write avg < 20 us green; P99.9 < 20 green, < 100 yellow.".into(),
    ];
    if drives.iter().any(|d| !d.spread.is_empty()) {
        notes2.push("A cell with several samples (passes, before and after the write workload, repetitions) shows their median and [min-max].".into());
    }
    notes2.extend(published_note.iter().cloned());
    notes2.extend(diff_note.iter().cloned());
    let table2 = Table {
        title: "Table 2: SSD performance".into(),
        columns: columns.clone(),
        rows: r.finish(),
        notes: notes2,
    };

    let mut r = Rows {
        drives,
        rows: Vec::new(),
    };
    r.add(
        "Media write counters",
        "",
        "Whether the drive reports media (flash) writes: the OCP C0h log, or the emulated drive.",
        |d| match d.media_counters {
            Some(true) => Cell::text("yes"),
            Some(false) => Cell::text("no"),
            None => Cell::empty(),
        },
    );
    type Wa = fn(&DriveFigures) -> &Skewed<Option<f64>>;
    let was: [(&str, &str, Wa); 2] = [
        (
            "WA (measured)",
            "Write amplification: media writes / host writes from the drive's counters, the reference's mean over 60-99% of the workload.",
            |d| &d.wa_measured,
        ),
        (
            "WA (implied)",
            "Sequential write bandwidth / random write bandwidth: the WA the throughput loss implies, without counters.",
            |d| &d.wa_implied,
        ),
    ];
    for (kind, help, pick) in was {
        let metric = if kind.contains("measured") {
            keys::WAF_MEASURED
        } else {
            keys::WAF_IMPLIED
        };
        r.add(kind, "Unif", help, |d| {
            spread(
                plain(pick(d).unif, 2),
                d.spread(&wkey(metric, "Unif")),
                2,
                1.0,
            )
        });
        for (label, w) in [
            (
                "TwoZ",
                (|w| w.twoz) as fn(&Skewed<Option<f64>>) -> Option<f64>,
            ),
            ("Zipf", |w| w.zipf),
        ] {
            r.add("", label, "", |d| {
                let u = pick(d).unif;
                spread(
                    num(
                        w(pick(d)),
                        2,
                        |v| u.and_then(|u| colour::skew_lower_is_better(v, u)),
                        false,
                    ),
                    d.spread(&wkey(metric, label)),
                    2,
                    1.0,
                )
            });
        }
    }
    // An estimate above 100% means the drive wrote almost nothing extra (no GC seen, or a
    // cache in front): no OP figure follows from that, only that it is large.
    let pct = |v: Option<f64>| match v {
        Some(v) if v > 1.0 => Cell {
            value: Some(v * 100.0),
            ..Cell::text("> 100")
        },
        v => plain(v.map(|v| v * 100.0), 1),
    };
    r.add(
        "Estimated OP [%]",
        "1/(2 WA)",
        "Over-provisioning, (physical - logical) / logical, inferred from the uniform WA (SSD-iq §4.6).",
        |d| spread(pct(d.op_formula), d.spread(keys::OP_ESTIMATE), 1, 100.0),
    );
    r.add("", "greedy model", "", |d| {
        spread(
            pct(d.op_greedy),
            d.spread(keys::OP_ESTIMATE_GREEDY),
            1,
            100.0,
        )
    });
    for (i, label) in ["Unif", "TwoZ", "Zipf"].iter().enumerate() {
        r.add(
            if i == 0 {
                "Steady state [drive writes]"
            } else {
                ""
            },
            label,
            if i == 0 {
                "Drive writes of the workload until its throughput and WAF were steady (SNIA PTS rule on 30 rounds), or not steady within its drive writes."
            } else {
                ""
            },
            |d| {
                let runs = [
                    &d.steady_runs.unif,
                    &d.steady_runs.twoz,
                    &d.steady_runs.zipf,
                ][i];
                let first = [&d.steady.unif, &d.steady.twoz, &d.steady.zipf][i];
                steady_cell(runs, first.as_ref())
            },
        );
    }
    let mut notes3 = vec![
        "WA (measured) = media / host writes where the drive reports media writes; WA (implied) = sequential write bandwidth / random write bandwidth. TwoZ/Zipf coloured against Unif (green better, red worse).".to_string(),
        "Estimated OP is a lower bound: greedy GC is optimal for uniform writes, so a worse GC implies more OP than estimated; \"> 100\" means the uniform WA was too close to 1 to tell.".into(),
    ];
    if drives.iter().any(|d| d.file) {
        notes3.push("(file): a file target's WA and OP figures describe the filesystem stack (file system, its allocation and the device beneath), not a drive.".into());
    }
    if !sources.is_empty() {
        notes3.push("Published WA is in the measured row for drives with OCP counters, else in the implied row, as the paper derived it.".into());
    }
    notes3.extend(published_note);
    notes3.extend(diff_note);
    let table3 = Table {
        title: "Table 3: Additional SSD characteristics".into(),
        columns,
        rows: r.finish(),
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
