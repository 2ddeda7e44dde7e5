//! Zipf sampling by rejection-inversion (Hörmann & Derflinger, ACM TOMACS 6(3), 1996), the
//! algorithm of Apache Commons RNG's `RejectionInversionZipfSampler`, plus exact masses.
//!
//! `P(rank = k) = k^-s / H(n, s)` for `k` in `[1, n]`. The sampler is exact and O(1) expected:
//! one uniform and about one `log1p` and one `exp` per sample; rejections are rare.

use crate::rng::SeededRng;

#[derive(Clone, Debug)]
pub struct ZipfSampler {
    n: u64,
    exponent: f64,
    h_integral_x1: f64,
    h_integral_n: f64,
    squeeze: f64,
}

impl ZipfSampler {
    /// `n >= 1` elements, exponent `s > 0`.
    pub fn new(n: u64, exponent: f64) -> Self {
        assert!(n >= 1 && exponent > 0.0 && exponent.is_finite());
        let mut z = Self {
            n,
            exponent,
            h_integral_x1: 0.0,
            h_integral_n: 0.0,
            squeeze: 0.0,
        };
        z.h_integral_x1 = z.h_integral(1.5) - 1.0;
        z.h_integral_n = z.h_integral(n as f64 + 0.5);
        z.squeeze = 2.0 - z.h_integral_inverse(z.h_integral(2.5) - z.h(2.0));
        z
    }

    pub fn n(&self) -> u64 {
        self.n
    }

    /// A rank in `[1, n]`; rank 1 is the most frequent.
    #[inline]
    pub fn sample(&self, rng: &mut SeededRng) -> u64 {
        loop {
            let u = self.h_integral_n + rng.unit_f64() * (self.h_integral_x1 - self.h_integral_n);
            let x = self.h_integral_inverse(u);
            let mut k = (x + 0.5) as u64;
            if k < 1 {
                k = 1;
            } else if k > self.n {
                k = self.n;
            }
            let kf = k as f64;
            if kf - x <= self.squeeze || u >= self.h_integral(kf + 0.5) - self.h(kf) {
                return k;
            }
        }
    }

    /// `H(x) = ((x^(1-s)) - 1) / (1 - s)`, or `ln x` when `s = 1`, computed stably.
    #[inline]
    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        helper2((1.0 - self.exponent) * log_x) * log_x
    }

    #[inline]
    fn h(&self, x: f64) -> f64 {
        (-self.exponent * x.ln()).exp()
    }

    #[inline]
    fn h_integral_inverse(&self, x: f64) -> f64 {
        let mut t = x * (1.0 - self.exponent);
        if t < -1.0 {
            // Rounding can push t just below -1, where log1p is undefined.
            t = -1.0;
        }
        (helper1(t) * x).exp()
    }
}

/// `log1p(x) / x`, continuous at 0.
#[inline]
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-3 {
        // glibc's log is several times faster than log1p, and away from 0 rounding 1 + x
        // costs at most 1e-13 relative error.
        (1.0 + x).ln() / x
    } else if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// `expm1(x) / x`, continuous at 0.
#[inline]
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-3 {
        (x.exp() - 1.0) / x
    } else if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x))
    }
}

/// The generalized harmonic number `H(k, s) = sum_{i=1..k} i^-s`, to about 1e-12 relative
/// error for any `k`: exact summation of the first terms, Euler–Maclaurin for the tail.
pub fn harmonic(k: u64, s: f64) -> f64 {
    const DIRECT: u64 = 10_000;
    let direct_end = k.min(DIRECT);
    // Sum small terms first for accuracy.
    let mut sum = 0.0;
    for i in (1..=direct_end).rev() {
        sum += (i as f64).powf(-s);
    }
    if k <= DIRECT {
        return sum;
    }
    let a = DIRECT as f64;
    let b = k as f64;
    // sum_{i=a+1..b} f(i) = int_a^b f + (f(b) - f(a))/2 + (f'(b) - f'(a))/12 - (f'''(b) - f'''(a))/720
    let integral = if (s - 1.0).abs() < 1e-12 {
        (b / a).ln()
    } else {
        (b.powf(1.0 - s) - a.powf(1.0 - s)) / (1.0 - s)
    };
    let f = |x: f64| x.powf(-s);
    let d1 = |x: f64| -s * x.powf(-s - 1.0);
    let d3 = |x: f64| -s * (s + 1.0) * (s + 2.0) * x.powf(-s - 3.0);
    sum + integral + (f(b) - f(a)) / 2.0 + (d1(b) - d1(a)) / 12.0 - (d3(b) - d3(a)) / 720.0
}

