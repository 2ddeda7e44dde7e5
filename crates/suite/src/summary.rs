//! A step's outcome -> the step of the result model.
//!
//! Invariants:
//! - `ops` and `probes` are totals over the whole step (every job of it).
//! - `value` is the reference's number ([`crate::reference`]) over the step's whole intervals;
//!   a step too short for the window says so in `value.note` and takes the whole step.
//! - `waf_measured` is the device's media / host bytes over the value's window (from its first
//!   interval to its last, those the filter dropped included: counters are not filtered by
//!   throughput); where the counters did not move there, over the whole step.
//! - `seconds` has one row per interval and stream; rows shorter than an interval are marked
//!   partial. `series` has one point per detector round.
//! - Latency under load: `probe_intervals` are the probe's per-interval summaries; its value
//!   is the median over the whole intervals (over all of them if none is whole).

use std::collections::BTreeMap;

use ssdiq_engine::OpStats;
use ssdiq_schema::{
    Convergence, FreePool, ProbeInterval, ProbeValue, SecondPoint, SeriesPoint, StepResult,
    StepValue,
};
use ssdiq_workload::Op;

use crate::convert::op_summary;
use crate::intervals::{self, Interval};
use crate::plan::{Role, Step};
use crate::reference;
use crate::steady;
use crate::step_outcome::{StepOutcome, StepRun};

/// Where a step ran, for the result.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepMeta {
    pub repetition: u32,
    pub pass: u32,
    /// The step's reference bound in bytes (drive writes x capacity x the drive-write scale),
    /// for a workload bounded by drive writes.
    pub reference_bytes: Option<u64>,
}

fn merge<'a>(maps: impl Iterator<Item = &'a BTreeMap<Op, OpStats>>) -> BTreeMap<Op, OpStats> {
    let mut m: BTreeMap<Op, OpStats> = BTreeMap::new();
    for map in maps {
        for (op, s) in map {
            m.entry(*op).or_default().merge(s);
        }
    }
    m
}

fn named(m: &BTreeMap<Op, OpStats>, elapsed: u64) -> BTreeMap<String, ssdiq_schema::OpSummary> {
    m.iter()
        .map(|(op, s)| (op.name().to_string(), op_summary(s, elapsed)))
        .collect()
}

/// Fewest I/Os a row of the reference rule should hold: below it a short interval of large
/// requests at deep queues holds 0, 1 or 2 completions and the moving-mean filter drops most
/// rows as noise.
pub const MIN_IOS_PER_ROW: f64 = 20.0;

/// How many consecutive whole intervals make one row: 1 unless the intervals hold fewer than
/// [`MIN_IOS_PER_ROW`] I/Os on average (never fewer than 10 rows).
pub fn merge_factor(ios: u64, whole: usize) -> usize {
    if whole == 0 {
        return 1;
    }
    let mean = ios as f64 / whole as f64;
    if mean >= MIN_IOS_PER_ROW {
        return 1;
    }
    let k = if mean > 0.0 {
        (MIN_IOS_PER_ROW / mean).ceil() as usize
    } else {
        whole
    };
    k.clamp(1, (whole / 10).max(1))
}

/// Consecutive groups of `k` from `idx` (an incomplete last group is left out when k > 1).
pub fn groups(idx: &[usize], k: usize) -> Vec<Vec<usize>> {
    idx.chunks(k.max(1))
        .filter(|c| k <= 1 || c.len() == k)
        .map(|c| c.to_vec())
        .collect()
}

/// The reference window over a step's rows, and each row's intervals (indices).
pub type RowWindow = (reference::Window, Vec<Vec<usize>>);

