//! Steady-state detection in the style of the SNIA Solid State Storage Performance Test
//! Specification (PTS): a tracked metric is steady over a window of `rounds` consecutive
//! measurement rounds when
//! - its range (max - min) is within `range_band` (20%) of the window's mean, and
//! - the excursion of a least-squares line through the window (slope x (rounds - 1)) is
//!   within `slope_band` (10%) of the mean.
//!
//! The detector is fed one round at a time and reports the first window that qualifies. A
//! step's window must also hold the WAF steady where the drive reports it ([`first_steady`]).
//!
//! A step's rounds are [`ROUNDS_PER_STEP`](crate::plan::ROUNDS_PER_STEP) equal parts of its
//! reference bound: of its host writes for a workload bounded by drive writes, of its time
//! otherwise. They are formed from the step's whole intervals ([`rounds`]), so the detector
//! needs no job boundaries; a round closes with the interval that completes it.

use crate::intervals::{self, Interval};
use crate::plan::ROUNDS_PER_STEP;
use crate::step_outcome::{StepOutcome, StepRun};

/// Rounds in a steady window.
pub const WINDOW_ROUNDS: usize = 5;

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
        let (range_ratio, slope_ratio) = band_ratios(mean, min, max, slope, n);
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

/// A window's spread and drift, each as a share of its mean: (max - min) / |mean| and
/// |slope x (n - 1)| / |mean|; a zero mean is flat only if every value is zero.
fn band_ratios(mean: f64, min: f64, max: f64, slope: f64, n: f64) -> (f64, f64) {
    let scale = mean.abs();
    if scale > 0.0 {
        ((max - min) / scale, (slope * (n - 1.0)).abs() / scale)
    } else if max == min {
        (0.0, 0.0)
    } else {
        (f64::INFINITY, f64::INFINITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The running sums agree with the direct check on every stretch, steady or not.
    #[test]
    fn running_sums_agree_with_the_direct_check() {
        let mut x = 7u64;
        let mut values = Vec::new();
        for k in 0..300 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let noise = (x >> 40) as f64 / (1u64 << 24) as f64;
            // A climb, then a plateau with a little noise, then a spike.
            let base = if k < 100 { 50.0 + k as f64 } else { 150.0 };
            values.push(base + noise * if k == 250 { 80.0 } else { 4.0 });
        }
        for last in [20, 99, 150, 299] {
            let holds = holds_to(&values, last, last - 1);
            for (i, h) in holds.iter().enumerate().take(last) {
                let c = SteadyCriteria {
                    rounds: last + 1 - i,
                    ..SteadyCriteria::default()
                };
                assert_eq!(*h, c.check(i, &values[i..=last]).steady, "{i}..={last}");
            }
        }
    }

    fn iv(k: u64, write_mb: f64) -> Interval {
        Interval {
            t_ns: k * 1_000_000_000,
            span_ns: 1_000_000_000,
            bytes: (write_mb * 1e6) as u64,
            ios: 0,
            write_bytes: (write_mb * 1e6) as u64,
            counted: Some(((write_mb * 1e6) as u64, (write_mb * 2e6) as u64)),
            partial: false,
        }
    }

    #[test]
    fn rounds_by_bytes_and_the_window_within_the_reference() {
        // 100 MB/s falling to 50 MB/s over the first 20 s, then flat; rounds of 100 MB.
        let ivs: Vec<Interval> = (0..60)
            .map(|k| iv(k, if k < 20 { 100.0 - 2.5 * k as f64 } else { 50.0 }))
            .collect();
        let r = rounds(&ivs, 100_000_000, true);
        assert!(r.mb_s.len() >= 30);
        assert!(r.end_written.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(r.waf[0], Some(2.0));
        let s = of_rounds(&r).unwrap();
        assert!(s.converged);
        let w = s.window.unwrap();
        assert!(r.mb_s[w.first..w.first + 5].iter().all(|&x| x <= 75.0));
        // A step stopped before the flat part is not steady, and says so.
        let short = rounds(&ivs[..10], 100_000_000, true);
        let s = of_rounds(&short).unwrap();
        assert!(!s.converged && !s.within_reference);
        assert_eq!(s.written, short.end_written[short.mb_s.len() - 1]);
    }

    #[test]
    fn an_interval_across_several_rounds_is_split() {
        // Two intervals of 10 MB each, rounds of 4 MB: 5 rounds, the last ends the second.
        let ivs = [iv(0, 10.0), iv(1, 10.0)];
        let r = rounds(&ivs, 4_000_000, true);
        assert_eq!(r.mb_s.len(), 5);
        assert!(
            r.mb_s.iter().all(|&m| (m - 10.0).abs() < 1e-9),
            "{:?}",
            r.mb_s
        );
        assert_eq!(
            r.end_written,
            [4_000_000, 8_000_000, 12_000_000, 16_000_000, 20_000_000]
        );
        assert_eq!(r.end_ns[4], 2_000_000_000);
    }

    #[test]
    fn flat_throughput_with_a_climbing_waf_is_not_steady() {
        let mut r = Rounds {
            mb_s: vec![100.0; 10],
            end_written: (1..=10).collect(),
            end_ns: (1..=10).collect(),
            waf: (0..10).map(|i| Some(1.0 + 0.3 * i.min(6) as f64)).collect(),
        };
        // The WAF climbs by 0.3 a round until round 6: the first window with a flat WAF
        // starts at round 5 (rounds 5..=9: 2.5, 2.8, 2.8, 2.8, 2.8; range 12%, slope 9%).
        assert_eq!(first_steady(&r).unwrap().first, 5);
        // Without WAF values the throughput decides alone.
        r.waf = vec![None; 10];
        assert_eq!(first_steady(&r).unwrap().first, 0);
    }

    #[test]
    fn rounds_by_time() {
        let ivs: Vec<Interval> = (0..10).map(|k| iv(k, 10.0)).collect();
        let r = rounds(&ivs, 2_000_000_000, false);
        assert_eq!(r.mb_s, [10.0; 5]);
        assert_eq!(r.end_ns[4], 10_000_000_000);
    }

    /// Rounds of 0.1 s at the given MB/s, WAF 1 while fast and 5 once slow.
    fn step_of(mb_s: &[f64]) -> Rounds {
        let n = mb_s.len();
        Rounds {
            mb_s: mb_s.to_vec(),
            end_written: (1..=n as u64).map(|k| k * 1_000_000).collect(),
            end_ns: (1..=n as u64).map(|k| k * 100_000_000).collect(),
            waf: mb_s
                .iter()
                .map(|&m| Some(if m > 1000.0 { 1.0 } else { 5.0 }))
                .collect(),
        }
    }

    #[test]
    fn a_step_steady_early_then_falling_is_steady_only_where_it_settled() {
        // The seq_write step of `ssdiq run`: 13 rounds at 1573 MB/s, then 280 MB/s; the value
        // is taken over 60-99% of the step (rounds 22-36).
        let mut mb = vec![1573.0; 13];
        mb.extend([592.0, 315.0]);
        mb.extend([280.0; 21]);
        let r = step_of(&mb);
        assert_eq!(of_rounds(&r).unwrap().window.unwrap().first, 0);
        let s = of_rounds_for_value(&r, Some((2_100_000_000, 3_600_000_000))).unwrap();
        assert!(s.converged && s.value_window_held);
        assert_eq!(s.window.unwrap().first, 14, "from the first slow round on");
        assert_eq!(s.written, r.end_written[18]);
        // The same step measured while it falls: no stretch holds through the value's window.
        let mut mb = vec![1573.0; 25];
        mb.extend([280.0; 11]);
        let s = of_rounds_for_value(&step_of(&mb), Some((2_100_000_000, 3_600_000_000)));
        let s = s.unwrap();
        assert!(!s.converged && !s.value_window_held && s.window.is_none());
        // Without a value window the first steady window stands.
        let s = of_rounds_for_value(&step_of(&mb), None).unwrap();
        assert!(s.converged && s.window.unwrap().first == 0);
    }

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
}

/// A step's rounds: throughput (MB/s) of each, and the host bytes written and time elapsed
/// at its end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rounds {
    pub mb_s: Vec<f64>,
    pub end_written: Vec<u64>,
    pub end_ns: Vec<u64>,
    /// Mean per-interval WAF of each round, where the device reports it.
    pub waf: Vec<Option<f64>>,
}

/// How a step fared against the detector.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steadiness {
    pub converged: bool,
    pub rounds: usize,
    pub window: Option<WindowCheck>,
    /// Host bytes written when the window ended (or the step, when not steady).
    pub written: u64,
    /// The window ended within the reference bound (its first `ROUNDS_PER_STEP` rounds).
    pub within_reference: bool,
    /// False when a steady window was found but the rounds of the value's window did not hold.
    pub value_window_held: bool,
}

