//! Engine statistics -> the report's result model. Pure; no I/O.
//!
//! Latency distributions are sampled evenly on a nines axis from the merged histograms (ten
//! points per nine, up to what the sample count resolves, then the maximum), so tail-latency
//! charts are drawn from the whole histogram rather than a handful of percentiles.

use ssdiq_engine::OpStats;
use ssdiq_schema::OpSummary;

/// Points per nine of the latency distribution in a result.
const CURVE_PER_NINE: u32 = 10;

/// One op's totals over `elapsed_ns`, with its latency CDF.
pub fn op_summary(s: &OpStats, elapsed_ns: u64) -> OpSummary {
    OpSummary {
        cdf: s.percentile_curve(CURVE_PER_NINE),
        ..s.summary(elapsed_ns)
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
        assert_eq!(
            o.cdf.len(),
            30 + 1 + 1,
            "3 nines resolved, the median, the max"
        );
        assert!(o.cdf.windows(2).all(|w| w[0].ns <= w[1].ns));
        assert_eq!(o.cdf.last().unwrap().ns, 1_000_000);
        assert!(op_summary(&OpStats::default(), 1).cdf.is_empty());
    }
}
