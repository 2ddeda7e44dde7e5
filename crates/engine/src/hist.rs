//! Latency histograms and their summaries.
//!
//! Invariants:
//! - Values are nanoseconds from submission to completion; histograms keep 3 significant
//!   digits (every percentile is within 0.1% of the exact order statistic) up to one hour, and
//!   larger values saturate at one hour rather than fail.
//! - Count, sum, max and the count over 1 ms are kept exactly beside the histogram, so the
//!   mean, max and `over_1ms` are exact, and percentiles never exceed the exact max.
//! - Histograms are allocated once per stream before the job; recording never allocates.

use hdrhistogram::Histogram;
pub use ssdiq_schema::{CdfPoint, LatencySummary, OpSummary};

pub const SIGFIG: u8 = 3;
pub const MAX_NS: u64 = 3_600_000_000_000;
const ONE_MS: u64 = 1_000_000;

pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_NS, SIGFIG).expect("static histogram bounds are valid")
}

/// Exact counters and a latency histogram for one stream (an op, or a probe).
#[derive(Clone, Debug)]
pub struct OpStats {
    pub hist: Histogram<u64>,
    pub ios: u64,
    pub bytes: u64,
    pub lat_sum_ns: u128,
    pub lat_max_ns: u64,
    pub over_1ms: u64,
}

impl Default for OpStats {
    fn default() -> Self {
        OpStats {
            hist: new_histogram(),
            ios: 0,
            bytes: 0,
            lat_sum_ns: 0,
            lat_max_ns: 0,
            over_1ms: 0,
        }
    }
}

impl OpStats {
    #[inline]
    pub fn record(&mut self, lat_ns: u64, bytes: u64) {
        self.hist.saturating_record(lat_ns.max(1));
        self.ios += 1;
        self.bytes += bytes;
        self.lat_sum_ns += lat_ns as u128;
        self.lat_max_ns = self.lat_max_ns.max(lat_ns);
        self.over_1ms += (lat_ns > ONE_MS) as u64;
    }

    pub fn merge(&mut self, other: &OpStats) {
        self.hist.add(&other.hist).expect("histograms share bounds");
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.lat_sum_ns += other.lat_sum_ns;
        self.lat_max_ns = self.lat_max_ns.max(other.lat_max_ns);
        self.over_1ms += other.over_1ms;
    }

    pub fn mean_ns(&self) -> f64 {
        if self.ios == 0 {
            0.0
        } else {
            self.lat_sum_ns as f64 / self.ios as f64
        }
    }