/// Groups `ivs` into rounds of `round` units: bytes written (`by_bytes`) or nanoseconds. An
/// interval that straddles round boundaries is split between the rounds in proportion (its
/// I/O assumed even within it), so a step of N rounds' worth has N rounds whatever its
/// interval length.
pub fn rounds(ivs: &[Interval], round: u64, by_bytes: bool) -> Rounds {
    let mut r = Rounds::default();
    let round = round.max(1) as f64;
    // The open round: bytes, span (ns), and the intervals whose counters it takes.
    let (mut bytes, mut span) = (0.0f64, 0.0f64);
    let mut counted: Vec<&Interval> = Vec::new();
    let (mut written, mut t) = (0.0f64, 0.0f64);
    for iv in ivs {
        counted.push(iv);
        // The interval's progress in the round's unit, consumed piece by piece.
        let size = if by_bytes {
            iv.write_bytes as f64
        } else {
            iv.span_ns as f64
        };
        let mut left = 1.0f64;
        let mut pos = if by_bytes { written } else { t };
        loop {
            let boundary = (r.mb_s.len() as f64 + 1.0) * round;
            let need = if size > 0.0 {
                (boundary - pos) / size
            } else {
                f64::INFINITY
            };
            let take = need.clamp(0.0, left);
            bytes += take * iv.bytes as f64;
            span += take * iv.span_ns as f64;
            written += take * iv.write_bytes as f64;
            t = iv.t_ns as f64 + (1.0 - left + take) * iv.span_ns as f64;
            pos += take * size;
            left -= take;
            if need > take + 1e-9 || size == 0.0 {
                break;
            }
            r.mb_s.push(bytes / 1e6 / (span.max(1.0) / 1e9));
            r.end_written.push(written.round() as u64);
            r.end_ns.push(t.round() as u64);
            r.waf.push(crate::intervals::counted_waf(counted.drain(..)));
            bytes = 0.0;
            span = 0.0;
            if left <= 1e-12 {
                break;
            }
        }
    }
    r
}