/// The reference value over whole intervals (merged into rows when too thin), with the rows
/// and the window over them.
pub fn value_of(ivs: &[Interval]) -> (StepValue, Option<RowWindow>) {
    let whole_idx: Vec<usize> = (0..ivs.len()).filter(|&i| !ivs[i].partial).collect();
    let k = merge_factor(whole_idx.iter().map(|&i| ivs[i].ios).sum(), whole_idx.len());
    let rows = groups(&whole_idx, k);
    let sum = |g: &[usize], f: fn(&Interval) -> u64| g.iter().map(|&i| f(&ivs[i])).sum::<u64>();
    let secs = |g: &[usize]| sum(g, |i| i.span_ns).max(1) as f64 / 1e9;
    let mb: Vec<f64> = rows
        .iter()
        .map(|g| sum(g, |i| i.bytes) as f64 / 1e6 / secs(g))
        .collect();
    let mut v = StepValue {
        intervals: whole_idx.len() as u32,
        merged: (k > 1).then_some(k as u32),
        ..Default::default()
    };
    match reference::window(&mb) {
        Some(w) => {
            v.mb_s = Some(w.mean);
            v.iops = Some(
                w.used
                    .iter()
                    .map(|&r| sum(&rows[r], |i| i.ios) as f64 / secs(&rows[r]))
                    .sum::<f64>()
                    / w.used.len() as f64,
            );
            v.dropped = w.dropped as u32;
            v.used = w.used.len() as u32;
            let first = &ivs[rows[w.used[0]][0]];
            let last_row = &rows[*w.used.last().expect("non-empty")];
            let last = &ivs[*last_row.last().expect("non-empty")];
            v.window_s = Some([
                first.t_ns as f64 / 1e9,
                (last.t_ns + last.span_ns) as f64 / 1e9,
            ]);
            (v, Some((w, rows)))
        }
        None => {
            let bytes: u64 = ivs.iter().map(|i| i.bytes).sum();
            let ios: u64 = ivs.iter().map(|i| i.ios).sum();
            let ns: u64 = ivs.iter().map(|i| i.span_ns).sum();
            if ns > 0 {
                v.mb_s = Some(bytes as f64 / 1e6 / (ns as f64 / 1e9));
                v.iops = Some(ios as f64 / (ns as f64 / 1e9));
            }
            v.note = Some(format!(
                "{} whole interval(s), {} row(s): none left in the reference window after the filter; over the whole step",
                whole_idx.len(),
                rows.len()
            ));
            (v, None)
        }
    }
}

/// Media / host bytes the device counted from the window's first interval to its last.
fn window_waf(ivs: &[Interval], w: &reference::Window, rows: &[Vec<usize>]) -> Option<f64> {
    let first = *rows.get(*w.used.first()?)?.first()?;
    let last = *rows.get(*w.used.last()?)?.last()?;
    intervals::counted_waf(&ivs[first..=last])
}

/// The share of the step's host bytes still in the drive's buffer at its end (negative:
/// drained), when worth saying and the drive tells.
fn buffer_lag(o: &StepOutcome) -> Option<f64> {
    let (mut host, mut change) = (0u64, 0i64);
    for s in &o.segments {
        host += s.stats.counters.host_bytes()?;
        change += s.stats.counters.buffered_change()?;
    }
    ssdiq_engine::buffer_lag(change, host)
}

/// Media / host bytes over the whole step from the executors' before/after counters.
fn whole_step_waf(o: &StepOutcome) -> Option<f64> {
    let (mut host, mut media) = (0u64, 0u64);
    for s in &o.segments {
        host += s.stats.counters.host_bytes()?;
        media += s.stats.counters.media_bytes()?;
    }
    crate::derived::measured_waf(host as u128, media as u128)
}

fn seconds_of(o: &StepOutcome) -> Vec<SecondPoint> {
    let mut out = Vec::new();
    for seg in &o.segments {
        let iv = seg.stats.series_interval_ns.max(1);
        for p in &seg.stats.series {
            let span = seg
                .stats
                .elapsed_ns
                .saturating_sub(p.second * iv)
                .clamp(1, iv);
            out.push(SecondPoint {
                t_s: (seg.offset_ns + p.second * iv) as f64 / 1e9,
                stream: p.stream.clone(),
                ios: p.ios,
                bytes: p.bytes,
                iops: p.iops,
                mb_s: p.mb_s,
                lat_mean_ns: p.lat_mean_ns,
                lat_p99_ns: p.lat_p99_ns,
                span_s: Some(span as f64 / 1e9),
                partial: span < iv,
            });
        }
    }
    out
}

fn probe_intervals(o: &StepOutcome, interval_ns: u64) -> Vec<ProbeInterval> {
    let mut out: Vec<ProbeInterval> = Vec::new();
    for seg in &o.segments {
        let elapsed = seg.stats.elapsed_ns;
        for pi in &seg.stats.probe_intervals {
            let start = pi.index * interval_ns;
            let span = elapsed.saturating_sub(start).clamp(1, interval_ns);
            let idx = pi.index as u32;
            let entry = match out.iter_mut().find(|x| x.index == idx) {
                Some(e) => e,
                None => {
                    out.push(ProbeInterval {
                        index: idx,
                        t_s: (seg.offset_ns + start) as f64 / 1e9,
                        span_s: span as f64 / 1e9,
                        partial: span < interval_ns,
                        ops: BTreeMap::new(),
                    });
                    out.last_mut().expect("pushed")
                }
            };
            let mut s = op_summary(&pi.stats, span);
            s.cdf.clear();
            entry.ops.insert(pi.op.name().to_string(), s);
        }
    }
    out.sort_by_key(|p| p.index);
    out
}

