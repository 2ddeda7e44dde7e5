//! Seeded random streams. One generator type everywhere, so "same seed, same stream" holds
//! across crates and releases (rand's `SmallRng` makes no such promise).

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// SplitMix64 finalizer: a strong 64-bit mixer, used to derive keys and seeds.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derives an independent seed for a named purpose from a user seed.
pub fn derive_seed(seed: u64, purpose: u64) -> u64 {
    mix64(seed ^ mix64(purpose.wrapping_mul(0xD6E8_FEB8_6659_FD93)))
}

/// The random generator used by every ssdiq stream: xoshiro256++.
#[derive(Clone, Debug)]
pub struct SeededRng {
    inner: Xoshiro256PlusPlus,
}

impl SeededRng {
    pub fn new(seed: u64) -> Self {
        Self {
            inner: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    /// Substream `index` of `seed`: the generator advanced by `index` jumps of 2^128 steps,
    /// so substreams never overlap.
    ///
    /// A job builds substreams 0, 1, 2, ... one per thread; each jump costs about a
    /// microsecond, so starting from the seed every time made setup quadratic in the thread
    /// count. The last substream built per seed is remembered (per OS thread, a few seeds),
    /// and the next one continues from it: one jump per thread. The result is identical.
    pub fn substream(seed: u64, index: u64) -> Self {
        let cached = LAST_SUBSTREAMS.with(|cell| {
            let cache = cell.borrow();
            cache
                .iter()
                .find(|(s, i, _)| *s == seed && *i <= index)
                .map(|(_, i, x)| (*i, x.clone()))
        });
        let (mut at, mut x) =
            cached.unwrap_or_else(|| (0, Xoshiro256PlusPlus::seed_from_u64(seed)));
        while at < index {
            jump(&mut x);
            at += 1;
        }
        if index > 0 {
            LAST_SUBSTREAMS.with(|cell| {
                let mut cache = cell.borrow_mut();
                cache.retain(|(s, _, _)| *s != seed);
                if cache.len() == SUBSTREAM_SEEDS {
                    cache.remove(0);
                }
                cache.push((seed, index, x.clone()));
            });
        }
        Self { inner: x }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `[0, n)`, unbiased (Lemire's multiply-shift with rejection). `n > 0`.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let mut m = (self.next_u64() as u128) * (n as u128);
        let mut low = m as u64;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                m = (self.next_u64() as u128) * (n as u128);
                low = m as u64;
            }
        }
        (m >> 64) as u64
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn fill_bytes(&mut self, buf: &mut [u8]) {
        self.inner.fill_bytes(buf)
    }
}

/// Seeds whose last substream is remembered: a job interleaves a page stream and a mix stream.
const SUBSTREAM_SEEDS: usize = 4;

thread_local! {
    /// (seed, index, generator of that substream), oldest first.
    static LAST_SUBSTREAMS: std::cell::RefCell<Vec<(u64, u64, Xoshiro256PlusPlus)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn jump(x: &mut Xoshiro256PlusPlus) {
    x.jump();
    #[cfg(test)]
    JUMPS.with(|j| j.set(j.get() + 1));
}

#[cfg(test)]
thread_local! {
    static JUMPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn jumps_so_far() -> u64 {
    JUMPS.with(|j| j.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_substreams_differ() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = SeededRng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..8)
            .map({
                let mut r = SeededRng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        let mut s0 = SeededRng::substream(7, 0);
        let mut s1 = SeededRng::substream(7, 1);
        assert_eq!(s0.next_u64(), a[0]);
        assert_ne!(s1.next_u64(), a[0]);
    }

    #[test]
    fn substreams_in_order_cost_one_jump_each() {
        // Reference: index jumps from the seed, done by hand.
        let reference = |seed: u64, index: u64| {
            let mut x = Xoshiro256PlusPlus::seed_from_u64(seed);
            for _ in 0..index {
                x.jump();
            }
            x.next_u64()
        };
        let before = jumps_so_far();
        // Two seeds interleaved, as a job builds a page stream and a mix stream per thread.
        for i in 0..300u64 {
            for seed in [5u64, 6] {
                assert_eq!(SeededRng::substream(seed, i).next_u64(), reference(seed, i));
            }
        }
        let jumps = jumps_so_far() - before;
        assert!(jumps <= 2 * 300, "{jumps} jumps for 2 x 300 substreams");
        // Out of order still gives the same streams.
        for i in [17u64, 3, 250, 0, 1] {
            assert_eq!(SeededRng::substream(5, i).next_u64(), reference(5, i));
        }
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = SeededRng::new(1);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[r.below(7) as usize] += 1;
        }
        for c in counts {
            // mean 10000, sigma ~ 93
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }
}