/// The rounds of a step's outcome: parts of its reference bound (`reference_bytes` of writes,
/// or its time bound).
pub fn step_rounds(o: &StepOutcome, run: &StepRun, reference_bytes: u64) -> Rounds {
    let ivs = intervals::of_outcome(o);
    match (run.bytes, run.seconds) {
        (Some(_), _) => rounds(&ivs, reference_bytes / ROUNDS_PER_STEP as u64, true),
        (None, Some(s)) => rounds(&ivs, (s * 1e9 / ROUNDS_PER_STEP as f64) as u64, false),
        (None, None) => Rounds::default(),
    }
}

/// The first window in which the throughput is steady and so is the WAF, where the drive
/// reports it for every round of the window: after a sequential fill the throughput of random
/// writes flattens while GC's WAF still climbs (visible in every emulated run), and a window
/// there would call a transient steady.
pub fn first_steady(r: &Rounds) -> Option<WindowCheck> {
    let c = SteadyCriteria::default();
    let n = c.rounds;
    if r.mb_s.len() < n {
        return None;
    }
    (0..=r.mb_s.len() - n).find_map(|i| {
        let w = c.check(i, &r.mb_s[i..i + n]);
        if !w.steady {
            return None;
        }
        let waf: Option<Vec<f64>> = r.waf[i..i + n].iter().copied().collect();
        match waf {
            Some(v) if !c.check(i, &v).steady => None,
            _ => Some(w),
        }
    })
}