/// Medians over the whole probe intervals (all of them when none is whole).
pub fn probe_medians(ivs: &[ProbeInterval]) -> BTreeMap<String, ProbeValue> {
    let whole: Vec<&ProbeInterval> = ivs.iter().filter(|p| !p.partial).collect();
    let pick: Vec<&ProbeInterval> = if whole.is_empty() {
        ivs.iter().collect()
    } else {
        whole
    };
    let mut ops: Vec<&String> = pick.iter().flat_map(|p| p.ops.keys()).collect();
    ops.sort();
    ops.dedup();
    ops.into_iter()
        .filter_map(|op| {
            let ms: Vec<&ssdiq_schema::OpSummary> =
                pick.iter().filter_map(|p| p.ops.get(op)).collect();
            let mean = reference::median(&ms.iter().map(|o| o.lat_ns.mean).collect::<Vec<_>>())?;
            let p999 =
                reference::median(&ms.iter().map(|o| o.lat_ns.p99_9 as f64).collect::<Vec<_>>())?;
            Some((
                op.clone(),
                ProbeValue {
                    mean_ns: mean,
                    p99_9_ns: p999,
                    intervals: ms.len() as u32,
                },
            ))
        })
        .collect()
}

/// Above this round WAF, GC is copying data: the free pool is spent.
const FREE_POOL_WAF_LIMIT: f64 = 1.5;
/// Below this share of the phase's host bytes programmed, the drive's write buffer took the
/// phase (a step too short for the flash to show): no free-pool figure.
const FREE_POOL_MIN_PROGRAMMED: f64 = 0.9;

/// The leading rounds in which the drive wrote what it was given and no more: a write step
/// on a drive with free blocks (after a sanitize and the init, or after idle-time GC) runs at
/// the program bandwidth until GC must copy. `None` without per-round WAF or such rounds.
fn free_pool(r: &steady::Rounds) -> Option<FreePool> {
    r.waf.first()?.as_ref()?;
    let n = r
        .waf
        .iter()
        .position(|w| w.is_some_and(|w| w > FREE_POOL_WAF_LIMIT))
        .unwrap_or(r.waf.len());
    if n == 0 {
        return None;
    }
    // A step the drive's write buffer absorbed (a short one: --quick) programmed less than it
    // took: its speed is the buffer's, not the flash's free pool's.
    let (mut bytes, mut programmed) = (0f64, 0f64);
    for i in 0..n {
        let b = (r.end_written[i] - if i == 0 { 0 } else { r.end_written[i - 1] }) as f64;
        bytes += b;
        programmed += b * r.waf[i].unwrap_or(1.0);
    }
    if programmed < FREE_POOL_MIN_PROGRAMMED * bytes {
        return None;
    }
    let end_ns = r.end_ns[n - 1];
    let total_ns = *r.end_ns.last()?;
    // What the flash programmed: over the paper's 150 s the write buffer is a rounding error,
    // over a scaled step it is not (host bytes give 1539 MB/s on emu:pm9a3 at 4 GiB, 1413 at
    // 16 GiB; programmed bytes 1441 and 1401-1420).
    Some(FreePool {
        mb_s: programmed / 1e6 / (end_ns as f64 / 1e9),
        share: end_ns as f64 / total_ns as f64,
        rounds: n as u32,
    })
}

