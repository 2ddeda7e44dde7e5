//! 4 KiB page packing: compressed pages go into 4 KiB slots by best-fit decreasing, at most
//! [`PER_SLOT`] per slot, never straddling a slot, so every page is read with one aligned
//! 4 KiB I/O (paper §3.2).

use super::map::PER_SLOT;

/// A slot being filled: its free bytes and the items in it (indices into the input).
#[derive(Clone, Debug, Default)]
pub struct Bin {
    pub items: Vec<usize>,
    pub used: u32,
}

/// Packs items of the given sizes (1..=4096 bytes) into slots; returns the slots in the order
/// their first item appears in `order` (the caller's preferred order, e.g. by death time).
pub fn pack(sizes: &[u32], order: &[usize]) -> Vec<Bin> {
    let mut by_size: Vec<usize> = order.to_vec();
    by_size.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]));
    let mut bins: Vec<Bin> = Vec::new();
    // Open bins (not yet at PER_SLOT items), kept sorted by free bytes ascending so the best
    // fit is the first that fits.
    let mut open: Vec<(u32, usize)> = Vec::new();
    for i in by_size {
        let s = sizes[i];
        let p = open.partition_point(|x| x.0 < s);
        match (p < open.len()).then_some(p) {
            Some(p) => {
                let (_, b) = open.remove(p);
                bins[b].items.push(i);
                bins[b].used += s;
                if bins[b].items.len() < PER_SLOT {
                    insert_sorted(&mut open, (4096 - bins[b].used, b));
                }
            }
            None => {
                bins.push(Bin {
                    items: vec![i],
                    used: s,
                });
                if PER_SLOT > 1 && s < 4096 {
                    insert_sorted(&mut open, (4096 - s, bins.len() - 1));
                }
            }
        }
    }
    // Restore the caller's order: a bin goes where its earliest item was.
    let mut rank = vec![0usize; sizes.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    bins.sort_by_key(|b| b.items.iter().map(|&i| rank[i]).min().unwrap_or(0));
    bins
}

fn insert_sorted(open: &mut Vec<(u32, usize)>, e: (u32, usize)) {
    let at = open.partition_point(|x| x.0 < e.0);
    open.insert(at, e);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_large_with_small_and_keeps_limits() {
        let sizes = [3000, 1000, 2500, 1500, 4096, 900];
        let order: Vec<usize> = (0..sizes.len()).collect();
        let bins = pack(&sizes, &order);
        assert_eq!(bins.len(), 4, "{bins:?}");
        let mut seen = vec![false; sizes.len()];
        for b in &bins {
            assert!(b.items.len() <= PER_SLOT);
            assert!(b.items.iter().map(|&i| sizes[i]).sum::<u32>() <= 4096);
            for &i in &b.items {
                assert!(!seen[i]);
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert!(bins[0].items.contains(&0), "order follows the input");
    }
}
