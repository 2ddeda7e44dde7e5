//! How a trace's address space lands on a target of `pages` pages.
//!
//! - `compact`: every distinct (device, page) the trace touches gets the next free target
//!   page, in order of first touch. Relabelling pages changes no overwrite, so the
//!   simulator's WAF is exactly the trace's; requests stay contiguous where their pages were
//!   first touched together (a replay splits them where they were not). Needs one map entry
//!   per distinct page, and the footprint must fit the target.
//! - `modulo`: target page = trace page mod `pages`, devices ignored. No memory; folds a
//!   large trace onto a small target, which merges distinct pages (and skews the skew).
//! - `direct`: target page = trace page, devices ignored; the trace must fit the target.
//!
//! Invariant: a map is a function of the trace alone (first-touch order of one front-to-back
//! read), so every run and every replay of the same trace sees the same mapping.

use rustc_hash::FxHashMap;

pub use ssdiq_schema::trace::MapKind;

/// Pages are keyed with the device's dense index in the top 16 bits.
pub const PAGE_KEY_BITS: u32 = 48;

/// Dense device indices, so (device, page) packs into one `u64` key.
#[derive(Clone, Debug, Default)]
pub struct PageKeys {
    devices: FxHashMap<u32, u64>,
    last: Option<(u32, u64)>,
}

impl PageKeys {
    /// The key of `page` on `device`; `None` beyond 2^48 pages or 65536 devices.
    #[inline]
    pub fn key(&mut self, device: u32, page: u64) -> Option<u64> {
        if page >> PAGE_KEY_BITS != 0 {
            return None;
        }
        let dev = match self.last {
            Some((d, i)) if d == device => i,
            _ => {
                let n = self.devices.len() as u64;
                let i = *self.devices.entry(device).or_insert(n);
                if i >> (64 - PAGE_KEY_BITS) != 0 {
                    return None;
                }
                self.last = Some((device, i));
                i
            }
        };
        Some(dev << PAGE_KEY_BITS | page)
    }
}

/// The `compact` map: dense target pages of the distinct pages of a trace.
#[derive(Clone, Debug, Default)]
pub struct Compaction {
    keys: PageKeys,
    index: FxHashMap<u64, u32>,
}

impl Compaction {
    /// The target page of `page` on `device`, assigning the next one on first touch; `None`
    /// if the footprint outgrows 2^32 pages or the key space.
    #[inline]
    pub fn assign(&mut self, device: u32, page: u64) -> Option<u64> {
        let key = self.keys.key(device, page)?;
        let next = self.index.len();
        if next >= u32::MAX as usize {
            return self.index.get(&key).map(|&v| v as u64);
        }
        Some(*self.index.entry(key).or_insert(next as u32) as u64)
    }

    /// The target page of `page` on `device`, if the trace touched it.
    #[inline]
    pub fn get(&self, device: u32, page: u64) -> Option<u64> {
        if page >> PAGE_KEY_BITS != 0 {
            return None;
        }
        let dev = *self.keys.devices.get(&device)?;
        self.index
            .get(&(dev << PAGE_KEY_BITS | page))
            .map(|&v| v as u64)
    }

    /// Distinct pages mapped.
    pub fn len(&self) -> u64 {
        self.index.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_is_dense_in_first_touch_order_per_device() {
        let mut c = Compaction::default();
        assert_eq!(c.assign(7, 1000), Some(0));
        assert_eq!(c.assign(7, 5), Some(1));
        assert_eq!(c.assign(9, 1000), Some(2));
        assert_eq!(c.assign(7, 1000), Some(0));
        assert_eq!(c.get(9, 1000), Some(2));
        assert_eq!(c.get(9, 5), None);
        assert_eq!(c.get(8, 5), None);
        assert_eq!(c.len(), 3);
        assert_eq!(c.assign(7, 1 << 48), None);
    }

    #[test]
    fn names() {
        for k in [MapKind::Compact, MapKind::Modulo, MapKind::Direct] {
            assert_eq!(k.to_string().parse::<MapKind>().unwrap(), k);
        }
        assert!("fold"
            .parse::<MapKind>()
            .unwrap_err()
            .contains("--trace-map \"fold\""));
    }
}
