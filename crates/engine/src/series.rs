//! Per-second series, merged across threads exactly.
//!
//! Each [`crate::stats::Recorder`] accumulates the current second of every stream (a
//! histogram allocated before the job) and hands it to the shared [`SeriesSink`] when its
//! completions move into a later second — once per second per thread, so the lock is cold.
//! The sink adds the histograms of all writers for a second and finalises a second into a
//! [`JobSecond`] (mean, p99) only when every writer has moved past it, so memory holds only
//! the few seconds still open. Seconds are `completion_ns / 1e9` of the executor's clock.
//! A "second" is one interval of the sink's length: 1 s unless the job asks otherwise
//! (`Job::series_interval_ns`); `JobSecond::second` is then the interval's index.

use std::collections::BTreeMap;
use std::sync::Mutex;

use ssdiq_workload::Op;

use crate::hist::OpStats;

const OPS: [Op; 4] = [Op::Read, Op::Write, Op::Trim, Op::WriteZeroes];

fn op_index(op: Op) -> usize {
    match op {
        Op::Read => 0,
        Op::Write => 1,
        Op::Trim => 2,
        Op::WriteZeroes => 3,
    }
}

/// A measured stream: an op of the main load, or a probe of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId(u8);

impl StreamId {
    pub fn main(op: Op) -> Self {
        StreamId(op_index(op) as u8)
    }

    pub fn probe(op: Op) -> Self {
        StreamId(4 + op_index(op) as u8)
    }

    pub fn op(self) -> Op {
        OPS[(self.0 % 4) as usize]
    }

    /// Its slot among a recorder's streams (main ops first, then probes).
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }

    /// The stream in slot `i` (see [`StreamId::index`]).
    pub(crate) fn from_index(i: usize) -> Self {
        StreamId(i as u8)
    }

    pub fn is_probe(self) -> bool {
        self.0 >= 4
    }

    pub fn label(self) -> String {
        if self.is_probe() {
            format!("probe_{}", self.op().name())
        } else {
            self.op().name().to_string()
        }
    }
}

pub use ssdiq_schema::JobSecond;

struct Closed {
    second: u64,
    stream: StreamId,
    ios: u64,
    bytes: u64,
    mean: f64,
    p99: u64,
}

struct Inner {
    /// Per writer: every second below this is complete for that writer.
    closed_below: Vec<u64>,
    open: BTreeMap<(u64, StreamId), OpStats>,
    done: Vec<Closed>,
}

pub struct SeriesSink {
    inner: Mutex<Inner>,
    interval_ns: u64,
}

impl SeriesSink {
    /// A sink of one-second points.
    pub fn new(writers: usize) -> Self {
        Self::with_interval(writers, 1_000_000_000)
    }

    /// A sink of points `interval_ns` long.
    pub fn with_interval(writers: usize, interval_ns: u64) -> Self {
        SeriesSink {
            inner: Mutex::new(Inner {
                closed_below: vec![0; writers],
                open: BTreeMap::new(),
                done: Vec::new(),
            }),
            interval_ns: interval_ns.max(1),
        }
    }

    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// Writer `w` hands over its numbers for `second` of `stream` (may be empty).
    pub(crate) fn push(&self, second: u64, stream: StreamId, acc: &OpStats) {
        if acc.ios == 0 {
            return;
        }
        let mut g = self.inner.lock().expect("series lock");
        g.open.entry((second, stream)).or_default().merge(acc);
    }

    /// Writer `w` will never again report a second below `below`.
    pub(crate) fn close(&self, w: usize, below: u64) {
        let mut g = self.inner.lock().expect("series lock");
        g.closed_below[w] = g.closed_below[w].max(below);
        let min = *g.closed_below.iter().min().unwrap_or(&u64::MAX);
        while let Some(entry) = g.open.first_entry() {
            if entry.key().0 >= min {
                break;
            }
            let ((second, stream), acc) = entry.remove_entry();
            g.done.push(Closed {
                second,
                stream,
                ios: acc.ios,
                bytes: acc.bytes,
                mean: acc.mean_ns(),
                p99: acc.quantile(0.99),
            });
        }
    }

