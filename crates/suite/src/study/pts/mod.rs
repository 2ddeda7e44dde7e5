//! SNIA Solid State Storage Performance Test Specification (PTS 2.0) tests as studies
//! (`pts-iops`, `pts-throughput`, `pts-latency`, `pts-wsat`, `pts-hir`, `pts-xsr`,
//! `pts-dirth`). What is known of the spec (docs/sources.md#snia-pts, without its normative text): purge,
//! workload-independent preconditioning (WIPC: twice the capacity in 128 KiB sequential
//! writes), workload-dependent preconditioning in rounds of the test's own stimulus until
//! steady state ([`steady`]), then the test's report.
//!
//! Invariants:
//! - A test period ("cell") lasts `Bench::pts_cell_s` of the target's clock: the spec's one
//!   minute by default, shorter with `--quick` or `--pts-cell`; the result says which.
//! - Every round records one `tracking` point (the steady-state variable); the last one
//!   carries the steady-state verdict (`ss_*` values). Reported figures are averages over the
//!   steady-state window (or the last five rounds when steady state was not reached).

mod dirth;
mod hir;
mod iops;
mod latency;
mod steady;
mod throughput;
mod wsat;
mod xsr;

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::units::format_size;
use ssdiq_workload::Op;

use super::bench::{values, Bench, Measured};
use crate::observe::Unit;
use crate::target::SuiteError;

pub use dirth::{conclude as conclude_dirth, run as run_dirth};
pub use hir::{conclude as conclude_hir, run as run_hir};
pub use iops::{conclude as conclude_iops, run as run_iops};
pub use latency::{conclude as conclude_latency, run as run_latency};
pub use throughput::{conclude as conclude_throughput, run as run_throughput};
pub use wsat::{conclude as conclude_wsat, run as run_wsat};
pub use xsr::{conclude as conclude_xsr, run as run_xsr};

pub const TRACKING: &str = "tracking";

/// The spec's test period.
pub const SPEC_CELL_S: f64 = 60.0;

/// Seconds of one PTS test period of this study run: `--pts-cell`, else the specification's
/// (a second with `--quick`).
pub(crate) fn cell_s(b: &Bench<'_>) -> f64 {
    b.pts_cell
        .unwrap_or(if b.quick { 1.0 } else { SPEC_CELL_S })
}

/// One test period's stimulus.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The report's series (e.g. `65/35`) and x (e.g. the block size in KiB).
    pub series: String,
    pub x: f64,
    pub x_label: String,
    /// Read percentage (100 = reads only).
    pub read_pct: u32,
    pub random: bool,
    pub bs: u64,
    pub threads: u32,
    pub qd: u32,
}

impl Cell {
    /// A cell of a mix x block-size grid: series = the R/W mix, x = the block size.
    pub fn grid(read_pct: u32, random: bool, bs: u64, threads: u32, qd: u32) -> Cell {
        Cell {
            series: mix_label(read_pct),
            x: kib(bs),
            x_label: size_label(bs),
            read_pct,
            random,
            bs,
            threads,
            qd,
        }
    }

    pub fn mix(&self) -> String {
        match (self.read_pct, self.random) {
            (100, true) => "randread".into(),
            (0, true) => "randwrite".into(),
            (r, true) => format!("randrw:{r}"),
            (100, false) => "read".into(),
            (0, false) => "write".into(),
            (r, false) => format!("rw:{r}"),
        }
    }

    pub fn name(&self) -> String {
        format!("{} {}", self.series, self.x_label)
    }
}

/// `R/W` label of a read percentage: `65/35`.
pub fn mix_label(read_pct: u32) -> String {
    format!("{read_pct}/{}", 100 - read_pct)
}

/// What one cell measured: totals over reads and writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct CellResult {
    pub iops: f64,
    pub mb_s: f64,
    pub avg_us: f64,
    pub max_us: f64,
    /// The slower of the read and write 99.999th percentiles.
    pub p99999_us: f64,
}

