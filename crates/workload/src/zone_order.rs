//! Which zone a `zns:` stream rewrites next ([`ZoneOrder`]).
//!
//! Invariants:
//! - The random order draws only from the stream's rng, as it always has, so `zns:SIZE`
//!   streams are unchanged by the `:apart` order's existence.
//! - The apart order uses no randomness: round `r` writes, at position `p`, zone
//!   `zones[p]` when `r` is even and `zones[p * s mod m]` when `r` is odd, with `m` the
//!   largest multiple of 4 at most the stream's zone count and `s = m/2 + 1`. As `m` is a
//!   multiple of 4, `s * s = 1 (mod m)`, so each round rewrites in order `p * s` the zones the
//!   previous round wrote at `p`: zones written one after the other come back `s` positions
//!   apart (`m/2 - 1` once the round wraps). The last `< 4` zones are never written.

use crate::pattern::ZoneOrder;
use crate::rng::SeededRng;

#[derive(Clone, Debug)]
pub(crate) enum ZonePicker {
    Random,
    Apart { used: u64, round: u64, pos: u64 },
}

impl ZonePicker {
    /// A picker over `zones` zones with `open` of them open at once; `None` when the apart
    /// order has fewer than 4 to use, or no more than are open (it could never pick one).
    pub(crate) fn new(order: ZoneOrder, zones: usize, open: usize) -> Option<Self> {
        match order {
            ZoneOrder::Random => Some(ZonePicker::Random),
            ZoneOrder::Apart => {
                let used = zones as u64 / 4 * 4;
                (used >= 4 && used > open as u64).then_some(ZonePicker::Apart {
                    used,
                    round: 0,
                    pos: 0,
                })
            }
        }
    }

    /// The next zone of `zones` to open, not one of `open` (only possible with several
    /// open zones: the apart order then skips a zone still open at a round's start).
    pub(crate) fn next(&mut self, rng: &mut SeededRng, zones: &[u64], open: &[u64]) -> u64 {
        loop {
            let z = match self {
                ZonePicker::Random => zones[rng.below(zones.len() as u64) as usize],
                ZonePicker::Apart { used, round, pos } => {
                    let m = *used;
                    let i = if *round % 2 == 0 {
                        *pos
                    } else {
                        (*pos as u128 * (m / 2 + 1) as u128 % m as u128) as u64
                    };
                    *pos += 1;
                    if *pos == m {
                        *pos = 0;
                        *round += 1;
                    }
                    zones[i as usize]
                }
            };
            if !open.contains(&z) {
                return z;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds(zones: usize, n: usize) -> Vec<Vec<u64>> {
        let ids: Vec<u64> = (0..zones as u64).collect();
        let mut p = ZonePicker::new(ZoneOrder::Apart, zones, 1).unwrap();
        let mut rng = SeededRng::new(1);
        let used = zones / 4 * 4;
        (0..n)
            .map(|_| (0..used).map(|_| p.next(&mut rng, &ids, &[])).collect())
            .collect()
    }

    #[test]
    fn every_round_writes_each_used_zone_once() {
        for zones in [4, 5, 8, 11, 64, 102] {
            for r in rounds(zones, 3) {
                let mut s = r.clone();
                s.sort_unstable();
                assert_eq!(s, (0..zones as u64 / 4 * 4).collect::<Vec<_>>(), "{zones}");
            }
        }
    }

    #[test]
    fn neighbours_of_one_round_are_far_apart_in_the_next() {
        for zones in [8, 64, 102, 1000] {
            let m = (zones / 4 * 4) as i64;
            let rs = rounds(zones, 4);
            for w in rs.windows(2) {
                let at = |z: u64| w[1].iter().position(|&x| x == z).unwrap() as i64;
                for pair in w[0].windows(2) {
                    let d = (at(pair[0]) - at(pair[1])).abs();
                    assert!(
                        d.min(m - d) >= m / 2 - 1,
                        "{zones} zones: {pair:?} {d} apart"
                    );
                }
            }
        }
    }

    #[test]
    fn too_few_zones_for_the_apart_order() {
        assert!(ZonePicker::new(ZoneOrder::Apart, 3, 1).is_none());
        // 10 zones use 8: with 8 open, none would be left to pick.
        assert!(ZonePicker::new(ZoneOrder::Apart, 10, 8).is_none());
        assert!(ZonePicker::new(ZoneOrder::Apart, 10, 7).is_some());
        assert!(ZonePicker::new(ZoneOrder::Random, 1, 0).is_some());
    }
}
