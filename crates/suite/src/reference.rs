//! How the SSD-iq reference turns a step's per-second log into one number
//! (`paper/commons_iobl.R`, `paper/paper.R`, `paper/latency.R` of the authors' artifact).
//!
//! iob logs one row per second: row `time = 0` is written before any second completed (all
//! rates 0), row `time = k` holds second `k - 1`. The R code then
//! 1. takes a moving mean of the throughput over the row and 10 rows on each side
//!    (`ROWS BETWEEN 10 PRECEDING AND 10 FOLLOWING`: fewer at the edges, and the zero row 0
//!    counts),
//! 2. drops row 0 and every row outside (0.5, 1.5) x its moving mean (strict bounds),
//! 3. keeps the rows with `0.6 T < time < 0.99 T`, `T` the largest time left, and
//! 4. averages what is left (throughput, WAF, implied WAF alike).
//!
//! Latency under load: the latency thread prints its statistics every 60 s; the table value is
//! the median over those intervals (R's median: the mean of the middle two for an even count).
//!
//! Everything here is pure. Intervals are the step's whole intervals in order (a partial last
//! interval is left out by the caller: iob never logs a partial second).

/// Half-width of the moving mean, in rows.
pub const MOVING_HALF_WIDTH: usize = 10;
/// Rows outside (LOW, HIGH) x the moving mean are dropped.
pub const FILTER_LOW: f64 = 0.5;
pub const FILTER_HIGH: f64 = 1.5;
/// The part of the run that is averaged, as fractions of its last kept time.
pub const WINDOW_FROM: f64 = 0.6;
pub const WINDOW_TO: f64 = 0.99;

/// Which intervals the reference averages over.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// Indices (0-based) of the intervals used, in order.
    pub used: Vec<usize>,
    /// Intervals the moving-mean filter dropped.
    pub dropped: usize,
    /// Mean of the values over `used`.
    pub mean: f64,
}

/// Moving mean over `rows` with `half` rows on each side, truncated at the ends.
pub fn moving_mean(rows: &[f64], half: usize) -> Vec<f64> {
    (0..rows.len())
        .map(|i| {
            let a = i.saturating_sub(half);
            let b = (i + half).min(rows.len() - 1);
            rows[a..=b].iter().sum::<f64>() / (b - a + 1) as f64
        })
        .collect()
}

/// The reference window over per-interval `values` (throughput of interval `k` is
/// `values[k]`, logged as row `k + 1`). `None` when the filter leaves nothing in the window.
pub fn window(values: &[f64]) -> Option<Window> {
    let mut rows = Vec::with_capacity(values.len() + 1);
    rows.push(0.0);
    rows.extend_from_slice(values);
    let avg = moving_mean(&rows, MOVING_HALF_WIDTH);
    let kept: Vec<usize> = (1..rows.len())
        .filter(|&t| rows[t] > FILTER_LOW * avg[t] && rows[t] < FILTER_HIGH * avg[t])
        .collect();
    let dropped = values.len() - kept.len();
    let last = *kept.last()? as f64;
    let used: Vec<usize> = kept
        .into_iter()
        .filter(|&t| t as f64 > WINDOW_FROM * last && (t as f64) < WINDOW_TO * last)
        .map(|t| t - 1)
        .collect();
    if used.is_empty() {
        return None;
    }
    let mean = used.iter().map(|&k| values[k]).sum::<f64>() / used.len() as f64;
    Some(Window {
        used,
        dropped,
        mean,
    })
}

/// Mean of `per_interval` over the window's intervals, skipping intervals without a value
/// (the reference's `avg(nullif(wa, 0))`: seconds in which the media counter did not move).
pub fn mean_over(w: &Window, per_interval: &[Option<f64>]) -> Option<f64> {
    let v: Vec<f64> = w
        .used
        .iter()
        .filter_map(|&k| per_interval.get(k).copied().flatten())
        .filter(|x| *x != 0.0 && x.is_finite())
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// R's `median`: the middle value, or the mean of the middle two.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten seconds: rows 0..=10 all lie within 10 rows of each other, so every moving mean is
    /// the mean of all 11 rows: (0 + 90 + 95 + 100 + 105 + 20 + 110 + 115 + 120 + 400 + 130)
    /// / 11 = 1285 / 11 = 116.82. Band (58.41, 175.23): row 0 (always), the dip to 20 (time 5)
    /// and the spike to 400 (time 9) go. T = 10; 6 < time < 9.9 keeps times 7 and 8:
    /// (115 + 120) / 2 = 117.5.
    #[test]
    fn hand_computed_ten_seconds() {
        let v = [
            90.0, 95.0, 100.0, 105.0, 20.0, 110.0, 115.0, 120.0, 400.0, 130.0,
        ];
        let w = window(&v).unwrap();
        assert_eq!(w.dropped, 2);
        assert_eq!(w.used, [6, 7]);
        assert_eq!(w.mean, 117.5);
    }

    /// 25 seconds, where the truncated edges and the zero row matter. Time 1 is 50: its
    /// moving mean covers rows 0..=11 = (0 + 50 + 10 x 100) / 12 = 87.5, band (43.75,
    /// 131.25): kept. (At 40 the mean would be 1040 / 12 = 86.67, band from 43.33: dropped.)
    /// Times 16..=24 are 100..=108, everything else 100; all within bands. T = 25, window
    /// 15 < time < 24.75: times 16..=24, mean 104.
    #[test]
    fn hand_computed_edges() {
        let mut v = vec![100.0; 25];
        v[0] = 50.0;
        for t in 16..=24 {
            v[t - 1] = 100.0 + (t - 16) as f64;
        }
        let w = window(&v).unwrap();
        assert_eq!(w.dropped, 0);
        assert_eq!(w.used, (15..=23).collect::<Vec<_>>());
        assert!((w.mean - 104.0).abs() < 1e-12);
        v[0] = 40.0;
        assert_eq!(window(&v).unwrap().dropped, 1);
    }

    #[test]
    fn the_moving_mean_is_truncated_at_the_ends() {
        let m = moving_mean(&[0.0, 3.0, 6.0], 1);
        assert_eq!(m, [1.5, 3.0, 4.5]);
    }

    #[test]
    fn waf_skips_seconds_without_a_counter_update() {
        let v = [
            90.0, 95.0, 100.0, 105.0, 20.0, 110.0, 115.0, 120.0, 400.0, 130.0,
        ];
        let w = window(&v).unwrap();
        let mut waf = vec![None; 10];
        waf[6] = Some(4.0);
        waf[7] = Some(0.0);
        assert_eq!(mean_over(&w, &waf), Some(4.0));
        waf[6] = None;
        assert_eq!(mean_over(&w, &waf), None);
    }

    #[test]
    fn r_median() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn too_short_for_a_window() {
        assert_eq!(window(&[]), None);
        // One second: T = 1, and 0.6 < time < 0.99 holds for no integer time.
        assert_eq!(window(&[100.0]), None);
    }
}