fn summarize(m: &Measured) -> CellResult {
    let s = m.seconds().max(1e-12);
    let mut r = CellResult::default();
    let mut ios = 0u64;
    let mut lat_sum = 0f64;
    for op in [Op::Read, Op::Write] {
        let Some(o) = m.stats.ops.get(&op).filter(|o| o.ios > 0) else {
            continue;
        };
        ios += o.ios;
        r.mb_s += o.bytes as f64 / 1e6 / s;
        lat_sum += o.lat_sum_ns as f64;
        r.max_us = r.max_us.max(o.lat_max_ns as f64 / 1e3);
        r.p99999_us = r.p99999_us.max(o.quantile(0.99999) as f64 / 1e3);
    }
    r.iops = ios as f64 / s;
    if ios > 0 {
        r.avg_us = lat_sum / ios as f64 / 1e3;
    }
    r
}

/// Runs one cell for `secs` on the first `range` bytes; `None` when stopped.
pub fn run_cell(
    b: &mut Bench<'_>,
    cell: &Cell,
    secs: f64,
) -> Result<Option<CellResult>, SuiteError> {
    let pattern = if cell.random { "uniform" } else { "seq" };
    let mut j = b.job(&cell.mix(), pattern, cell.bs, cell.qd);
    j.threads = cell.threads;
    j.bound.bytes = None;
    j.bound.time_ns = Some((secs * 1e9) as u64);
    let m = b.run(j)?;
    Ok((!b.stopped()).then(|| summarize(&m)))
}

/// Purge (the target's reset) and WIPC; false when stopped.
pub fn purge_and_precondition(b: &mut Bench<'_>) -> Result<bool, SuiteError> {
    let total = 2 * b.capacity();
    b.begin(
        "purge, then WIPC: twice the capacity in 128 KiB sequential writes",
        Unit::Bytes,
        total as f64,
    );
    b.reset()?;
    let mut j = b.job("write", "seq", 128 * 1024, 32);
    j.bound.bytes = Some(2 * j.range_bytes);
    b.run(j)?;
    Ok(!b.stopped())
}

/// Every round's cell results, and the steady-state check after the last round.
pub type Rounds = (Vec<Vec<CellResult>>, Option<steady::Steady>);

/// Rounds of `cells` until the tracking variable (`track(cell results of a round)`) is
/// steady, at most [`steady::MAX_ROUNDS`]. Records a tracking point per round; returns every
/// round's results and the final check, `None` when stopped.
pub fn rounds(
    b: &mut Bench<'_>,
    cells: &[Cell],
    track_name: &str,
    track: &dyn Fn(&[CellResult]) -> f64,
) -> Result<Option<Rounds>, SuiteError> {
    let secs = cell_s(b);
    let mut all: Vec<Vec<CellResult>> = Vec::new();
    let mut ys = Vec::new();
    for round in 1..=steady::MAX_ROUNDS {
        b.begin(
            format!("round {round}: {} test periods", cells.len()),
            Unit::Seconds,
            secs * cells.len() as f64,
        );
        let mut this = Vec::with_capacity(cells.len());
        for c in cells {
            match run_cell(b, c, secs)? {
                Some(r) => this.push(r),
                None => return Ok(None),
            }
        }
        let y = track(&this);
        ys.push(y);
        all.push(this);
        let check = steady::check(&ys);
        let done = check.is_some_and(|c| c.reached) || round == steady::MAX_ROUNDS;
        let mut v = values(&[(track_name, Some(y))]);
        if done {
            let c = check.expect("at least five rounds by the last");
            v.extend(values(&[
                ("ss_reached", Some(f64::from(u8::from(c.reached)))),
                ("ss_first_round", Some(c.first as f64)),
                ("ss_avg", Some(c.avg)),
                ("ss_range_pct", Some(c.range * 100.0)),
                ("ss_excursion_pct", Some(c.excursion * 100.0)),
                ("cell_s", Some(secs)),
            ]));
        }
        b.point(TRACKING, round as f64, format!("round {round}"), v);
        if done {
            return Ok(Some((all, check)));
        }
    }
    unreachable!("the last round ends the loop")
}

