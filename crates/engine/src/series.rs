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
    /// interval only.
    pub fn finish(&self, elapsed_ns: u64) -> Vec<JobSecond> {
        let n = self.inner.lock().expect("series lock").closed_below.len();
        for w in 0..n {
            self.close(w, u64::MAX);
        }
        let g = self.inner.lock().expect("series lock");
        let last = g.done.iter().map(|c| c.second).max();
        let Some(last) = last else {
            return Vec::new();
        };
        let mut streams: Vec<StreamId> = g.done.iter().map(|c| c.stream).collect();
        streams.sort_unstable();
        streams.dedup();
        let mut grid: BTreeMap<(u64, StreamId), &Closed> = BTreeMap::new();
        for c in &g.done {
            grid.insert((c.second, c.stream), c);
        }
        let mut out = Vec::new();
        let iv = self.interval_ns;
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
        out
    }
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
