//! Write-frequency classes of a pattern: the (write fraction, space fraction) pairs the
//! `optimal` bound separates data by (docs/sources.md#wa-models, hot/cold limit (c)).
//!
//! Piecewise-uniform patterns are exact. Zipf is cut into rank bins (single ranks first,
//! then bins growing by 5%); inside a bin pages are treated as equally hot, which makes the
//! bound very slightly pessimistic (finer separation could only do better).

use ssdiq_workload::zipf::harmonic;
use ssdiq_workload::Pattern;

/// What the optimal bound is for a pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum Classes {
    /// Random traffic with these (write, space) classes.
    Random(Vec<(f64, f64)>),
    /// Sequential or zoned traffic: a log-structured layout needs no GC copies (WAF 1).
    Sequential,
    /// No bound implemented for this pattern.
    Unknown,
}

pub fn pattern_classes(pattern: &Pattern, pages: u64) -> Classes {
    match pattern {
        Pattern::Uniform | Pattern::RandPerm => Classes::Random(vec![(1.0, 1.0)]),
        Pattern::TwoZone { .. } | Pattern::Zones(_) => {
            Classes::Random(pattern.zone_fractions().expect("piecewise pattern"))
        }
        Pattern::ReadOnly { fraction } => {
            Classes::Random(vec![(1.0, 1.0 - fraction), (0.0, *fraction)])
        }
        Pattern::Zipf { theta } => Classes::Random(zipf_classes(pages, *theta)),
        Pattern::Seq | Pattern::Window { .. } | Pattern::Zns { .. } | Pattern::Streams { .. } => {
            Classes::Sequential
        }
        Pattern::SkipSeq { .. } => Classes::Unknown,
    }
}

fn zipf_classes(n: u64, s: f64) -> Vec<(f64, f64)> {
    let total = harmonic(n, s);
    let mut out = Vec::new();
    let mut lo = 1u64; // first rank of the bin
    let mut h_before = 0.0;
    while lo <= n {
        let hi = if lo <= 32 {
            lo
        } else {
            ((lo as f64 * 1.05).ceil() as u64).min(n)
        };
        let h = harmonic(hi, s);
        out.push(((h - h_before) / total, (hi - lo + 1) as f64 / n as f64));
        h_before = h;
        lo = hi + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_classes_cover_everything() {
        let Classes::Random(c) = pattern_classes(&Pattern::parse("zipf:1.0").unwrap(), 1 << 20)
        else {
            panic!()
        };
        let (w, s): (f64, f64) = c.iter().fold((0.0, 0.0), |a, x| (a.0 + x.0, a.1 + x.1));
        assert!((w - 1.0).abs() < 1e-9 && (s - 1.0).abs() < 1e-9, "{w} {s}");
        assert!(c.len() < 400);
    }
}
