//! Tables 2 and 3 of the SSD-iq paper, one column per drive: spec beside measured, with the
//! paper's colours, published drives beside measured ones, and the difference of every
//! further measured drive from the first. Renderers (Markdown, terminal, HTML) draw these
//! tables; they do not compute anything themselves.

use crate::colour::{self, Colour};
use crate::figures::{DriveFigures, Skewed};
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

/// The row's decimals, or more for a small value, so that it keeps two significant digits
/// (a drive's 1.27 kIOPS of Zipf random writes read "1" in a whole-number row).
fn shown_decimals(v: f64, decimals: usize) -> usize {
    let a = v.abs();
    if a == 0.0 || a >= 10.0 {
        decimals
    } else if a >= 1.0 {
        decimals.max(1)
    } else {
        decimals.max(2)
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
            text: {
                let d = shown_decimals(v, decimals);
                format!("{v:.d$}")
            },
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
    if let (Some((lo, hi)), Some(v)) = (s, c.value) {
        let d = shown_decimals(v, decimals);
        let (lo, hi) = (format!("{:.d$}", lo * scale), format!("{:.d$}", hi * scale));
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

/// A measured figure shown whole, with its samples' range.
fn measured(d: &DriveFigures, v: Option<f64>, key: &str) -> Cell {
    spread(plain(v, 0), d.spread(key), 0, 1.0)
}

/// Random-write kIOPS of a workload: uniform against the spec, TwoZ/Zipf against uniform.
fn write_kiops(d: &DriveFigures, label: &str) -> Cell {
    let w = &d.rand_write_kiops;
    let cell = match label {
        "Unif" => {
            let s = d.spec.rand_write_kiops;
            num(w.unif, 0, |v| s.map(|s| colour::against_spec(v, s)), false)
        }
        _ => {
            let v = *w.get(label);
            let s = d.spec.rand_write_kiops;
            num(v, 0, |v| colour::skewed_kiops(v, w.unif, s), false)
        }
    };
    spread(cell, d.spread(&wkey(keys::RAND_WRITE_KIOPS, label)), 0, 1.0)
}

/// A latency under load (average or P99.9) in its colour class.
fn latency(d: &DriveFigures, v: Option<f64>, key: &str, class: fn(f64) -> Colour) -> Cell {
    spread(num(v, 0, |v| Some(class(v)), false), d.spread(key), 0, 1.0)
}

/// WA of a workload, measured (`metric` = the measured key) or implied: TwoZ/Zipf coloured
/// against uniform.
fn wa(d: &DriveFigures, metric: &str, w: &Skewed<Option<f64>>, label: &str) -> Cell {
    if metric == keys::WAF_IMPLIED && d.implied_not_meaningful.is_some() && w.get(label).is_some() {
        // No value: no colour, and nothing for a comparison to divide.
        return Cell::text("n/m");
    }
    let cell = match label {
        "Unif" => plain(w.unif, 2),
        _ => {
            let v = *w.get(label);
            num(v, 2, |v| colour::skewed_wa(v, w.unif), false)
        }
    };
    spread(cell, d.spread(&wkey(metric, label)), 2, 1.0)
}

/// An OP estimate in percent. Above 100% the drive wrote almost nothing extra (no GC seen, or
/// a cache in front): no OP figure follows from that, only that it is large.
fn op_percent(d: &DriveFigures, v: Option<f64>, key: &str) -> Cell {
    let cell = match v {
        Some(v) if v > 1.0 => Cell {
            value: Some(v * 100.0),
            ..Cell::text("> 100")
        },
        v => plain(v.map(|v| v * 100.0), 1),
    };
    spread(cell, d.spread(key), 1, 100.0)
}

/// Steady state of the workload `i` (uniform, two-zone, Zipf).
fn steady(d: &DriveFigures, i: usize) -> Cell {
    let runs = [
        &d.steady_runs.unif,
        &d.steady_runs.twoz,
        &d.steady_runs.zipf,
    ][i];
    let first = [&d.steady.unif, &d.steady.twoz, &d.steady.zipf][i];
    steady_cell(runs, first.as_ref())
}

/// One row of a table: its names, its help (first row of a metric only) and how each drive's
/// cell is read.
struct RowSpec {
    metric: &'static str,
    variant: &'static str,
    help: &'static str,
    cell: fn(&DriveFigures) -> Cell,
    /// Left out when no drive has a value (rows new in the schema, idle latencies, counters
    /// only some drives have), so older results read as before.
    only_if_any: bool,
}

const fn row(
    metric: &'static str,
    variant: &'static str,
    help: &'static str,
    cell: fn(&DriveFigures) -> Cell,
) -> RowSpec {
    RowSpec {
        metric,
        variant,
        help,
        cell,
        only_if_any: false,
    }
}

const fn row_if_any(variant: &'static str, cell: fn(&DriveFigures) -> Cell) -> RowSpec {
    RowSpec {
        metric: "",
        variant,
        help: "",
        cell,
        only_if_any: true,
    }
}

/// Table 2: SSD performance.
const TABLE2: &[RowSpec] = &[
    row("Capacity [GB]", "", "Capacity benchmarked, decimal GB; a scaled emulated drive says which full-size drive it stands for.", |d| {
        let gb = d.capacity_gb;
        let mut c = plain(gb, if gb.unwrap_or(0.0) >= 10.0 { 0 } else { 2 });
        if let (Some(full), Some(_)) = (d.full_capacity_gb, c.value) {
            c.text = format!("{} (scaled; stands for {full:.0})", c.text);
        }
        c
    }),
    row("Seq. Read [MB/s]", "Spec", "512 KiB reads over the filled drive.", |d| {
        spec(d.spec.seq_read_mb_s, 0)
    }),
    row("", "Measured", "", |d| measured(d, d.seq_read_mb_s, keys::SEQ_READ_MB_S)),
    row(
        "Seq. Write [MB/s]",
        "Spec",
        "512 KiB writes after the sequential init: 60-99% of each step; free pool while spare blocks lasted.",
        |d| spec(d.spec.seq_write_mb_s, 0),
    ),
    row("", "Measured", "", |d| measured(d, d.seq_write_mb_s, keys::SEQ_WRITE_MB_S)),
    row_if_any("free pool", |d| {
        measured(d, d.seq_write_free_pool_mb_s, keys::SEQ_WRITE_FREE_POOL_MB_S)
    }),
    row(
        "Rnd. Read [k IOPS]",
        "Spec",
        "4 KiB uniform random reads over the whole drive.",
        |d| spec(d.spec.rand_read_kiops, 0),
    ),
    row("", "Measured", "", |d| measured(d, d.rand_read_kiops, keys::RAND_READ_KIOPS)),
    row(
        "Rnd. Write [k IOPS]",
        "Spec",
        "4 KiB random writes with garbage collection in steady state: uniform, two-zone (80% of writes to 20% of the LBAs), Zipf 0.8. A GC that separates hot from cold data does better under skew.",
        |d| spec(d.spec.rand_write_kiops, 0),
    ),
    row("", "Unif", "", |d| write_kiops(d, "Unif")),
    row("", "TwoZ", "", |d| write_kiops(d, "TwoZ")),
    row("", "Zipf", "", |d| write_kiops(d, "Zipf")),
    row(
        "Read Lat. [us]",
        "Spec",
        "Idle: QD1 reads on an otherwise idle drive, as datasheets quote. Under load: an open-loop read probe while random writes run at 25% of the spec random-write rate.",
        |d| spec(d.spec.read_lat_us, 0),
    ),
    row_if_any("idle (QD1) Avg", |d| measured(d, d.read_idle_us, keys::READ_LAT_IDLE_US)),
    row("", "under load Avg", "", |d| {
        latency(d, d.read_lat_us.avg, keys::READ_LAT_LOAD_AVG_US, colour::read_avg)
    }),
    row("", "P99.9", "", |d| {
        latency(d, d.read_lat_us.p999, keys::READ_LAT_LOAD_P999_US, colour::read_p999)
    }),
    row(
        "Write Lat. [us]",
        "Spec",
        "An open-loop write probe under the same load. A high P99.9 means writes wait for garbage collection or a full write buffer.",
        |d| spec(d.spec.write_lat_us, 0),
    ),
    row_if_any("idle (QD1) Avg", |d| measured(d, d.write_idle_us, keys::WRITE_LAT_IDLE_US)),
    row("", "under load Avg", "", |d| {
        latency(d, d.write_lat_us.avg, keys::WRITE_LAT_LOAD_AVG_US, colour::write_avg)
    }),
    row("", "P99.9", "", |d| {
        latency(d, d.write_lat_us.p999, keys::WRITE_LAT_LOAD_P999_US, colour::write_p999)
    }),
];

/// Table 3: additional SSD characteristics.
const TABLE3: &[RowSpec] = &[
    row(
        "Media write counters",
        "",
        "Whether the drive reports media (flash) writes: the OCP C0h log, or the emulated drive.",
        |d| match d.media_counters {
            Some(true) => Cell::text("yes"),
            Some(false) => Cell::text("no"),
            None => Cell::empty(),
        },
    ),
    row(
        "WA (measured)",
        "Unif",
        "Write amplification: media writes / host writes from the drive's counters, the reference's mean over 60-99% of the workload.",
        |d| wa(d, keys::WAF_MEASURED, &d.wa_measured, "Unif"),
    ),
    row("", "TwoZ", "", |d| wa(d, keys::WAF_MEASURED, &d.wa_measured, "TwoZ")),
    row("", "Zipf", "", |d| wa(d, keys::WAF_MEASURED, &d.wa_measured, "Zipf")),
    row(
        "WA (implied)",
        "Unif",
        "Sequential write bandwidth / random write bandwidth: the WA the throughput loss implies, without counters.",
        |d| wa(d, keys::WAF_IMPLIED, &d.wa_implied, "Unif"),
    ),
    row("", "TwoZ", "", |d| wa(d, keys::WAF_IMPLIED, &d.wa_implied, "TwoZ")),
    row("", "Zipf", "", |d| wa(d, keys::WAF_IMPLIED, &d.wa_implied, "Zipf")),
    row(
        "Estimated OP [%]",
        "1/(2 WA)",
        "Over-provisioning, (physical - logical) / logical, inferred from the uniform WA (SSD-iq §4.6).",
        |d| op_percent(d, d.op_formula, keys::OP_ESTIMATE),
    ),
    row("", "greedy model", "", |d| {
        op_percent(d, d.op_greedy, keys::OP_ESTIMATE_GREEDY)
    }),
    row(
        "Steady state [drive writes]",
        "Unif",
        "Drive writes of the workload until its throughput and WAF were steady (SNIA PTS rule on 30 rounds), or not steady within its drive writes.",
        |d| steady(d, 0),
    ),
    row("", "TwoZ", "", |d| steady(d, 1)),
    row("", "Zipf", "", |d| steady(d, 2)),
];

/// The rows of `specs` for these drives, measured cells that differ from the first measured
/// drive's annotated with how far.
fn rows(drives: &[DriveFigures], specs: &[RowSpec]) -> Vec<Row> {
    let mut rows: Vec<Row> = specs
        .iter()
        .filter_map(|r| {
            let cells: Vec<Cell> = drives.iter().map(r.cell).collect();
            (!r.only_if_any || cells.iter().any(|c| c.value.is_some())).then(|| Row {
                metric: r.metric.into(),
                variant: r.variant.into(),
                help: r.help.into(),
                cells,
            })
        })
        .collect();
    let measured: Vec<usize> = (0..drives.len())
        .filter(|&i| !drives[i].published())
        .collect();
    if let Some((&first, rest)) = measured.split_first() {
        for row in &mut rows {
            let Some(base) = row.cells[first].value.filter(|_| !row.cells[first].spec) else {
                continue;
            };
            for &i in rest {
                let c = &mut row.cells[i];
                c.diff = c.value.and_then(|v| diff_text(v, base));
            }
        }
    }
    rows
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

    let mut notes2 = vec![
        "Spec: datasheet values. Rnd. Write Unif is coloured against the spec (>= 95% green, >= 80% yellow, else red); TwoZ/Zipf against Unif (2% band), only where Unif has a spec to be graded by, and never green below 80% of the spec (red then).".to_string(),
        "Seq. Read and Write: 512 KiB requests at random aligned offsets, as the SSD-iq scripts do. Seq. Write Measured is 60-99% of each step, below spec once GC has to make room; free pool is the leading part of the steps in which the drive wrote only what it was given (WAF <= 1.5: the free blocks left by the sequential init, or freed by idle-time GC), as what the flash programmed per second, the phase the paper's sequential write measures (drives that report media writes only).".into(),
        "Latency under load: open-loop probes (10k I/Os per second, half reads, half writes, latency from each I/O's due time; a smaller load is probed at its whole rate) beside Poisson random writes, 25% of the spec random-write rate in all (of the measured rate where the drive has no spec; the run's facts give its numbers); the medians over 60 s intervals. Read avg < 100 us green; P99.9 < 500 green, < 1000 yellow. Write avg < 20 us green, < 100 yellow (ours); P99.9 < 20 green, < 100 yellow.".into(),
    ];
    if drives.iter().any(|d| !d.spread.is_empty()) {
        notes2.push("A cell with several samples (passes, before and after the write workload, repetitions) shows their median and [min-max].".into());
    }
    notes2.extend(published_note.iter().cloned());
    notes2.extend(diff_note.iter().cloned());
    let table2 = Table {
        title: "Table 2: SSD performance".into(),
        columns: columns.clone(),
        rows: rows(drives, TABLE2),
        notes: notes2,
    };

    let mut notes3 = vec![
        "WA (measured) = media / host writes where the drive reports media writes; WA (implied) = sequential write bandwidth / random write bandwidth. TwoZ/Zipf coloured against Unif (green better, red worse), only where Unif has a meaningful WA, and never green above 6.5 (worse than the uniform WA of every drive in the paper's Table 3: red then).".to_string(),
        "Estimated OP is a lower bound: greedy GC is optimal for uniform writes, so a worse GC implies more OP than estimated; \"> 100\" means the uniform WA was too close to 1 to tell.".into(),
    ];
    for d in drives {
        if let Some(why) = &d.implied_not_meaningful {
            notes3.push(format!("n/m ({}): implied WA {why}.", d.name));
        }
    }
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
        rows: rows(drives, TABLE3),
        notes: notes3,
    };
    (table2, table3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::tests::sample;

    #[test]
    fn a_small_value_keeps_two_significant_digits() {
        let text = |v: f64, d: usize| plain(Some(v), d).text;
        // emu:nv2's Zipf random writes in a whole-number kIOPS row.
        assert_eq!(text(1.27, 0), "1.3");
        assert_eq!(text(0.42, 0), "0.42");
        assert_eq!(text(71.4, 0), "71");
        assert_eq!(text(4.567, 2), "4.57");
        assert_eq!(text(0.0, 0), "0");
        let c = spread(plain(Some(1.27), 0), Some((1.21, 1.3)), 0, 1.0);
        assert_eq!(c.text, "1.3 [1.2-1.3]");
    }

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
