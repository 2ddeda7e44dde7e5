//! A seeded bijection of `[0, n)` for any `n`, with no table.
//!
//! Construction: a keyed hash permutation on the smallest power-of-two domain `2^k >= n`
//! (Kensler, "Correlated Multi-Jittered Sampling", Pixar TM 2013: xor-shifts, multiplications
//! by odd constants and key additions, each a bijection modulo `2^k`), followed by cycle
//! walking: values `>= n` are permuted again until they land in range. Because `2^k < 2n`,
//! the expected number of rounds is below 2. Cycle walking of a bijection yields a bijection
//! of the subset (Black & Rogaway 2002).

use crate::rng::derive_seed;

#[derive(Clone, Debug)]
pub struct Scrambler {
    n: u64,
    mask: u64,
    half: u32,
    keys: [u64; 3],
}

impl Scrambler {
    /// A permutation of `[0, n)` chosen by `seed`. `n == 0` is allowed and permutes nothing.
    pub fn new(n: u64, seed: u64) -> Self {
        let bits = if n <= 1 {
            1
        } else {
            64 - (n - 1).leading_zeros()
        };
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut keys = [0u64; 3];
        for (i, k) in keys.iter_mut().enumerate() {
            *k = derive_seed(seed, 0x5C4A_u64 + i as u64);
        }
        Self {
            n,
            mask,
            half: (bits / 2).max(1),
            keys,
        }
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// One keyed bijection of `[0, 2^k)`: three multiply/xor-shift stages with keys in
    /// between. Each step is a bijection modulo `2^k`, hence so is the whole round.
    #[inline]
    fn round(&self, mut x: u64) -> u64 {
        let m = self.mask;
        let h = self.half;
        x ^= self.keys[0] & m;
        x = x.wrapping_mul(0x0929_eb3f_9f4a_7c15 | 1) & m;
        x ^= x >> h;
        x = x.wrapping_add(self.keys[1]) & m;
        x = x.wrapping_mul(0x6935_fa69_bf58_476d | 1) & m;
        x ^= x >> h;
        x ^= self.keys[2] & m;
        x = x.wrapping_mul(0xc2b2_ae3d_27d4_eb4f | 1) & m;
        x ^= x >> h;
        x
    }

    /// The image of `i` (`i < n`).
    #[inline]
    pub fn apply(&self, i: u64) -> u64 {
        debug_assert!(i < self.n);
        let mut x = self.round(i);
        while x >= self.n {
            x = self.round(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn assert_bijection(n: u64, seed: u64) {
        let s = Scrambler::new(n, seed);
        let mut seen = vec![false; n as usize];
        for i in 0..n {
            let j = s.apply(i);
            assert!(j < n, "n={n} seed={seed}: {i} -> {j} out of range");
            assert!(!seen[j as usize], "n={n} seed={seed}: {j} hit twice");
            seen[j as usize] = true;
        }
    }

    #[test]
    fn bijection_on_small_primes_and_powers_of_two() {
        for n in [
            1u64, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 33, 64, 127, 128, 4093, 4096, 65_521, 65_536,
        ] {
            for seed in 0..3 {
                assert_bijection(n, seed);
            }
        }
    }

    #[test]
    fn different_seeds_give_different_permutations() {
        let a = Scrambler::new(1000, 1);
        let b = Scrambler::new(1000, 2);
        let same = (0..1000).filter(|&i| a.apply(i) == b.apply(i)).count();
        assert!(same < 20, "{same} fixed agreements");
    }

    #[test]
    fn spreads_a_contiguous_prefix_over_the_range() {
        // The hot 10% of a twozone pattern must land all over the LBA range.
        let n = 100_000u64;
        let s = Scrambler::new(n, 9);
        let mut deciles = [0u32; 10];
        for i in 0..n / 10 {
            deciles[(s.apply(i) * 10 / n) as usize] += 1;
        }
        for d in deciles {
            assert!((800..1200).contains(&d), "{deciles:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn bijection_for_any_n(n in 1u64..20_000, seed: u64) {
            assert_bijection(n, seed);
        }
    }
}