pub fn step_result(step: &Step, run: &StepRun, o: &StepOutcome, meta: StepMeta) -> StepResult {
    let elapsed = o.elapsed_ns();
    let ops = merge(o.segments.iter().map(|s| &s.stats.ops));
    let probes = merge(o.segments.iter().map(|s| &s.stats.probes));
    let ivs = intervals::of_outcome(o);
    let (mut value, window) = value_of(&ivs);
    if step.role == Role::WriteBurst && elapsed > 0 {
        // The burst's 1 ms intervals time its fast phase (write_burst_fast_mib); the
        // reference's filter keeps a handful of them (4 of 640 on emu:default: 3146 MB/s for
        // a burst that ran at 1676), so its throughput is the whole burst's mean.
        let secs = elapsed as f64 / 1e9;
        let bytes = o.written() as f64;
        value.mb_s = Some(bytes / 1e6 / secs);
        value.iops = Some(bytes / step.bs as f64 / secs);
        value.note = Some("the whole burst's mean (its 1 ms intervals time the fast phase)".into());
    }
    let writes = step.mix.writes();
    let waf_measured = if writes {
        window
            .as_ref()
            .and_then(|(w, rows)| window_waf(&ivs, w, rows))
            .or_else(|| whole_step_waf(o))
    } else {
        None
    };
    let reference_bytes = meta
        .reference_bytes
        .or(run.bytes)
        .unwrap_or(run.range_bytes);
    let rounds = steady::step_rounds(o, run, reference_bytes);
    // A steady verdict must hold where the value is taken (the reference's window, late in
    // the step): a drive can look steady early and then fall.
    let value_ns = value
        .window_s
        .map(|[from, to]| ((from * 1e9) as u64, (to * 1e9).ceil() as u64));
    let steadiness = steady::of_rounds_for_value(&rounds, value_ns);
    let capacity = run.capacity.max(1) as f64;
    let tracked = matches!(
        step.role,
        Role::Workload | Role::SeqWrite | Role::WriteLatency
    );
    let convergence = steadiness.filter(|_| tracked).map(|s| Convergence {
        converged: s.converged,
        rounds: s.rounds as u32,
        window_first: s.window.map(|w| w.first as u32),
        drive_writes: s.written as f64 / capacity,
        round_drive_writes: run
            .bytes
            .map(|_| reference_bytes as f64 / crate::plan::ROUNDS_PER_STEP as f64 / capacity),
        reference_drive_writes: run.bytes.map(|_| reference_bytes as f64 / capacity),
        within_reference: Some(s.within_reference),
        extended_to_drive_writes: (o.segments.len() > 1).then(|| o.written() as f64 / capacity),
        value_window_steady: (!s.value_window_held).then_some(false),
    });
    let free_pool = (step.role == Role::SeqWrite)
        .then(|| free_pool(&rounds))
        .flatten();
    let series = rounds
        .mb_s
        .iter()
        .enumerate()
        .map(|(i, &mb_s)| SeriesPoint {
            t_s: rounds.end_ns[i] as f64 / 1e9,
            mb_s,
            iops: mb_s * 1e6 / step.bs as f64,
            waf: rounds.waf[i],
        })
        .collect();
    let probe_ivs = run
        .probe_interval_ns
        .map(|ns| probe_intervals(o, ns))
        .unwrap_or_default();
    value.probes = probe_medians(&probe_ivs);
    StepResult {
        name: step.name.to_string(),
        stopped: o.stopped,
        pattern: step.pattern.to_string(),
        rw: step.mix.to_string(),
        bs: step.bs,
        qd: step.qd,
        threads: step.threads,
        ops: named(&ops, elapsed),
        probes: named(&probes, elapsed),
        convergence,
        waf_buffer_lag: waf_measured.and_then(|_| buffer_lag(o)),
        waf_measured,
        waf_implied: None,
        free_pool,
        series,
        seconds: seconds_of(o),
        elapsed_s: Some(elapsed as f64 / 1e9),
        rate_mb_s: run.rate_iops.map(|r| r * step.bs as f64 / 1e6),
        repetition: Some(meta.repetition),
        pass: Some(meta.pass),
        stage: step.stage.map(|s| s.name().to_string()),
        // The interval the points are of: the step's, or a multiple where a step outlasted its
        // expected length so far that its points were merged (engine::series::MAX_INTERVALS).
        interval_s: Some(
            o.segments
                .iter()
                .map(|s| s.stats.series_interval_ns)
                .max()
                .unwrap_or(run.interval_ns) as f64
                / 1e9,
        ),
        value: Some(value),
        probe_intervals: probe_ivs,
        wall_s: Some(o.wall_s),
    }
}

/// The rows of the reference rule of a result step, rebuilt from its `seconds` (main load,
/// whole intervals, merged as its value says): write MB/s of each. For the implied WAF,
/// computed once the run's basis is known.
pub fn write_mb_s_per_row(s: &StepResult) -> Vec<f64> {
    let mut by_t: BTreeMap<u64, (f64, f64, bool)> = BTreeMap::new();
    for p in s.seconds.iter().filter(|p| !p.stream.starts_with("probe_")) {
        let span = p.span_s.unwrap_or(1.0);
        let e = by_t
            .entry(p.t_s.to_bits())
            .or_insert((0.0, span, p.partial));
        if p.stream == "write" {
            e.0 += p.bytes as f64;
        }
    }
    let mut rows: Vec<(f64, f64, f64)> = by_t
        .into_iter()
        .filter(|(_, (_, _, partial))| !partial)
        .map(|(t, (bytes, span, _))| (f64::from_bits(t), bytes, span))
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let k = s.value.as_ref().and_then(|v| v.merged).unwrap_or(1) as usize;
    let idx: Vec<usize> = (0..rows.len()).collect();
    groups(&idx, k)
        .iter()
        .map(|g| {
            let bytes: f64 = g.iter().map(|&i| rows[i].1).sum();
            let span: f64 = g.iter().map(|&i| rows[i].2).sum();
            bytes / 1e6 / span.max(1e-9)
        })
        .collect()
}