    /// Latency at quantile `q` in [0, 1], never above the exact maximum.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.ios == 0 {
            return 0;
        }
        self.hist.value_at_quantile(q).min(self.lat_max_ns)
    }

    /// The latency distribution sampled evenly on a nines axis: `per_nine` points per nine
    /// (90, 99, 99.9, ... exactly, plus the median) from the minimum up to the last
    /// percentile the sample count resolves, `100 (1 - 1/ios)`, then the maximum at 100.
    pub fn percentile_curve(&self, per_nine: u32) -> Vec<CdfPoint> {
        if self.ios == 0 {
            return Vec::new();
        }
        let resolved = (self.ios as f64).log10();
        let mut ps: Vec<f64> = (0..)
            .map(|k| k as f64 / per_nine.max(1) as f64)
            .take_while(|&n| n < resolved - 1e-9)
            .map(|n| 100.0 * (1.0 - 10f64.powf(-n)))
            .collect();
        if resolved > 2f64.log10() {
            ps.push(50.0);
        }
        ps.sort_by(f64::total_cmp);
        ps.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
        ps.push(100.0);
        ps.into_iter()
            .map(|p| CdfPoint {
                p,
                ns: self.quantile(p / 100.0),
            })
            .collect()
    }

    pub fn latency(&self) -> LatencySummary {
        LatencySummary {
            mean: self.mean_ns(),
            p50: self.quantile(0.50),
            p90: self.quantile(0.90),
            p99: self.quantile(0.99),
            p99_9: self.quantile(0.999),
            p99_99: self.quantile(0.9999),
            p99_999: self.quantile(0.99999),
            max: self.lat_max_ns,
        }
    }

    /// The `"ops"`/`"probes"` entry over a job of `elapsed_ns`.
    pub fn summary(&self, elapsed_ns: u64) -> OpSummary {
        let secs = (elapsed_ns as f64 / 1e9).max(1e-9);
        OpSummary {
            ios: self.ios,
            bytes: self.bytes,
            iops: self.ios as f64 / secs,
            mb_s: self.bytes as f64 / 1e6 / secs,
            lat_ns: self.latency(),
            over_1ms: if self.ios == 0 {
                0.0
            } else {
                self.over_1ms as f64 / self.ios as f64
            },
            cdf: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdiq_workload::SeededRng;

    /// The exact order statistic hdrhistogram approximates: the smallest value with at least
    /// a fraction `q` of the samples at or below it.
    fn oracle(sorted: &[u64], q: f64) -> u64 {
        let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    #[test]
    fn percentiles_match_sorted_oracle() {
        let mut rng = SeededRng::new(7);
        for n in [1usize, 10, 1000, 200_000] {
            let mut s = OpStats::default();
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                // Log-uniform latencies from 1 us to ~1 s, plus a heavy tail.
                let e = rng.unit_f64() * 20.0 + 10.0;
                let x = (2f64.powf(e)) as u64;
                v.push(x);
                s.record(x, 4096);
            }
            v.sort_unstable();
            for q in [0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 1.0] {
                let got = s.quantile(q) as f64;
                let want = oracle(&v, q) as f64;
                assert!(
                    (got - want).abs() <= want * 1e-3 + 1.0,
                    "n={n} q={q}: {got} vs {want}"
                );
            }
            assert_eq!(s.lat_max_ns, *v.last().unwrap());
            let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
            assert!((s.mean_ns() - mean).abs() < 1e-6 * mean);
            let over = v.iter().filter(|&&x| x > 1_000_000).count() as u64;
            assert_eq!(s.over_1ms, over);
        }
    }

    #[test]
    fn merge_equals_recording_together() {
        let (mut a, mut b, mut all) = (OpStats::default(), OpStats::default(), OpStats::default());
        for i in 1..5000u64 {
            let x = i * 977 % 100_003;
            if i % 3 == 0 { &mut a } else { &mut b }.record(x, 512);
            all.record(x, 512);
        }
        a.merge(&b);
        assert_eq!(a.latency(), all.latency());
        assert_eq!(a.bytes, all.bytes);
    }

    #[test]
    fn percentile_curve_is_even_in_nines_and_ends_at_the_max() {
        let mut s = OpStats::default();
        for i in 1..=20_000u64 {
            s.record(i * 100, 4096);
        }
        let c = s.percentile_curve(10);
        // log10(20000) = 4.3 nines resolved: 0.0, 0.1, ... 4.3 and the median, then the max.
        assert_eq!(c.len(), 44 + 1 + 1);
        assert_eq!(c[0].p, 0.0);
        assert_eq!(c[0].ns, 100);
        assert!(c.iter().any(|x| x.p == 50.0));
        let p999 = c.iter().find(|x| (x.p - 99.9).abs() < 1e-9).unwrap();
        assert!(
            (p999.ns as f64 - 1_998_000.0).abs() <= 2_000.0,
            "{}",
            p999.ns
        );
        assert_eq!(c.last().unwrap().p, 100.0);
        assert_eq!(c.last().unwrap().ns, 2_000_000);
        assert!(c.windows(2).all(|w| w[0].p < w[1].p && w[0].ns <= w[1].ns));
        assert!(OpStats::default().percentile_curve(10).is_empty());
    }

    #[test]
    fn empty_summary_is_zero() {
        let s = OpStats::default().summary(1_000_000_000);
        assert_eq!(s.ios, 0);
        assert_eq!(s.lat_ns.p99, 0);
        assert_eq!(s.over_1ms, 0.0);
    }
}
