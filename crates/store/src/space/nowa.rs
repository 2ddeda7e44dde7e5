//! NoWA bookkeeping (paper §5.4): the history of active groups, and which zones lag behind
//! in a group whose other zones were already rewritten (frequency imbalance).
//!
//! Invariants:
//! - Each zone's current contents were written as part of at most one recorded group
//!   (`zone_group`); a group's `live` count is the number of its zones still holding the
//!   contents written with it. A zone reset leaves its group.
//! - A group with 0 < live < size is *imbalanced*: its superblock(s) hold live data of the
//!   lagging zones beside invalid data of the others, which the SSD would have to copy.
//!   Compensation writes rewrite the lagging zones. Dead groups (live = 0) are dropped, so
//!   the history stays as small as the number of groups with live data.

pub const NO_GROUP: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Group {
    size: u32,
    live: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Groups {
    groups: Vec<Option<Group>>,
    free: Vec<u32>,
    zone_group: Vec<u32>,
    /// Zones whose group is imbalanced, by group (rebuilt on demand).
    pub recorded: u64,
}

impl Groups {
    pub fn new(zones: u32) -> Self {
        Groups {
            zone_group: vec![NO_GROUP; zones as usize],
            ..Default::default()
        }
    }

    /// Records `zones` (just written together) as one group.
    pub fn record(&mut self, zones: &[u32]) {
        let g = Group {
            size: zones.len() as u32,
            live: zones.len() as u32,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.groups[id as usize] = Some(g);
                id
            }
            None => {
                self.groups.push(Some(g));
                self.groups.len() as u32 - 1
            }
        };
        for &z in zones {
            debug_assert_eq!(self.zone_group[z as usize], NO_GROUP);
            self.zone_group[z as usize] = id;
        }
        self.recorded += 1;
    }

    /// Zone `z` is reset: it leaves its group.
    pub fn leave(&mut self, z: u32) {
        let g = std::mem::replace(&mut self.zone_group[z as usize], NO_GROUP);
        if g == NO_GROUP {
            return;
        }
        let grp = self.groups[g as usize].as_mut().expect("live group");
        grp.live -= 1;
        if grp.live == 0 {
            self.groups[g as usize] = None;
            self.free.push(g);
        }
    }

    /// Lagging zones of imbalanced groups, grouped by group.
    pub fn lagging(&self) -> Vec<Vec<u32>> {
        let mut by: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for (z, &g) in self.zone_group.iter().enumerate() {
            if g == NO_GROUP {
                continue;
            }
            let grp = self.groups[g as usize].as_ref().expect("live group");
            if grp.live < grp.size {
                by.entry(g).or_default().push(z as u32);
            }
        }
        by.into_values().collect()
    }

    /// Groups holding live data, and how many of them are imbalanced.
    pub fn counts(&self) -> (u64, u64) {
        let live = self.groups.iter().flatten().count() as u64;
        let imb = self
            .groups
            .iter()
            .flatten()
            .filter(|g| g.live < g.size)
            .count() as u64;
        (live, imb)
    }

    pub fn memory_bytes(&self) -> u64 {
        (self.zone_group.len() * 4 + self.groups.len() * 12 + self.free.len() * 4) as u64
    }

    /// Checks live counts against zone membership.
    pub fn check(&self) -> Result<(), String> {
        let mut live = vec![0u32; self.groups.len()];
        for &g in &self.zone_group {
            if g != NO_GROUP {
                live[g as usize] += 1;
            }
        }
        for (i, g) in self.groups.iter().enumerate() {
            let want = g.as_ref().map_or(0, |g| g.live);
            if want != live[i] {
                return Err(format!("group {i}: live {want}, zones say {}", live[i]));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imbalance_appears_and_heals() {
        let mut g = Groups::new(8);
        g.record(&[0, 1, 2, 3]);
        g.record(&[4, 5, 6, 7]);
        assert!(g.lagging().is_empty());
        g.leave(1);
        assert_eq!(g.lagging(), vec![vec![0, 2, 3]]);
        for z in [0, 2, 3] {
            g.leave(z);
        }
        assert!(g.lagging().is_empty());
        assert_eq!(g.counts(), (1, 0));
        g.check().unwrap();
        g.record(&[0, 1]);
        assert_eq!(g.counts(), (2, 0));
    }
}
