//! Deterministic slices of a sweep: `K/N` holds points `i` with `i % N == K - 1`.
//!
//! Round-robin rather than contiguous blocks: sweeps list their most expensive dimension
//! (capacity) outermost, so contiguous slices would give one shard all the big drives.

use std::fmt;
use std::str::FromStr;

use ssdiq_schema::sim::ShardId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub k: u32,
    pub n: u32,
}

impl Shard {
    /// True if point `index` belongs to this shard.
    #[inline]
    pub fn holds(&self, index: usize) -> bool {
        index % self.n as usize == (self.k - 1) as usize
    }

    /// The points of this shard, in sweep order.
    pub fn select<'a, T>(&self, points: &'a [T]) -> Vec<&'a T> {
        points
            .iter()
            .enumerate()
            .filter(|(i, _)| self.holds(*i))
            .map(|(_, p)| p)
            .collect()
    }

    pub fn id(&self) -> ShardId {
        ShardId {
            k: self.k,
            n: self.n,
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = |why: &str| format!("invalid --shard \"{s}\": {why}");
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| bad("expected K/N, e.g. 2/8"))?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| bad("K is not a whole number"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        if n == 0 {
            return Err(bad("N must be >= 1"));
        }
        if k == 0 || k > n {
            return Err(bad(&format!("K must be between 1 and N ({n})")));
        }
        Ok(Shard { k, n })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parse() {
        assert_eq!("2/8".parse::<Shard>(), Ok(Shard { k: 2, n: 8 }));
        for bad in ["0/4", "5/4", "1/0", "1", "a/b", "1/2/3"] {
            assert!(bad.parse::<Shard>().unwrap_err().contains(bad), "{bad}");
        }
    }

    proptest! {
        /// The shards of a sweep partition its points: each point in exactly one shard.
        #[test]
        fn shards_partition_the_points(points in 0usize..200, n in 1u32..20) {
            let all: Vec<usize> = (0..points).collect();
            let mut seen = vec![0u32; points];
            for k in 1..=n {
                for &&i in &(Shard { k, n }).select(&all) {
                    seen[i] += 1;
                }
            }
            prop_assert!(seen.iter().all(|&c| c == 1));
        }
    }
}
