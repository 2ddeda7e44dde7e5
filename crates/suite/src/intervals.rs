//! A step's time series as intervals: the main load's bytes and I/Os per interval (probes
//! excluded), on the step's own time axis, with the device's per-interval WAF beside them.
//!
//! Invariants:
//! - Intervals come from the engine's series; each job (segment) of a step contributes the
//!   intervals `0..=last` of its own series, shifted by the segment's offset.
//! - An interval shorter than the series interval (the end of a job) is `partial`; the
//!   reference window and charts leave it out, its rates are over its real length.
//! - `counted` is what the device's counters moved over the interval: the counters at the last
//!   sample at or before its end minus those at the last sample at or before its start. A WAF
//!   over any run of intervals is then the sum of their media bytes over the sum of their host
//!   bytes. iob's rule (a WAF per second at each move of the media counter, then the mean of
//!   those values) is not used: where an interval holds few I/Os and the counters move in
//!   steps, the mean of ratios strays from the ratio, and the reference's throughput filter
//!   keeps intervals in which the host wrote more, which biases it low (issue 52's hidden drive
//!   8, 480 IOPS in 0.1 s intervals: 4.06 where the counters moved 6.17 times the host bytes).

use std::collections::BTreeMap;

use ssdiq_engine::JobSecond;
use ssdiq_engine::{DeviceSample, Stats};

use crate::step_outcome::StepOutcome;

#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    /// Start, ns from the step's start.
    pub t_ns: u64,
    pub span_ns: u64,
    /// Main-load bytes and I/Os completed in the interval.
    pub bytes: u64,
    pub ios: u64,
    pub write_bytes: u64,
    /// (host, media) bytes the device counted over the interval, where it reports both.
    pub counted: Option<(u64, u64)>,
    pub partial: bool,
}

/// Media / host bytes the device counted over `ivs`: none where it reports no counters, its
/// host counter did not move or its media counter did not (a counter that updates rarely).
pub fn counted_waf<'a>(ivs: impl IntoIterator<Item = &'a Interval>) -> Option<f64> {
    let (mut host, mut media, mut any) = (0u64, 0u64, false);
    for (h, m) in ivs.into_iter().filter_map(|i| i.counted) {
        host += h;
        media += m;
        any = true;
    }
    (any && host > 0 && media > 0).then(|| media as f64 / host as f64)
}

/// The device's (host, media) counters as of each time asked, in increasing order: those of
/// the last sample at or before it.
struct CountersAt<'a> {
    samples: &'a [DeviceSample],
    next: usize,
}

impl CountersAt<'_> {
    fn at(&mut self, t_ns: u64) -> Option<(u64, u64)> {
        while self.next < self.samples.len() && self.samples[self.next].t_ns <= t_ns {
            self.next += 1;
        }
        let s = self.samples[..self.next].last()?;
        Some((s.health.host_bytes?, s.health.media_bytes?))
    }
}

/// What the counters moved over each interval `0..=last` of length `iv` (the last one ends
/// at `elapsed_ns`).
fn counted_per_interval(
    samples: &[DeviceSample],
    iv: u64,
    elapsed_ns: u64,
    last: u64,
) -> Vec<Option<(u64, u64)>> {
    let mut counters = CountersAt { samples, next: 0 };
    let mut before = counters.at(0);
    (0..=last)
        .map(|k| {
            let after = counters.at(((k + 1) * iv).min(elapsed_ns.max(k * iv + 1)));
            let counted = before
                .zip(after)
                .map(|((h0, m0), (h1, m1))| (h1.saturating_sub(h0), m1.saturating_sub(m0)));
            before = after.or(before);
            counted
        })
        .collect()
}

/// The intervals of one job.
pub fn of_stats(stats: &Stats, offset_ns: u64) -> Vec<Interval> {
    let iv = stats.series_interval_ns.max(1);
    let mut by_index: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
    for p in &stats.series {
        let e = by_index.entry(p.second).or_default();
        if !is_probe(p) {
            e.0 += p.bytes;
            e.1 += p.ios;
            if p.stream == "write" {
                e.2 += p.bytes;
            }
        }
    }
    let Some(&last) = by_index.keys().next_back() else {
        return Vec::new();
    };
    let counted = counted_per_interval(&stats.device_log, iv, stats.elapsed_ns, last);
    (0..=last)
        .map(|k| {
            let (bytes, ios, write_bytes) = by_index.get(&k).copied().unwrap_or_default();
            let span = stats.elapsed_ns.saturating_sub(k * iv).clamp(1, iv);
            Interval {
                t_ns: offset_ns + k * iv,
                span_ns: span,
                bytes,
                ios,
                write_bytes,
                counted: counted[k as usize],
                partial: span < iv,
            }
        })
        .collect()
}

fn is_probe(p: &JobSecond) -> bool {
    p.stream.starts_with("probe_")
}

/// The intervals of a whole step, segment after segment.
pub fn of_outcome(o: &StepOutcome) -> Vec<Interval> {
    o.segments
        .iter()
        .flat_map(|s| of_stats(&s.stats, s.offset_ns))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdiq_engine::DeviceHealth;

    fn sample(t: u64, host: u64, media: u64) -> DeviceSample {
        DeviceSample {
            t_ns: t,
            health: DeviceHealth {
                host_bytes: Some(host),
                media_bytes: Some(media),
                ..Default::default()
            },
        }
    }

    fn counted(h: u64, m: u64) -> Interval {
        Interval {
            t_ns: 0,
            span_ns: 1,
            bytes: 0,
            ios: 0,
            write_bytes: 0,
            counted: Some((h, m)),
            partial: false,
        }
    }

    #[test]
    fn an_intervals_counters_are_those_its_end_saw_minus_those_its_start_saw() {
        let log = [
            sample(0, 100, 1000),
            sample(5, 150, 1000), // media did not move (an OCP log updated rarely)
            sample(10, 200, 1000),
            sample(20, 300, 1800),
            sample(30, 300, 1900), // no host writes in the last interval
        ];
        assert_eq!(
            counted_per_interval(&log, 10, 30, 2),
            [Some((100, 0)), Some((100, 800)), Some((0, 100))]
        );
        // A last interval cut short by the job's end takes the counters at its end.
        assert_eq!(
            counted_per_interval(&log, 10, 25, 2),
            [Some((100, 0)), Some((100, 800)), Some((0, 0))]
        );
    }

    #[test]
    fn waf_is_the_ratio_of_the_counted_bytes_not_a_mean_of_ratios() {
        // Two intervals: 1 I/O at WAF 8 and 9 I/Os at WAF 4. The mean of ratios says 6,
        // the counters 4.4.
        let ivs = [counted(4096, 8 * 4096), counted(9 * 4096, 36 * 4096)];
        assert_eq!(counted_waf(&ivs), Some(4.4));
        assert_eq!(counted_waf(&[counted(4096, 0)]), None);
        assert_eq!(counted_waf(&[counted(0, 4096)]), None);
        assert_eq!(counted_waf(&[]), None);
    }
}