/// The implied WAF of a write step by the reference rule: per row, the sequential write
/// bandwidth `basis_mb_s` over the row's write bandwidth, averaged over the window.
pub fn implied_waf(s: &StepResult, basis_mb_s: f64) -> Option<f64> {
    let mb = write_mb_s_per_row(s);
    match reference::window(&mb) {
        Some(w) => {
            let per: Vec<Option<f64>> = mb
                .iter()
                .map(|&x| crate::derived::implied_waf(basis_mb_s, x))
                .collect();
            reference::mean_over(&w, &per)
        }
        None => s
            .value
            .as_ref()
            .and_then(|v| v.mb_s)
            .and_then(|m| crate::derived::implied_waf(basis_mb_s, m)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds_of(mb_s: &[f64], waf: &[Option<f64>]) -> steady::Rounds {
        // Rounds of 0.1 s each.
        let mut written = 0u64;
        steady::Rounds {
            mb_s: mb_s.to_vec(),
            end_written: mb_s
                .iter()
                .map(|m| {
                    written += (m * 1e5) as u64;
                    written
                })
                .collect(),
            end_ns: (1..=mb_s.len() as u64).map(|k| k * 100_000_000).collect(),
            waf: waf.to_vec(),
        }
    }

    #[test]
    fn the_free_pool_phase_ends_where_gc_starts_copying() {
        // Three rounds at 1400 MB/s programming what they take, then GC at WAF 4.
        let r = rounds_of(
            &[1400.0, 1400.0, 1400.0, 300.0, 300.0],
            &[Some(1.0), Some(1.0), Some(1.4), Some(4.0), Some(4.2)],
        );
        let f = free_pool(&r).unwrap();
        assert_eq!(f.rounds, 3);
        // Programmed: 1400 MB/s x (1.0 + 1.0 + 1.4) / 3.
        assert!((f.mb_s - 1400.0 * 3.4 / 3.0).abs() < 1e-6, "{}", f.mb_s);
        assert!((f.share - 0.6).abs() < 1e-9);
        // A pool that lasts the whole step, one spent before the step, a drive without media
        // counters.
        let whole = rounds_of(&[1400.0; 4], &[Some(1.0); 4]);
        assert_eq!(free_pool(&whole).unwrap().share, 1.0);
        let spent = rounds_of(&[300.0; 4], &[Some(4.0); 4]);
        assert_eq!(free_pool(&spent), None);
        let blind = rounds_of(&[1400.0; 4], &[None; 4]);
        assert_eq!(free_pool(&blind), None);
        // A step short enough for the write buffer to take most of it.
        let buffered = rounds_of(&[4000.0; 4], &[Some(0.3), Some(0.4), Some(1.0), Some(1.0)]);
        assert_eq!(free_pool(&buffered), None);
    }

    fn iv(k: u64, ios: u64) -> Interval {
        Interval {
            t_ns: k * 1_000_000,
            span_ns: 1_000_000,
            bytes: ios * 4096,
            ios,
            write_bytes: ios * 4096,
            counted: Some((ios * 4096, ios * 3 * 4096)),
            partial: false,
        }
    }

    #[test]
    fn thin_intervals_are_merged_into_rows_of_twenty_ios() {
        assert_eq!(merge_factor(100 * 50, 100), 1);
        assert_eq!(merge_factor(100 * 3, 100), 7);
        assert_eq!(merge_factor(0, 100), 10);
        assert_eq!(groups(&[0, 1, 2, 3, 4], 2), [vec![0, 1], vec![2, 3]]);
        // Alternating 0 and 6 completions: one by one the filter would drop every empty
        // interval; merged by 7 the rows are steady at 21 I/Os per 7 ms.
        let ivs: Vec<Interval> = (0..700)
            .map(|k| iv(k, if k % 2 == 0 { 0 } else { 6 }))
            .collect();
        let (v, w) = value_of(&ivs);
        assert_eq!(v.merged, Some(7));
        assert_eq!(v.dropped, 0);
        let iops = v.iops.unwrap();
        assert!((iops / 3000.0 - 1.0).abs() < 0.05, "{iops}");
        let (w, rows) = w.unwrap();
        assert_eq!(window_waf(&ivs, &w, &rows), Some(3.0));
    }
}