/// Exact `P(rank <= k)` for Zipf over `n` elements with exponent `s`.
pub fn mass_top(k: u64, n: u64, s: f64) -> f64 {
    harmonic(k.min(n), s) / harmonic(n, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_matches_direct_sum_past_the_switch() {
        for s in [0.5, 0.8, 1.0, 1.2] {
            let k = 50_000u64;
            let direct: f64 = (1..=k).rev().map(|i| (i as f64).powf(-s)).sum();
            let em = harmonic(k, s);
            assert!(
                (direct - em).abs() / direct < 1e-11,
                "s={s}: {direct} vs {em}"
            );
        }
    }

    /// The exact Zipf mass H(k,s)/H(n,s) for n = 5e8 pages, as tabulated in docs/sources.md#zipf.
    #[test]
    fn exact_mass_matches_reference_table() {
        let n = 500_000_000u64;
        let table = [
            (0.5, [0.0070, 0.0223, 0.1000, 0.3162, 0.4472]),
            (0.8, [0.1238, 0.2058, 0.3882, 0.6249, 0.7203]),
            (0.99, [0.4937, 0.6070, 0.7583, 0.8778, 0.9143]),
            (1.0, [0.5194, 0.6312, 0.7765, 0.8883, 0.9219]),
            (1.2, [0.8966, 0.9409, 0.9750, 0.9903, 0.9937]),
        ];
        let ks = [25_000u64, 250_000, n / 100, n / 10, n / 5];
        for (s, expect) in table {
            for (k, e) in ks.iter().zip(expect) {
                let got = mass_top(*k, n, s);
                assert!((got - e).abs() < 0.00006, "s={s} k={k}: {got} vs table {e}");
            }
        }
        let p1 = 1.0 / harmonic(n, 1.0);
        assert!((p1 - 4.853e-2).abs() < 1e-5, "{p1}");
    }

    /// Sampled mass within 4.5 sigma of the exact mass (binomial error), at several cut points.
    #[test]
    fn sampler_matches_exact_mass() {
        let n = 500_000_000u64;
        let draws = 400_000u64;
        for (i, s) in [0.5, 0.8, 1.0, 1.2].into_iter().enumerate() {
            let z = ZipfSampler::new(n, s);
            let mut rng = SeededRng::new(100 + i as u64);
            let ks = [1u64, 10, 25_000, 250_000, n / 100, n / 10, n / 5];
            let mut hits = [0u64; 7];
            for _ in 0..draws {
                let r = z.sample(&mut rng);
                assert!((1..=n).contains(&r));
                for (h, k) in hits.iter_mut().zip(ks) {
                    if r <= k {
                        *h += 1;
                    }
                }
            }
            for (h, k) in hits.iter().zip(ks) {
                let p = mass_top(k, n, s);
                let got = *h as f64 / draws as f64;
                let sigma = (p * (1.0 - p) / draws as f64).sqrt().max(1e-9);
                assert!(
                    (got - p).abs() <= 4.5 * sigma,
                    "s={s} k={k}: sampled {got} exact {p} ({:.1} sigma)",
                    (got - p).abs() / sigma
                );
            }
        }
    }

    /// Cross-check against rand_distr's independent (rejection) algorithm on a small support.
    #[test]
    fn agrees_with_rand_distr_on_small_support() {
        use rand::SeedableRng;
        use rand_distr::Distribution;
        let n = 50u64;
        let s = 0.9;
        let draws = 200_000;
        let ours = ZipfSampler::new(n, s);
        let mut rng = SeededRng::new(5);
        let theirs = rand_distr::Zipf::new(n as f64, s).unwrap();
        let mut trng = rand::rngs::StdRng::seed_from_u64(5);
        let mut a = vec![0u64; n as usize + 1];
        let mut b = vec![0u64; n as usize + 1];
        for _ in 0..draws {
            a[ours.sample(&mut rng) as usize] += 1;
            b[theirs.sample(&mut trng) as usize] += 1;
        }
        // Chi-square two-sample statistic; 49 dof: P(chi2 > 100) ~ 2e-5.
        let chi2: f64 = (1..=n as usize)
            .map(|k| {
                let (x, y) = (a[k] as f64, b[k] as f64);
                (x - y).powi(2) / (x + y)
            })
            .sum();
        assert!(chi2 < 100.0, "chi2 = {chi2}");
    }
}
