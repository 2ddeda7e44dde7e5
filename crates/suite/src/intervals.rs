//! A step's time series as intervals: the main load's bytes and I/Os per interval (probes
//! excluded), on the step's own time axis, with the device's per-interval WAF beside them.
//!
//! Invariants:
//! - Intervals come from the engine's series; each job (segment) of a step contributes the
//!   intervals `0..=last` of its own series, shifted by the segment's offset.
//! - An interval shorter than the series interval (the end of a job) is `partial`; the
//!   reference window and charts leave it out, its rates are over its real length.
//! - The WAF of an interval follows iob: at each device sample whose media counter moved since
//!   the last sample at which it moved, WAF = media delta / host delta since then, assigned to
//!   the interval the sample closes; intervals without a counter update have none.

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
    pub waf: Option<f64>,
    pub partial: bool,
}

/// Per-sample WAF by iob's rule: `(t_ns, waf)` for every sample at which the media counter
/// moved (after the first), `waf` `None` when no host bytes were written meanwhile.
pub fn iob_waf(samples: &[DeviceSample]) -> Vec<(u64, Option<f64>)> {
    let mut out = Vec::new();
    let mut last: Option<(u64, u64)> = None;
    for s in samples {
        let (Some(h), Some(m)) = (s.health.host_bytes, s.health.media_bytes) else {
            continue;
        };
        match last {
            None => last = Some((h, m)),
            Some((lh, lm)) if m != lm => {
                let waf = (h > lh).then(|| m.saturating_sub(lm) as f64 / (h - lh) as f64);
                out.push((s.t_ns, waf));
                last = Some((h, m));
            }
            Some(_) => {}
        }
    }
    out
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
    let mut waf: BTreeMap<u64, f64> = BTreeMap::new();
    for (t, w) in iob_waf(&stats.device_log) {
        if let Some(w) = w {
            // A sample at k x interval closes interval k - 1.
            waf.insert(t.div_ceil(iv).saturating_sub(1), w);
        }
    }
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
                waf: waf.get(&k).copied(),
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

    #[test]
    fn waf_only_where_the_media_counter_moved() {
        let s = [
            sample(0, 100, 1000),
            sample(1, 200, 1000), // media did not move (an OCP log updated rarely)
            sample(2, 300, 1800), // 800 / 200 since the last move
            sample(3, 300, 1900), // no host writes: none
        ];
        assert_eq!(iob_waf(&s), [(2, Some(4.0)), (3, None)]);
    }
}
