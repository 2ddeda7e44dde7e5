//! Engine statistics -> the report's result model. Pure; no I/O.
//!
//! Latency CDFs are sampled at fixed percentiles from the merged histograms, so charts of
//! different runs share their x positions.

use ssdiq_engine::hist::OpStats;
use ssdiq_report::model::{CdfPoint, LatencySummary, OpSummary};

/// Percentiles of the CDF points in a result.
const CDF_PERCENTILES: [f64; 16] = [
    1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999,
    100.0,
];

/// One op's totals over `elapsed_ns`, with its latency CDF.
pub fn op_summary(s: &OpStats, elapsed_ns: u64) -> OpSummary {
    let e = s.summary(elapsed_ns);
    let l = e.lat_ns;
    OpSummary {
        ios: e.ios,
        bytes: e.bytes,
        iops: e.iops,
        mb_s: e.mb_s,
        lat_ns: LatencySummary {
            mean: l.mean,
            p50: l.p50,
            p90: l.p90,
            p99: l.p99,
            p99_9: l.p99_9,
            p99_99: l.p99_99,
            p99_999: l.p99_999,
            max: l.max,
        },
        over_1ms: e.over_1ms,
        cdf: if s.ios == 0 {
            Vec::new()
        } else {
            CDF_PERCENTILES
                .iter()
                .map(|&p| CdfPoint {
                    p,
                    ns: s.quantile(p / 100.0),
                })
                .collect()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_cdf() {
        let mut s = OpStats::default();
        for i in 1..=1000u64 {
            s.record(i * 1000, 4096);
        }
        let o = op_summary(&s, 1_000_000_000);
        assert_eq!(o.ios, 1000);
        assert!((o.iops - 1000.0).abs() < 1e-9);
        assert_eq!(o.cdf.len(), CDF_PERCENTILES.len());
        assert!(o.cdf.windows(2).all(|w| w[0].ns <= w[1].ns));
        assert_eq!(o.cdf.last().unwrap().ns, 1_000_000);
        assert!(op_summary(&OpStats::default(), 1).cdf.is_empty());
    }
}