/// The steady stretch that carries the step's value: the earliest round `i` from which every
/// round up to the last one ending within `[from_ns, to_ns]` (the window the value comes
/// from) holds within the detector's bands, throughput and (where every round reports it)
/// WAF, with `i` no later than the window's first round and the detector's own window at `i`
/// steady (the returned check is that window's). `None` when even the value's own
/// window does not hold; `Some(None)` when the window has fewer than two rounds to judge.
pub fn stretch_through(r: &Rounds, from_ns: u64, to_ns: u64) -> Option<Option<WindowCheck>> {
    let inside: Vec<usize> = (0..r.mb_s.len())
        .filter(|&i| r.end_ns[i] > from_ns && r.end_ns[i] <= to_ns)
        .collect();
    let (Some(&first), Some(&last)) = (inside.first(), inside.last()) else {
        return Some(None);
    };
    if inside.len() < 2 {
        return Some(None);
    }
    // Whether rounds i..=last hold within the bands, throughput and (where all report it)
    // WAF, for every i up to `first`: one pass back from `last` with running sums, so a step
    // with thousands of rounds (the requests in flight at a deadline completing long after
    // it) costs linear time, not quadratic.
    let holds = holds_to(&r.mb_s, last, first);
    let waf: Option<Vec<f64>> = r.waf[..=last].iter().copied().collect();
    let waf_holds = waf.map(|v| holds_to(&v, last, first));
    let within_to_last = |i: usize| holds[i] && waf_holds.as_ref().is_none_or(|h| h[i]);
    // Rounds i..=end hold (the detector's own window: checked directly).
    let within = |i: usize, end: usize| {
        let c = SteadyCriteria {
            rounds: end + 1 - i,
            ..SteadyCriteria::default()
        };
        let w = c.check(i, &r.mb_s[i..=end]);
        let waf: Option<Vec<f64>> = r.waf[i..=end].iter().copied().collect();
        (w.steady && waf.is_none_or(|v| c.check(i, &v).steady)).then_some(w)
    };
    // The stretch starts with a window the detector itself calls steady.
    (0..=first)
        .filter(|&i| i + WINDOW_ROUNDS <= r.mb_s.len())
        .find_map(|i| {
            within_to_last(i).then_some(())?;
            within(i, i + WINDOW_ROUNDS - 1)
        })
        .map(Some)
}

/// For each `i` in `0..=first`, whether `values[i..=last]` is within the detector's bands
/// (range and fitted-line excursion against the mean), from running sums over a backward pass.
fn holds_to(values: &[f64], last: usize, first: usize) -> Vec<bool> {
    let c = SteadyCriteria::default();
    let mut out = vec![false; first + 1];
    let (mut sum, mut sum_kv) = (0.0f64, 0.0f64);
    let (mut min, mut max) = (f64::MAX, f64::MIN);
    for i in (0..=last).rev() {
        let v = values[i];
        sum += v;
        sum_kv += i as f64 * v;
        min = min.min(v);
        max = max.max(v);
        if i > first {
            continue;
        }
        let n = (last + 1 - i) as f64;
        let mean = sum / n;
        // Least squares over x = k - i, k = i..=last: sxy = sum (x - xm) v, sxx = n(n^2-1)/12.
        let xm = (n - 1.0) / 2.0;
        let sxy = (sum_kv - i as f64 * sum) - xm * sum;
        let sxx = n * (n * n - 1.0) / 12.0;
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let (range_ratio, slope_ratio) = band_ratios(mean, min, max, slope, n);
        out[i] = range_ratio <= c.range_band && slope_ratio <= c.slope_band;
    }
    out
}

/// The detector over a step's rounds; `None` when it had no rounds at all.
pub fn of_rounds(r: &Rounds) -> Option<Steadiness> {
    if r.mb_s.is_empty() {
        return None;
    }
    let w = first_steady(r);
    let end = w.map_or(r.mb_s.len(), |w| w.first + WINDOW_ROUNDS) - 1;
    Some(Steadiness {
        converged: w.is_some(),
        rounds: r.mb_s.len(),
        window: w,
        written: r.end_written[end],
        within_reference: w.is_some() && end < ROUNDS_PER_STEP as usize,
        value_window_held: true,
    })
}

/// The detector over a step's rounds, its verdict held to the window the step's value comes
/// from (`value_ns`): steady only if a stretch of steady rounds runs through that window, and
/// then from the stretch's start (a drive that looked steady early and then fell is steady
/// only from where it settled, or not at all).
pub fn of_rounds_for_value(r: &Rounds, value_ns: Option<(u64, u64)>) -> Option<Steadiness> {
    let s = of_rounds(r)?;
    let Some((from, to)) = value_ns.filter(|_| s.converged) else {
        return Some(s);
    };
    Some(match stretch_through(r, from, to) {
        Some(None) => s,
        Some(Some(w)) => {
            let end = (w.first + WINDOW_ROUNDS - 1).min(r.mb_s.len() - 1);
            Steadiness {
                window: Some(w),
                written: r.end_written[end],
                within_reference: end < ROUNDS_PER_STEP as usize,
                ..s
            }
        }
        None => Steadiness {
            converged: false,
            window: None,
            written: r.end_written[r.mb_s.len() - 1],
            within_reference: false,
            value_window_held: false,
            ..s
        },
    })
}

/// The detector over a step run so far.
pub fn of_outcome(o: &StepOutcome, run: &StepRun, reference_bytes: u64) -> Option<Steadiness> {
    of_rounds(&step_rounds(o, run, reference_bytes))
}
