//! Metrics derived from several steps (SSD-iq §4.1 and §4.6).

/// Implied WAF: sequential write bandwidth over random write bandwidth. On a drive whose
/// flash program bandwidth is the bottleneck, random writes are slower by exactly the extra
/// flash writes GC needs.
pub fn implied_waf(seq_write_mb_s: f64, rand_write_mb_s: f64) -> Option<f64> {
    (seq_write_mb_s > 0.0 && rand_write_mb_s > 0.0).then(|| seq_write_mb_s / rand_write_mb_s)
}

/// Highest WA of uniform random writes a drive can have: greedy GC at 2% OP, `1 / (2 * 0.02)`.
/// No drive ships with less spare space.
pub const MAX_UNIFORM_WA: f64 = 25.0;

/// Why an implied WA of uniform writes (`implied`, from `basis`, in words) is not a write
/// amplification: far from the measured one (`measured`, where the drive counts media writes:
/// off by more than 2x), or, without one, above any uniform WA a drive can have. Either way
/// the basis is not what the flash sustains: a burst into an SLC cache, as consumer drives'
/// datasheets quote, or the random writes are bound by something else (a DRAM-less map).
pub fn implied_caveat(basis: &str, implied: f64, measured: Option<f64>) -> Option<String> {
    let why = "the sequential write it divides is not what the flash sustains (an SLC cache's burst, as consumer datasheets quote), or random writes are bound by something else";
    match measured {
        Some(m) if m > 0.0 && !(0.5..=2.0).contains(&(implied / m)) => Some(format!(
            "not meaningful: {implied:.1} from {basis} against {m:.2} measured; {why}"
        )),
        None if implied > MAX_UNIFORM_WA => Some(format!(
            "not meaningful: {implied:.1} from {basis}, above the {MAX_UNIFORM_WA:.0} of greedy GC at 2% OP; {why}"
        )),
        _ => None,
    }
}

/// Measured WAF: media bytes over host bytes written in the same window.
pub fn measured_waf(host_bytes: u128, media_bytes: u128) -> Option<f64> {
    (host_bytes > 0).then(|| media_bytes as f64 / host_bytes as f64)
}

/// OP from the uniform-write WAF with `WAF ~= 1/(2 OP)` (Desnoyers; SSD-iq §4.6). A lower
/// bound: greedy is optimal for uniform writes, a worse GC hides more OP.
pub fn op_from_waf_formula(waf_uniform: f64) -> Option<f64> {
    (waf_uniform > 1.0).then(|| 1.0 / (2.0 * waf_uniform))
}

/// OP at which greedy GC with large blocks has this uniform-write WAF (the simulator's exact
/// model, `ssdiq_flash::analytic`). A lower bound for the same reason as the formula.
pub fn op_from_greedy(waf_uniform: f64) -> Option<f64> {
    ssdiq_flash::analytic::op_from_greedy_waf(waf_uniform, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_examples() {
        // SSD-iq §4.6: a WAF of 5 gives an OP of 10%.
        assert!((op_from_waf_formula(5.0).unwrap() - 0.10).abs() < 1e-12);
        // Table 3, Micron 7450 PRO: WA 3.2 -> 15.6% (the paper prints 15.7% from an unrounded WA).
        assert!((op_from_waf_formula(3.2).unwrap() - 0.156).abs() < 0.001);
        assert_eq!(op_from_waf_formula(0.9), None);
        // SSD-iq Table 2, PM9A3: 1.44 GB/s sequential vs 71k x 4 KiB random writes
        // (docs/sources.md#default-profile).
        let w = implied_waf(1440.0, 71_000.0 * 4096.0 / 1e6).unwrap();
        assert!((w - 4.95).abs() < 0.01, "{w}");
        assert_eq!(measured_waf(0, 10), None);
        assert_eq!(measured_waf(100, 420), Some(4.2));
        // The exact model sits above the 1/(2 WAF) approximation at moderate WAF.
        let g = op_from_greedy(3.2).unwrap();
        assert!(g > 0.156 && g < 0.5, "{g}");
        assert_eq!(op_from_greedy(1.0), None);
    }
}
