//! The PID-to-location map and its reverse (which pages each 4 KiB slot holds).
//!
//! Invariants (checked by [`Maps::check`]):
//! - `loc[pid]` is `NONE` or (slot, byte offset in the slot, stored size); a page never
//!   straddles a slot: offset + size <= 4096.
//! - `pid` is *valid* in slot `s` iff `loc[pid]` points into `s`. Then `s`'s reverse entries
//!   list `pid`. Reverse entries of pages since moved are stale and ignored.
//! - A slot holds at most [`PER_SLOT`] pages (ZLeanStore's two per 4 KiB).
//!
//! Memory: 8 bytes per page plus 8 bytes per slot.

use crate::pool::NIL;

pub const PER_SLOT: usize = 2;
pub const NONE: u64 = u64::MAX;

/// Where a page is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub slot: u64,
    /// Byte offset of the page inside its slot.
    pub offset: u32,
    /// Stored bytes (4096: uncompressed).
    pub size: u32,
}

impl Loc {
    #[inline]
    pub fn pack(self) -> u64 {
        debug_assert!(self.offset < 4096 && (1..=4096).contains(&self.size));
        (self.slot << 24) | ((self.offset as u64) << 12) | (self.size as u64 - 1)
    }
    #[inline]
    pub fn unpack(v: u64) -> Option<Loc> {
        (v != NONE).then_some(Loc {
            slot: v >> 24,
            offset: ((v >> 12) & 0xFFF) as u32,
            size: (v & 0xFFF) as u32 + 1,
        })
    }
}

pub struct Maps {
    loc: Vec<u64>,
    rev: Vec<u32>,
}

impl Maps {
    pub fn new(pages: u64, slots: u64) -> Self {
        Maps {
            loc: vec![NONE; pages as usize],
            rev: vec![NIL; slots as usize * PER_SLOT],
        }
    }

    #[inline]
    pub fn get(&self, pid: u64) -> Option<Loc> {
        Loc::unpack(self.loc[pid as usize])
    }

    /// Points `pid` at `at` (recording it in the slot's reverse entries); returns the old
    /// location.
    #[inline]
    pub fn set(&mut self, pid: u64, at: Loc) -> Option<Loc> {
        let s = at.slot as usize * PER_SLOT;
        let e = self.rev[s..s + PER_SLOT]
            .iter()
            .position(|&p| p == NIL || p as u64 == pid)
            .expect("a slot holds at most PER_SLOT pages");
        self.rev[s + e] = pid as u32;
        let old = std::mem::replace(&mut self.loc[pid as usize], at.pack());
        Loc::unpack(old)
    }

    /// Forgets where `pid` is (its only current copy is in memory); returns the old location.
    pub fn unmap(&mut self, pid: u64) -> Option<Loc> {
        Loc::unpack(std::mem::replace(&mut self.loc[pid as usize], NONE))
    }

    /// The pages valid in `slot`.
    #[inline]
    pub fn valid_in(&self, slot: u64) -> impl Iterator<Item = (u64, Loc)> + '_ {
        let s = slot as usize * PER_SLOT;
        self.rev[s..s + PER_SLOT].iter().filter_map(move |&p| {
            if p == NIL {
                return None;
            }
            let l = self.get(p as u64)?;
            (l.slot == slot).then_some((p as u64, l))
        })
    }

    /// Clears the reverse entries of `slots` (a zone being reset).
    pub fn clear_slots(&mut self, slots: std::ops::Range<u64>) {
        self.rev[slots.start as usize * PER_SLOT..slots.end as usize * PER_SLOT].fill(NIL);
    }

    pub fn memory_bytes(&self) -> u64 {
        (self.loc.len() * 8 + self.rev.len() * 4) as u64
    }

    /// Checks both maps against each other: O(pages + slots).
    pub fn check(&self) -> Result<(), String> {
        for (pid, &v) in self.loc.iter().enumerate() {
            let Some(l) = Loc::unpack(v) else { continue };
            if l.offset + l.size > 4096 {
                return Err(format!("page {pid} straddles its slot: {l:?}"));
            }
            let s = l.slot as usize * PER_SLOT;
            if !self.rev[s..s + PER_SLOT].contains(&(pid as u32)) {
                return Err(format!(
                    "page {pid} at {l:?} is missing from the reverse map"
                ));
            }
        }
        for slot in 0..(self.rev.len() / PER_SLOT) as u64 {
            let mut v: Vec<Loc> = self.valid_in(slot).map(|(_, l)| l).collect();
            v.sort_by_key(|l| l.offset);
            for w in v.windows(2) {
                if w[0].offset + w[0].size > w[1].offset {
                    return Err(format!("slot {slot}: pages overlap: {w:?}"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_roundtrip_and_validity() {
        let l = Loc {
            slot: (1 << 39) + 5,
            offset: 2048,
            size: 4096 - 2048,
        };
        assert_eq!(Loc::unpack(l.pack()), Some(l));
        let mut m = Maps::new(10, 4);
        m.set(
            3,
            Loc {
                slot: 1,
                offset: 0,
                size: 2000,
            },
        );
        m.set(
            4,
            Loc {
                slot: 1,
                offset: 2000,
                size: 2000,
            },
        );
        assert_eq!(m.valid_in(1).count(), 2);
        let old = m.set(
            3,
            Loc {
                slot: 2,
                offset: 0,
                size: 4096,
            },
        );
        assert_eq!(old.unwrap().slot, 1);
        assert_eq!(m.valid_in(1).map(|x| x.0).collect::<Vec<_>>(), vec![4]);
        m.check().unwrap();
        m.clear_slots(1..2);
        assert!(m.check().is_err(), "page 4 lost its reverse entry");
    }
}