/// A whole steady-state test: purge, WIPC, rounds of `cells` until the `metric` of the cell
/// `tracked` picks is steady, then each cell's window averages as points.
pub fn steady_state_test(
    b: &mut Bench<'_>,
    cells: &[Cell],
    tracked: &dyn Fn(&Cell) -> bool,
    track_name: &str,
    metric: fn(&CellResult) -> f64,
) -> Result<(), SuiteError> {
    b.plan(1 + steady::MAX_ROUNDS + cells.len());
    if !purge_and_precondition(b)? {
        return Ok(());
    }
    let track = cells
        .iter()
        .position(tracked)
        .expect("the tracked stimulus is one of the cells");
    let Some((all, check)) = rounds(b, cells, track_name, &|r| metric(&r[track]))? else {
        return Ok(());
    };
    record_window(b, cells, &all, check);
    Ok(())
}

/// Records each cell's averages over the window's rounds as a point of its own.
pub fn record_window(
    b: &mut Bench<'_>,
    cells: &[Cell],
    all: &[Vec<CellResult>],
    check: Option<steady::Steady>,
) {
    let first = check.map_or(1, |c| c.first);
    let window = &all[first - 1..];
    for (i, c) in cells.iter().enumerate() {
        let n = window.len() as f64;
        let avg = |f: &dyn Fn(&CellResult) -> f64| window.iter().map(|r| f(&r[i])).sum::<f64>() / n;
        let max =
            |f: &dyn Fn(&CellResult) -> f64| window.iter().map(|r| f(&r[i])).fold(0.0, f64::max);
        let v = values(&[
            ("iops", Some(avg(&|r| r.iops))),
            ("mb_s", Some(avg(&|r| r.mb_s))),
            ("avg_us", Some(avg(&|r| r.avg_us))),
            ("max_us", Some(max(&|r| r.max_us))),
            ("p99999_us", Some(max(&|r| r.p99999_us))),
        ]);
        b.derived_point(c.series.clone(), c.x, c.x_label.clone(), v, None);
    }
}

/// The steady-state verdict of the last tracking point, in words and numbers.
pub fn conclude_steady(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let Some(last) = points
        .iter()
        .filter(|p| p.series == TRACKING)
        .rfind(|p| p.values.contains_key("ss_reached"))
    else {
        return (result, findings);
    };
    let get = |k: &str| last.values.get(k).copied().unwrap_or(f64::NAN);
    let reached = get("ss_reached") > 0.5;
    result.insert("ss_reached".into(), get("ss_reached"));
    result.insert("ss_rounds".into(), last.x);
    findings.push(format!(
        "steady state {} after {:.0} rounds (window rounds {:.0}-{:.0}: range {:.1}% of the average, max 20%; excursion {:.1}%, max 10%); test periods of {} s{}",
        if reached { "reached" } else { "NOT reached" },
        last.x,
        get("ss_first_round"),
        last.x,
        get("ss_range_pct"),
        get("ss_excursion_pct"),
        get("cell_s"),
        if get("cell_s") < SPEC_CELL_S {
            " (the spec's: 60 s)"
        } else {
            ""
        }
    ));
    (result, findings)
}

/// Consecutive intervals of a job's time series, merged into at most `max` periods.
pub struct Period {
    pub end_s: f64,
    pub seconds: f64,
    pub bytes: u64,
    pub ios: u64,
}

pub fn periods(m: &Measured, stream: &str, max: usize) -> Vec<Period> {
    let interval = m.stats.series_interval_ns as f64 / 1e9;
    let elapsed = m.seconds();
    let rows: Vec<_> = m
        .stats
        .series
        .iter()
        .filter(|s| s.stream == stream)
        .collect();
    let group = rows.len().div_ceil(max.max(1)).max(1);
    rows.chunks(group)
        .filter_map(|c| {
            let start = c.first()?.second as f64 * interval;
            let end = ((c.last()?.second + 1) as f64 * interval).min(elapsed);
            (end > start).then(|| Period {
                end_s: end,
                seconds: end - start,
                bytes: c.iter().map(|s| s.bytes).sum(),
                ios: c.iter().map(|s| s.ios).sum(),
            })
        })
        .collect()
}

pub fn kib(bs: u64) -> f64 {
    bs as f64 / 1024.0
}

pub fn size_label(bs: u64) -> String {
    format_size(bs)
}
