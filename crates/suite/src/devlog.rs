//! The run's device log (`device.csv`): every device sample of every phase on the run's
//! clock, with iob's per-sample WAF and the WAF since the pass's reset.
//!
//! Invariants: samples are appended in time order; a reset starts a new baseline for
//! `waf_since_reset` (the first sample after it), while the per-sample WAF keeps comparing
//! with the last sample at which the media counter moved, as iob does.

use ssdiq_engine::DeviceSample;
use ssdiq_schema::DeviceLogPoint;

#[derive(Default)]
pub struct DeviceLog {
    pub points: Vec<DeviceLogPoint>,
    /// (host, media) at the last sample at which media moved.
    last_move: Option<(u64, u64)>,
    /// (host, media) after the last reset.
    baseline: Option<(u64, u64)>,
    reset_pending: bool,
}

impl DeviceLog {
    /// The next sample is the baseline of `waf_since_reset`.
    pub fn mark_reset(&mut self) {
        self.reset_pending = true;
    }

    /// Appends `samples` of a phase that started at `t0_ns` on the run clock.
    pub fn push(&mut self, t0_ns: u64, phase: &str, samples: &[DeviceSample]) {
        for s in samples {
            let h = &s.health;
            let counters = h.host_bytes.zip(h.media_bytes);
            let mut waf = None;
            if let Some((host, media)) = counters {
                if self.reset_pending || self.baseline.is_none() {
                    self.baseline = Some((host, media));
                    self.reset_pending = false;
                }
                match self.last_move {
                    Some((lh, lm)) if media != lm => {
                        waf = (host > lh)
                            .then(|| media.saturating_sub(lm) as f64 / (host - lh) as f64);
                        self.last_move = Some((host, media));
                    }
                    Some(_) => {}
                    None => self.last_move = Some((host, media)),
                }
            }
            let since = counters.zip(self.baseline).and_then(|((h, m), (bh, bm))| {
                (h > bh).then(|| m.saturating_sub(bm) as f64 / (h - bh) as f64)
            });
            self.points.push(DeviceLogPoint {
                t_s: (t0_ns + s.t_ns) as f64 / 1e9,
                phase: phase.to_string(),
                host_bytes: h.host_bytes,
                media_bytes: h.media_bytes,
                temperature_c: h.temperature_c,
                throttling: h.throttling,
                free_blocks_pct: h.free_blocks_pct,
                erase_count_min: h.erase_count_min,
                erase_count_max: h.erase_count_max,
                erase_count_avg: h.erase_count_avg,
                waf,
                waf_since_reset: since,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdiq_engine::DeviceHealth;

    fn s(t: u64, host: u64, media: u64) -> DeviceSample {
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
    fn waf_per_sample_and_since_reset() {
        let mut log = DeviceLog::default();
        log.mark_reset();
        log.push(0, "init", &[s(0, 0, 0), s(1_000_000_000, 100, 100)]);
        log.push(
            2_000_000_000,
            "workload",
            &[s(0, 100, 100), s(1_000_000_000, 200, 500)],
        );
        let p = &log.points;
        assert_eq!(p.len(), 4);
        assert_eq!(p[1].waf, Some(1.0));
        assert_eq!(p[3].waf, Some(4.0));
        assert_eq!(p[3].t_s, 3.0);
        assert_eq!(p[3].waf_since_reset, Some(2.5));
        assert_eq!(p[3].phase, "workload");
        log.mark_reset();
        log.push(4_000_000_000, "init", &[s(0, 200, 500), s(1, 300, 600)]);
        assert_eq!(log.points[5].waf_since_reset, Some(1.0));
    }
}
