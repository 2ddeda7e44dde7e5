//! Steady-state detection in the style of the SNIA Solid State Storage Performance Test
//! Specification (PTS): a tracked metric is steady over a window of `rounds` consecutive
//! measurement rounds when
//! - its range (max - min) is within `range_band` (20%) of the window's mean, and
//! - the excursion of a least-squares line through the window (slope x (rounds - 1)) is
//!   within `slope_band` (10%) of the mean.
//!
//! The detector is fed one round at a time and reports the first window that qualifies.

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyCriteria {
    pub rounds: usize,
    pub range_band: f64,
    pub slope_band: f64,
}

impl Default for SteadyCriteria {
    fn default() -> Self {
        Self {
            rounds: 5,
            range_band: 0.20,
            slope_band: 0.10,
        }
    }
}

/// What a window of rounds looked like.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WindowCheck {
    /// Index of the first round of the window.
    pub first: usize,
    pub mean: f64,
    /// (max - min) / mean.
    pub range_ratio: f64,
    /// |slope x (rounds - 1)| / mean.
    pub slope_ratio: f64,
    pub steady: bool,
}

impl SteadyCriteria {
    /// Checks the window `values` (exactly `rounds` values).
    pub fn check(&self, first: usize, values: &[f64]) -> WindowCheck {
        assert_eq!(values.len(), self.rounds);
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let max = values.iter().cloned().fold(f64::MIN, f64::max);
        let min = values.iter().cloned().fold(f64::MAX, f64::min);
        let xm = (n - 1.0) / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, v) in values.iter().enumerate() {
            let dx = i as f64 - xm;
            sxy += dx * (v - mean);
            sxx += dx * dx;
        }
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let scale = mean.abs();
        let (range_ratio, slope_ratio) = if scale > 0.0 {
            ((max - min) / scale, (slope * (n - 1.0)).abs() / scale)
        } else if max == min {
            (0.0, 0.0)
        } else {
            (f64::INFINITY, f64::INFINITY)
        };
        WindowCheck {
            first,
            mean,
            range_ratio,
            slope_ratio,
            steady: range_ratio <= self.range_band && slope_ratio <= self.slope_band,
        }
    }

    /// The first steady window of a whole series, if any.
    pub fn first_steady(&self, series: &[f64]) -> Option<WindowCheck> {
        if series.len() < self.rounds {
            return None;
        }
        (0..=series.len() - self.rounds)
            .map(|i| self.check(i, &series[i..i + self.rounds]))
            .find(|c| c.steady)
    }
}

/// Incremental detector: push one round's value at a time.
#[derive(Clone, Debug)]
pub struct SteadyDetector {
    criteria: SteadyCriteria,
    values: Vec<f64>,
    found: Option<WindowCheck>,
}

impl SteadyDetector {
    pub fn new(criteria: SteadyCriteria) -> Self {
        Self {
            criteria,
            values: Vec::new(),
            found: None,
        }
    }

    /// Adds a round; returns the steady window once one exists.
    pub fn push(&mut self, value: f64) -> Option<WindowCheck> {
        self.values.push(value);
        if self.found.is_none() && self.values.len() >= self.criteria.rounds {
            let first = self.values.len() - self.criteria.rounds;
            let c = self.criteria.check(first, &self.values[first..]);
            if c.steady {
                self.found = Some(c);
            }
        }
        self.found
    }

    pub fn steady(&self) -> Option<WindowCheck> {
        self.found
    }

    /// The latest window's check, steady or not (for progress display).
    pub fn latest(&self) -> Option<WindowCheck> {
        let r = self.criteria.rounds;
        (self.values.len() >= r).then(|| {
            let first = self.values.len() - r;
            self.criteria.check(first, &self.values[first..])
        })
    }

    pub fn rounds(&self) -> usize {
        self.values.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_series_is_steady_at_once() {
        let c = SteadyCriteria::default();
        let w = c.first_steady(&[100.0; 5]).unwrap();
        assert_eq!(w.first, 0);
        assert_eq!(w.range_ratio, 0.0);
    }

    #[test]
    fn decaying_throughput_converges_when_the_decay_flattens() {
        // Throughput falling from 400 to 100 as GC starts, like a drive after seq fill.
        let series: Vec<f64> = (0..30)
            .map(|i| 100.0 + 300.0 * (-(i as f64) / 3.0).exp())
            .collect();
        let c = SteadyCriteria::default();
        let w = c.first_steady(&series).unwrap();
        // At the window, the last 5 rounds must satisfy both bands...
        assert!(w.range_ratio <= 0.2 && w.slope_ratio <= 0.1);
        // ...and the window before must not.
        assert!(
            !c.check(w.first - 1, &series[w.first - 1..w.first + 4])
                .steady
        );
    }

    #[test]
    fn the_slope_band_rejects_a_steady_trend_within_the_range_band() {
        // Range 16% of mean passes the range band, but the fitted excursion is also 16%.
        let series = [92.0, 96.0, 100.0, 104.0, 108.0];
        let w = SteadyCriteria::default().check(0, &series);
        assert!(w.range_ratio <= 0.2);
        assert!((w.slope_ratio - 0.16).abs() < 1e-9);
        assert!(!w.steady);
    }

    #[test]
    fn the_range_band_rejects_noise_without_trend() {
        let series = [80.0, 120.0, 100.0, 120.0, 80.0];
        let w = SteadyCriteria::default().check(0, &series);
        assert!(w.slope_ratio < 0.1);
        assert!(!w.steady, "{w:?}");
    }

    #[test]
    fn incremental_detector_agrees_with_batch() {
        let series: Vec<f64> = (0..40).map(|i| 50.0 + 200.0 / (1.0 + i as f64)).collect();
        let c = SteadyCriteria::default();
        let mut d = SteadyDetector::new(c);
        let mut found = None;
        for v in &series {
            if let Some(w) = d.push(*v) {
                found = Some(w);
                break;
            }
        }
        assert_eq!(found, c.first_steady(&series));
        assert!(found.is_some());
    }
}