    /// All points, with rates over each interval's length within a job of `elapsed_ns` (the
    /// last interval may be partial: its rates are over the part that ran, never over a
    /// made-up length); a stream's intervals without completions appear as zero rows (stalls
    /// must be visible), idle stretches over a minute of intervals as their first and last
    /// interval only. Returns the points and the interval they are of: the sink's, or a whole
    /// multiple of it where a job outlasted its interval so far that it would have more than
    /// [`MAX_INTERVALS`] (see [`coarsen`]).
    pub fn finish(&self, elapsed_ns: u64) -> (Vec<JobSecond>, u64) {
        let n = self.inner.lock().expect("series lock").closed_below.len();
        for w in 0..n {
            self.close(w, u64::MAX);
        }
        let mut g = self.inner.lock().expect("series lock");
        let last = g.done.iter().map(|c| c.second).max();
        let Some(last) = last else {
            return (Vec::new(), self.interval_ns);
        };
        // Rows shown at a merge factor: every busy interval and short idle stretches.
        let rows_at = |k: u64| {
            let mut busy: Vec<u64> = g.done.iter().map(|c| c.second / k).collect();
            busy.sort_unstable();
            seconds_to_show(busy.into_iter(), last / k).len() as u64
        };
        let k = coarsening(&rows_at);
        if k > 1 {
            g.done = coarsen(std::mem::take(&mut g.done), k);
        }
        let last = last / k;
        let mut streams: Vec<StreamId> = g.done.iter().map(|c| c.stream).collect();
        streams.sort_unstable();
        streams.dedup();
        let mut grid: BTreeMap<(u64, StreamId), &Closed> = BTreeMap::new();
        for c in &g.done {
            grid.insert((c.second, c.stream), c);
        }
        let mut out = Vec::new();
        let iv = self.interval_ns * k;
        for second in seconds_to_show(grid.keys().map(|k| k.0), last) {
            // Completions exactly at the end of the job fall at the start of an interval that
            // has no length: count 1 ns rather than divide by zero.
            let len_ns = elapsed_ns.saturating_sub(second * iv).clamp(1, iv);
            let secs = len_ns as f64 / 1e9;
            for &s in &streams {
                let (ios, bytes, mean, p99) = match grid.get(&(second, s)) {
                    Some(c) => (c.ios, c.bytes, c.mean, c.p99),
                    None => (0, 0, 0.0, 0),
                };
                out.push(JobSecond {
                    second,
                    stream: s.label(),
                    ios,
                    bytes,
                    iops: ios as f64 / secs,
                    mb_s: bytes as f64 / 1e6 / secs,
                    lat_mean_ns: mean,
                    lat_p99_ns: p99,
                });
            }
        }
        (out, iv)
    }
}

/// Most intervals a job's points show: a step expected to last a second logs at 1 ms, and one
/// whose requests still in flight at its deadline take hours to finish (a drive of 0.1 s
/// programs) would otherwise keep millions of rows, gigabytes of run.json.
pub const MAX_INTERVALS: u64 = 20_000;

/// The factor (1, 2, 5, 10, 20, ...) by which intervals merge so that the rows shown
/// (`rows_at(k)`) are at most [`MAX_INTERVALS`].
fn coarsening(rows_at: &dyn Fn(u64) -> u64) -> u64 {
    let mut k = 1u64;
    let mut steps = [2u64, 5, 10].into_iter().cycle();
    let mut base = 1u64;
    while rows_at(k) > MAX_INTERVALS {
        let m = steps.next().expect("cycle");
        k = base * m;
        if m == 10 {
            base *= 10;
        }
    }
    k
}

