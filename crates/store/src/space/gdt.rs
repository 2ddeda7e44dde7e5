//! Grouping by death time (paper §4.2): estimated death times (EDT) from each page's write
//! history, and the split of a write batch into groups of similar EDT.
//!
//! - User write: history WH_1..WH_n (page-write clock, oldest first, the current write last):
//!   EDT = now + (WH_n - WH_1) / (n - 1); a first write dies "now" (soonest).
//! - GC write: the page's last user-write EDT if it is still in the future and the page was
//!   user-written since it was last moved by GC; otherwise 2 x now (the coldest).
//! - Grouping: N buckets over [min EDT, max EDT] of the batch with linearly growing widths,
//!   the soonest-dying bucket the narrowest (ZLeanStore's `GroupPagesByEDT`).

/// EDT of a user write given the page's history (oldest first, `now` last).
pub fn user_edt(history: &[u64], now: u64) -> u64 {
    match history {
        [] | [_] => now,
        h => now + (h[h.len() - 1] - h[0]) / (h.len() as u64 - 1),
    }
}

/// Top bit of a stored EDT: the page was user-written since GC last moved it.
pub const USER_WRITTEN: u64 = 1 << 63;

/// EDT of a GC write of a page whose stored EDT (with flag) is `stored`.
pub fn gc_edt(stored: u64, now: u64) -> u64 {
    let edt = stored & !USER_WRITTEN;
    if stored & USER_WRITTEN != 0 && edt > now {
        edt
    } else {
        2 * now.max(1)
    }
}

/// Splits `items` (indices with EDTs) into at most `n` groups of similar EDT, soonest first.
pub fn group(edts: &[u64], n: usize) -> Vec<Vec<usize>> {
    let mut idx: Vec<usize> = (0..edts.len()).collect();
    if idx.is_empty() {
        return Vec::new();
    }
    idx.sort_by_key(|&i| edts[i]);
    let (lo, hi) = (edts[idx[0]], edts[idx[idx.len() - 1]]);
    let n = n.max(1);
    if n == 1 || hi == lo {
        return vec![idx];
    }
    let total = (n * (n + 1) / 2) as f64;
    let mut bounds = Vec::with_capacity(n);
    let mut acc = 0.0;
    for i in 0..n {
        acc += (i + 1) as f64 / total;
        bounds.push(lo as f64 + acc * (hi - lo) as f64);
    }
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in idx {
        let b = bounds
            .iter()
            .position(|&b| edts[i] as f64 <= b)
            .unwrap_or(n - 1);
        groups[b].push(i);
    }
    groups.retain(|g| !g.is_empty());
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates() {
        assert_eq!(user_edt(&[100], 100), 100);
        assert_eq!(user_edt(&[10, 40, 70, 100], 100), 130);
        assert_eq!(gc_edt(500 | USER_WRITTEN, 100), 500);
        assert_eq!(gc_edt(500, 100), 200, "moved by GC since: coldest");
        assert_eq!(gc_edt(50 | USER_WRITTEN, 100), 200, "already past");
    }

    #[test]
    fn two_groups_split_at_a_third() {
        let edts = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90];
        let g = group(&edts, 2);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0], vec![0, 1, 2, 3], "EDT <= 30 is the soonest third");
        assert_eq!(group(&[5, 5, 5], 2).len(), 1);
    }
}