/// Every `k` consecutive intervals of a stream as one: counts and bytes add up, the mean is
/// weighted by the completions, the P99 is the largest of the parts' (an upper bound: the
/// parts' latencies are not kept).
fn coarsen(done: Vec<Closed>, k: u64) -> Vec<Closed> {
    let mut merged: BTreeMap<(u64, StreamId), Closed> = BTreeMap::new();
    for c in done {
        let key = (c.second / k, c.stream);
        let m = merged.entry(key).or_insert(Closed {
            second: key.0,
            stream: c.stream,
            ios: 0,
            bytes: 0,
            mean: 0.0,
            p99: 0,
        });
        let ios = m.ios + c.ios;
        if ios > 0 {
            m.mean = (m.mean * m.ios as f64 + c.mean * c.ios as f64) / ios as f64;
        }
        m.ios = ios;
        m.bytes += c.bytes;
        m.p99 = m.p99.max(c.p99);
    }
    merged.into_values().collect()
}

/// Idle stretches up to this many seconds appear second by second.
const DENSE_GAP: u64 = 60;

/// The seconds that get rows: every second with a completion, and the idle seconds between
/// them, so that a stall shows as zeros. An idle stretch longer than [`DENSE_GAP`] shows as
/// its first and its last second only: a rate-limited job of days with a request an hour
/// must not hold a row for every empty second. `busy` is ascending, possibly repeated.
fn seconds_to_show(busy: impl Iterator<Item = u64>, last: u64) -> Vec<u64> {
    let mut out = Vec::new();
    // The first second not shown yet.
    let mut next = 0u64;
    for b in busy.chain(std::iter::once(last)) {
        if b < next {
            continue;
        }
        if b - next <= DENSE_GAP {
            out.extend(next..b);
        } else {
            out.extend([next, b - 1]);
        }
        out.push(b);
        next = b + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // 100,000 intervals through the sink: 1.6 s alone, 14 s beside the crate's other tests
    // (each interval opens a full-range histogram; why the neighbours cost 9x is not traced).
    #[test]
    #[ignore = "slow, about 14 s in the README's run: .ci/extra/slow-tests.sh runs it"]
    fn a_job_far_past_its_interval_keeps_a_bounded_number_of_coarser_points() {
        let dense = |n: u64| move |k: u64| n.div_ceil(k);
        assert_eq!(coarsening(&dense(MAX_INTERVALS)), 1);
        assert_eq!(coarsening(&dense(MAX_INTERVALS + 1)), 2);
        assert_eq!(coarsening(&dense(3 * MAX_INTERVALS)), 5);
        assert_eq!(coarsening(&dense(90 * MAX_INTERVALS)), 100);
        // 100,000 busy 1 ms intervals: 20,000 rows of 5 ms, every I/O and byte kept.
        let sink = SeriesSink::with_interval(1, 1_000_000);
        let mut acc = OpStats::default();
        acc.record(1_000, 4096);
        for s in 0..100_000 {
            sink.push(s, StreamId::main(Op::Write), &acc);
            // A writer closes each interval as it moves on (the open ones hold histograms).
            sink.close(0, s + 1);
        }
        let (rows, iv) = sink.finish(100_000 * 1_000_000);
        assert_eq!(iv, 5_000_000);
        assert_eq!(rows.len(), 20_000);
        assert_eq!(rows.iter().map(|r| r.ios).sum::<u64>(), 100_000);
        assert_eq!(rows[0].ios, 5);
    }

    #[test]
    fn idle_stretches_are_dense_up_to_a_minute_then_two_rows() {
        assert_eq!(seconds_to_show([0, 2, 2].into_iter(), 2), vec![0, 1, 2]);
        assert_eq!(seconds_to_show([3].into_iter(), 3), vec![0, 1, 2, 3]);
        assert_eq!(
            seconds_to_show([0, 10_000].into_iter(), 10_000),
            vec![0, 1, 9_999, 10_000]
        );
        // 59 idle seconds between 5 and 65 are shown; 61 between 5 and 67 are not.
        assert_eq!(seconds_to_show([5, 65].into_iter(), 65).len(), 66);
        assert_eq!(
            seconds_to_show([5, 67].into_iter(), 67),
            vec![0, 1, 2, 3, 4, 5, 6, 66, 67]
        );
        // A month with a request an hour: about 3 rows an hour, not 3600.
        let hours: Vec<u64> = (0..720).map(|h| h * 3600).collect();
        let v = seconds_to_show(hours.into_iter(), 719 * 3600);
        assert!(v.len() < 3 * 720, "{}", v.len());
    }
}
