//! Out-of-place space management: zones (the DB GC unit), the PID map and reverse map,
//! placement of write batches (random open zone, or GDT), greedy DB GC in rounds of
//! `max_open` victims, NoWA groups and compensation, and the FDP and ZNS write paths.
//!
//! Invariants (checked by [`Space::check`]):
//! - Every zone is exactly one of: empty (in `empty`, write pointer 0), active (in `active`;
//!   appended to), full (write pointer at capacity, not active). With NoWA a full zone stays
//!   active until every zone of its active group is full; then the group is recorded and the
//!   next group opens (rule 1 of NoWA).
//! - Zones are written sequentially from slot 0 after a reset; `valid[z]` counts the pages
//!   whose map entry points into `z`.
//! - GC runs only when no active zone has room and no zone is empty (ZLeanStore's trigger):
//!   it takes `max_open` victims at once, reads their valid pages, resets them and writes the
//!   pages back from slot 0 (coldest first with GDT, into the most-reset zones first); the
//!   victims become the next active group. Pages resident and dirty in the buffer pool are
//!   not moved: their eviction writes them anyway (their map entry is cleared meanwhile).
//! - With NoWA, compensation victims (the lagging zones of imbalanced groups) come before
//!   greedy ones, so every superblock-sized group is rewritten as a whole before the SSD
//!   needs its space.
//! - FDP: each zone gets a placement handle when it becomes active (its id modulo the
//!   handles, or the lowest handle no other active zone uses) and keeps it until reset.
//! - ZNS: writes are zone appends; the device's returned offset must be the tracked write
//!   pointer (one writer per zone); victims are reset on the device before they are refilled.

pub mod gdt;
pub mod map;
pub mod nowa;
pub mod pack;

use std::collections::VecDeque;

use ssdiq_workload::SeededRng;

use crate::device::{Device, Placement};
pub use crate::error::SpaceError;
use map::{Loc, Maps, PER_SLOT};
use nowa::Groups;
pub use ssdiq_schema::store::{Backend, SpaceConfig, SpaceCounters};

const SLOT: usize = 4096;

/// What a write is for (for the drilldown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Load,
    User,
}

/// One page to write: its stored bytes are `src[off..off + len]`.
#[derive(Clone, Copy, Debug)]
pub struct Item {
    pub pid: u64,
    pub off: usize,
    pub len: u32,
    pub edt: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Empty,
    Active,
    Full,
}

#[derive(Clone, Copy, Debug)]
struct Zone {
    wp: u32,
    valid: u32,
    total: u32,
    resets: u32,
    state: State,
    /// NoWA: full but still in the active group.
    in_active: bool,
    edt_sum: f64,
    edt_n: u32,
    plid: u16,
}

/// Where the slot images of a packed group are.
#[derive(Clone, Copy, Debug)]
enum Images {
    /// Built in the slot buffer.
    Built,
    /// The source itself from this offset (whole pages, contiguous).
    InSource(usize),
}

/// A unit of GC data: one page, or a whole slot whose pages are both still valid.
#[derive(Clone, Copy, Debug)]
struct Unit {
    src: usize,
    size: u32,
    pids: [(u64, u32, u32); PER_SLOT],
    n: u8,
    edt: u64,
    /// From a compensation victim (NoWA).
    comp: bool,
}

pub struct Space {
    cfg: SpaceConfig,
    spz: u64,
    maps: Maps,
    zones: Vec<Zone>,
    empty: VecDeque<u32>,
    active: Vec<u32>,
    groups: Groups,
    /// Per page: last user-write EDT with the [`gdt::USER_WRITTEN`] flag (GDT only).
    edt_of: Vec<u64>,
    rng: SeededRng,
    pub counters: SpaceCounters,
    /// Pages have contents (false: the store's model data mode, requests by length).
    bytes: bool,
    slot_buf: Vec<u8>,
    gc_buf: Vec<u8>,
}

impl Space {
    /// The heap [`Space::new`] allocates for `pages` pages, and what its zone groups and
    /// active lists grow to (at most a few words a zone).
    pub fn heap_bytes(cfg: &SpaceConfig, pages: u64) -> u64 {
        let zones = cfg.zones as u64;
        let slots = cfg.zone_capacity / SLOT as u64 * zones;
        let edt = if cfg.gdt.is_some() { pages * 4 } else { 0 };
        pages * 8
            + slots * map::PER_SLOT as u64 * 4
            + zones * (std::mem::size_of::<Zone>() as u64 + 4 + 64)
            + edt
    }

    /// Space for `pages` pages; `bytes` false: no contents, device requests by length.
    pub fn new(cfg: SpaceConfig, pages: u64, bytes: bool) -> Space {
        assert!(cfg.zone_capacity >= SLOT as u64 && cfg.zone_capacity <= cfg.zone_bytes);
        assert!(cfg.max_open >= 1 && cfg.zones > cfg.max_open);
        let spz = cfg.zone_capacity / SLOT as u64;
        Space {
            spz,
            maps: Maps::new(pages, spz * cfg.zones as u64),
            zones: vec![
                Zone {
                    wp: 0,
                    valid: 0,
                    total: 0,
                    resets: 0,
                    state: State::Empty,
                    in_active: false,
                    edt_sum: 0.0,
                    edt_n: 0,
                    plid: 0,
                };
                cfg.zones as usize
            ],
            empty: (0..cfg.zones).collect(),
            active: Vec::new(),
            groups: Groups::new(cfg.zones),
            edt_of: if cfg.gdt.is_some() {
                vec![0; pages as usize]
            } else {
                Vec::new()
            },
            rng: SeededRng::new(cfg.seed ^ 0x5bace),
            counters: SpaceCounters::default(),
            bytes,
            slot_buf: Vec::new(),
            gc_buf: Vec::new(),
            cfg,
        }
    }

    pub fn config(&self) -> &SpaceConfig {
        &self.cfg
    }

    /// Device byte offset of global slot `s`.
    #[inline]
    pub fn slot_offset(&self, s: u64) -> u64 {
        (s / self.spz) * self.cfg.zone_bytes + (s % self.spz) * SLOT as u64
    }

    /// Where page `pid` is stored: (device offset of its slot, location).
    #[inline]
    pub fn locate(&self, pid: u64) -> Option<(u64, Loc)> {
        self.maps.get(pid).map(|l| (self.slot_offset(l.slot), l))
    }

    /// Bytes of in-memory metadata: both maps, zone table, group history, EDTs.
    pub fn metadata_bytes(&self) -> u64 {
        self.maps.memory_bytes()
            + (self.zones.len() * std::mem::size_of::<Zone>()) as u64
            + self.groups.memory_bytes()
            + (self.edt_of.len() * 8) as u64
            + (self.empty.capacity() + self.active.capacity()) as u64 * 4
    }

    /// (groups with live data, imbalanced groups).
    pub fn group_counts(&self) -> (u64, u64) {
        self.groups.counts()
    }

    /// Writes a batch: groups it by EDT (GDT), packs each group into slots, places them.
    /// `dirty(pid)` says whether a page is resident and dirty in the buffer pool.
    pub fn write(
        &mut self,
        dev: &mut dyn Device,
        kind: Kind,
        src: &[u8],
        items: &[Item],
        now: u64,
        dirty: &dyn Fn(u64) -> bool,
    ) -> Result<(), SpaceError> {
        if items.is_empty() {
            return Ok(());
        }
        let groups = match self.cfg.gdt {
            Some(n) => {
                let edts: Vec<u64> = items.iter().map(|i| i.edt).collect();
                gdt::group(&edts, n as usize)
            }
            None => vec![(0..items.len()).collect()],
        };
        for g in groups {
            let units: Vec<Unit> = g
                .iter()
                .map(|&i| {
                    let it = items[i];
                    Unit {
                        src: it.off,
                        size: it.len,
                        pids: [(it.pid, 0, it.len), (0, 0, 0)],
                        n: 1,
                        edt: it.edt,
                        comp: false,
                    }
                })
                .collect();
            let edt = units.iter().map(|u| u.edt as f64).sum::<f64>() / units.len() as f64;
            if kind == Kind::User && !self.edt_of.is_empty() {
                for u in &units {
                    self.edt_of[u.pids[0].0 as usize] = u.edt | gdt::USER_WRITTEN;
                }
            }
            let bins = self.pack_units(&units);
            // GC inside `zone_for` uses `slot_buf` too: this group's slots live apart.
            let mut slots = std::mem::take(&mut self.slot_buf);
            let images = self.slot_images(&mut slots, src, &units, &bins);
            let mut next = 0;
            while next < bins.len() {
                let z = match self.zone_for(dev, edt, now, dirty) {
                    Ok(z) => z,
                    Err(e) => {
                        self.slot_buf = slots;
                        return Err(e);
                    }
                };
                let room = (self.spz - self.zones[z as usize].wp as u64) as usize;
                let n = room.min(bins.len() - next);
                let data = images.map(|b| match b {
                    Images::Built => &slots[next * SLOT..(next + n) * SLOT],
                    Images::InSource(at) => &src[at + next * SLOT..at + (next + n) * SLOT],
                });
                if let Err(e) = self.write_slots(dev, z, data, next, n, &units, &bins) {
                    self.slot_buf = slots;
                    return Err(e);
                }
                match kind {
                    Kind::Load => self.counters.load_slots += n as u64,
                    Kind::User => self.counters.user_slots += n as u64,
                }
                next += n;
            }
            self.slot_buf = slots;
        }
        Ok(())
    }

    fn pack_units(&self, units: &[Unit]) -> Vec<Vec<usize>> {
        let sizes: Vec<u32> = units.iter().map(|u| u.size).collect();
        let order: Vec<usize> = (0..units.len()).collect();
        pack::pack(&sizes, &order)
            .into_iter()
            .map(|b| b.items)
            .collect()
    }

    /// Where the slot images of packed units are: None without contents; else in `src`
    /// already (every slot one whole page, in order and contiguous: nothing to copy), or
    /// built in `out`.
    fn slot_images(
        &self,
        out: &mut Vec<u8>,
        src: &[u8],
        units: &[Unit],
        bins: &[Vec<usize>],
    ) -> Option<Images> {
        if !self.bytes {
            return None;
        }
        out.clear();
        let Some(first) = bins.first() else {
            return Some(Images::Built);
        };
        let base = units[first[0]].src;
        let whole = bins.iter().enumerate().all(|(b, bin)| {
            let u = &units[bin[0]];
            bin.len() == 1 && u.size == SLOT as u32 && u.src == base + b * SLOT
        });
        if whole {
            return Some(Images::InSource(base));
        }
        for (b, bin) in bins.iter().enumerate() {
            for &u in bin {
                let un = &units[u];
                out.extend_from_slice(&src[un.src..un.src + un.size as usize]);
            }
            out.resize((b + 1) * SLOT, 0);
        }
        Some(Images::Built)
    }

    /// Writes bins `first..first + n` (their slot images `data`, None without contents) at
    /// zone `z`'s write pointer and points their pages there.
    #[allow(clippy::too_many_arguments)]
    fn write_slots(
        &mut self,
        dev: &mut dyn Device,
        z: u32,
        data: Option<&[u8]>,
        first: usize,
        n: usize,
        units: &[Unit],
        bins: &[Vec<usize>],
    ) -> Result<(), SpaceError> {
        let zone = self.zones[z as usize];
        let start_slot = z as u64 * self.spz + zone.wp as u64;
        let want = self.slot_offset(start_slot);
        let len = (n * SLOT) as u64;
        match self.cfg.backend {
            Backend::Zns => {
                let got = match data {
                    Some(d) => dev.zone_append(z, d)?,
                    None => dev.zone_append_len(z, len)?,
                };
                if got != want {
                    return Err(SpaceError::Misplaced { zone: z, got, want });
                }
            }
            Backend::Fdp { .. } | Backend::Conventional => {
                let p = match self.cfg.backend {
                    Backend::Fdp { .. } => Placement::Stream(zone.plid),
                    _ => Placement::None,
                };
                match data {
                    Some(d) => dev.write(want, d, p)?,
                    None => dev.write_len(want, len, p)?,
                }
            }
        }
        for (i, bin) in bins[first..first + n].iter().enumerate() {
            let slot = start_slot + i as u64;
            let mut cur = 0u32;
            for &u in bin {
                let un = &units[u];
                for &(pid, off, size) in &un.pids[..un.n as usize] {
                    let at = Loc {
                        slot,
                        offset: cur + off,
                        size,
                    };
                    if let Some(old) = self.maps.set(pid, at) {
                        self.zones[(old.slot / self.spz) as usize].valid -= 1;
                    }
                    let zz = &mut self.zones[z as usize];
                    zz.valid += 1;
                    zz.total += 1;
                    zz.edt_sum += un.edt as f64;
                    zz.edt_n += 1;
                }
                cur += un.size;
            }
        }
        let zz = &mut self.zones[z as usize];
        zz.wp += n as u32;
        if zz.wp as u64 == self.spz {
            zz.state = State::Full;
            if !self.cfg.nowa {
                zz.in_active = false;
                self.active.retain(|&a| a != z);
            }
        }
        Ok(())
    }

    /// Makes `z` active (from empty, or as a GC victim).
    fn activate(&mut self, z: u32) {
        let handles = match self.cfg.backend {
            Backend::Fdp { handles } => handles,
            _ => 1,
        };
        let used: Vec<u16> = self
            .active
            .iter()
            .map(|&a| self.zones[a as usize].plid)
            .collect();
        let pref = (z % handles as u32) as u16;
        let plid = if !used.contains(&pref) {
            pref
        } else {
            (0..handles).find(|h| !used.contains(h)).unwrap_or(pref)
        };
        let zz = &mut self.zones[z as usize];
        zz.state = State::Active;
        zz.in_active = true;
        zz.plid = plid;
        self.active.push(z);
    }

    /// The zone the next slots of a group with mean EDT `edt` go to; opens zones or runs a
    /// GC round as needed.
    fn zone_for(
        &mut self,
        dev: &mut dyn Device,
        edt: f64,
        now: u64,
        dirty: &dyn Fn(u64) -> bool,
    ) -> Result<u32, SpaceError> {
        let k = self.cfg.max_open as usize;
        loop {
            if self.cfg.nowa {
                if self.active.is_empty() {
                    while self.active.len() < k {
                        let Some(z) = self.empty.pop_front() else {
                            break;
                        };
                        self.activate(z);
                    }
                }
            } else {
                while self.active.len() < k {
                    let Some(z) = self.empty.pop_front() else {
                        break;
                    };
                    self.activate(z);
                }
            }
            let spz = self.spz as u32;
            let cands: Vec<u32> = self
                .active
                .iter()
                .copied()
                .filter(|&z| self.zones[z as usize].wp < spz)
                .collect();
            if !cands.is_empty() {
                if self.cfg.gdt.is_some() {
                    let zone_edt = |z: u32| {
                        let zz = &self.zones[z as usize];
                        if zz.edt_n == 0 {
                            now as f64
                        } else {
                            zz.edt_sum / zz.edt_n as f64
                        }
                    };
                    let best = cands
                        .iter()
                        .copied()
                        .min_by(|&a, &b| {
                            (zone_edt(a) - edt)
                                .abs()
                                .total_cmp(&(zone_edt(b) - edt).abs())
                        })
                        .expect("non-empty");
                    return Ok(best);
                }
                return Ok(cands[self.rng.below(cands.len() as u64) as usize]);
            }
            if self.cfg.nowa && !self.active.is_empty() {
                let group = std::mem::take(&mut self.active);
                for &z in &group {
                    self.zones[z as usize].in_active = false;
                }
                self.groups.record(&group);
                self.counters.groups_recorded += 1;
                continue;
            }
            if !self.empty.is_empty() {
                continue;
            }
            self.gc_round(dev, now, dirty)?;
        }
    }

    /// Picks up to `max_open` victims: NoWA compensation first, then greedy (fewest valid
    /// pages among full zones with at least one invalid page).
    fn select_victims(&mut self) -> Vec<u32> {
        let k = self.cfg.max_open as usize;
        let mut chosen: Vec<u32> = Vec::with_capacity(k);
        let eligible = |z: &Zone| z.state == State::Full && !z.in_active;
        if self.cfg.nowa {
            let mut lag: Vec<(u64, Vec<u32>)> = self
                .groups
                .lagging()
                .into_iter()
                .map(|g| {
                    let g: Vec<u32> = g
                        .into_iter()
                        .filter(|&z| eligible(&self.zones[z as usize]))
                        .collect();
                    let v = g.iter().map(|&z| self.zones[z as usize].valid as u64).sum();
                    (v, g)
                })
                .collect();
            lag.sort_by_key(|(v, _)| *v);
            'outer: for (_, mut g) in lag {
                g.sort_by_key(|&z| self.zones[z as usize].valid);
                for z in g {
                    if chosen.len() == k {
                        break 'outer;
                    }
                    chosen.push(z);
                    self.counters.compensation_victims += 1;
                }
            }
        }
        if chosen.len() < k {
            let mut cands: Vec<(u32, u32)> = self
                .zones
                .iter()
                .enumerate()
                .filter(|(z, zz)| {
                    eligible(zz) && zz.valid < zz.total && !chosen.contains(&(*z as u32))
                })
                .map(|(z, zz)| (zz.valid, z as u32))
                .collect();
            let need = k - chosen.len();
            if cands.len() > need {
                cands.select_nth_unstable(need - 1);
                cands.truncate(need);
            }
            cands.sort_unstable();
            chosen.extend(cands.into_iter().map(|(_, z)| z));
        }
        chosen
    }

    /// One DB GC round: `max_open` victims are read, reset and refilled with their valid pages.
    fn gc_round(
        &mut self,
        dev: &mut dyn Device,
        now: u64,
        dirty: &dyn Fn(u64) -> bool,
    ) -> Result<(), SpaceError> {
        let comp_before = self.counters.compensation_victims;
        let mut victims = self.select_victims();
        let compensation = self.counters.compensation_victims - comp_before;
        if victims.is_empty() {
            return Err(SpaceError::Full(self.zones.len() as u32));
        }
        self.counters.gc_rounds += 1;
        self.counters.victims += victims.len() as u64;
        // Kept between rounds (grown, never cleared): reads overwrite what they use.
        let mut gc_buf = std::mem::take(&mut self.gc_buf);
        let mut units: Vec<Unit> = Vec::new();
        // Valid pages of the victims' slots, flat: (slot, pid, location).
        let mut live: Vec<(u64, u64, Loc)> = Vec::new();
        let mut read_at = 0usize;
        for (vi, &z) in victims.iter().enumerate() {
            let comp = vi < compensation as usize;
            let zz = self.zones[z as usize];
            self.counters.victim_valid_pages += zz.valid as u64;
            self.counters.victim_pages += zz.total as u64;
            let base = z as u64 * self.spz;
            // Pages whose newest copy is a dirty frame stay there.
            live.clear();
            for s in base..base + zz.wp as u64 {
                let here = self.maps.valid_in(s);
                let mut pages = [(0u64, None); PER_SLOT];
                let mut n = 0;
                for (pid, l) in here {
                    pages[n] = (pid, Some(l));
                    n += 1;
                }
                for &(pid, l) in &pages[..n] {
                    if dirty(pid) {
                        self.maps.unmap(pid);
                        self.counters.gc_pages_in_memory += 1;
                    } else {
                        live.push((s, pid, l.expect("set above")));
                    }
                }
            }
            // Read runs of consecutive slots with live pages; `live` is in slot order.
            let mut i = 0;
            while i < live.len() {
                let first = live[i].0;
                let mut j = i + 1;
                while j < live.len() && live[j].0 <= live[j - 1].0 + 1 {
                    j += 1;
                }
                let slots = (live[j - 1].0 - first + 1) as usize;
                let len = slots * SLOT;
                let at = read_at;
                read_at += len;
                if self.bytes {
                    if gc_buf.len() < at + len {
                        gc_buf.resize(at + len, 0);
                    }
                    dev.read(self.slot_offset(first), &mut gc_buf[at..at + len])?;
                } else {
                    dev.read_len(self.slot_offset(first), len as u64)?;
                }
                self.counters.gc_read_bytes += len as u64;
                let mut k = i;
                while k < j {
                    let s = live[k].0;
                    let mut e = k + 1;
                    while e < j && live[e].0 == s {
                        e += 1;
                    }
                    let slot_at = at + (s - first) as usize * SLOT;
                    if e - k == PER_SLOT {
                        let mut pids = [(0u64, 0u32, 0u32); PER_SLOT];
                        let mut edt = 0;
                        for (n, &(_, pid, l)) in live[k..e].iter().enumerate() {
                            pids[n] = (pid, l.offset, l.size);
                            edt = edt.max(self.gc_edt(pid, now));
                        }
                        units.push(Unit {
                            src: slot_at,
                            size: SLOT as u32,
                            pids,
                            n: PER_SLOT as u8,
                            edt,
                            comp,
                        });
                    } else {
                        for &(_, pid, l) in &live[k..e] {
                            units.push(Unit {
                                src: slot_at + l.offset as usize,
                                size: l.size,
                                pids: [(pid, 0, l.size), (0, 0, 0)],
                                n: 1,
                                edt: self.gc_edt(pid, now),
                                comp,
                            });
                        }
                    }
                    k = e;
                }
                i = j;
            }
        }
        // Every moved page leaves its old location before the victims are reset.
        for u in &units {
            for &(pid, _, _) in &u.pids[..u.n as usize] {
                self.maps.unmap(pid);
                if !self.edt_of.is_empty() {
                    self.edt_of[pid as usize] &= !gdt::USER_WRITTEN;
                }
            }
        }
        self.counters.gc_pages_moved += units.iter().map(|u| u.n as u64).sum::<u64>();
        for &z in &victims {
            self.reset(dev, z)?;
        }
        // Coldest pages into the most-reset zones.
        victims.sort_by_key(|&z| std::cmp::Reverse(self.zones[z as usize].resets));
        for &z in &victims {
            self.activate(z);
        }
        if self.cfg.gdt.is_some() {
            units.sort_by_key(|u| std::cmp::Reverse(u.edt));
        }
        let bins = self.pack_units(&units);
        let mut slots = std::mem::take(&mut self.slot_buf);
        let images = self.slot_images(&mut slots, &gc_buf, &units, &bins);
        let mut next = 0;
        let mut vi = 0;
        while next < bins.len() {
            let z = victims[vi];
            let room = (self.spz - self.zones[z as usize].wp as u64) as usize;
            if room == 0 {
                vi += 1;
                assert!(vi < victims.len(), "GC data exceeds its victims");
                continue;
            }
            let n = room.min(bins.len() - next);
            let data = images.map(|b| match b {
                Images::Built => &slots[next * SLOT..(next + n) * SLOT],
                Images::InSource(at) => &gc_buf[at + next * SLOT..at + (next + n) * SLOT],
            });
            self.write_slots(dev, z, data, next, n, &units, &bins)?;
            self.counters.gc_slots += n as u64;
            self.counters.compensation_slots += bins[next..next + n]
                .iter()
                .filter(|b| units[b[0]].comp)
                .count() as u64;
            next += n;
        }
        self.gc_buf = gc_buf;
        self.slot_buf = slots;
        Ok(())
    }

    fn gc_edt(&self, pid: u64, now: u64) -> u64 {
        match self.edt_of.get(pid as usize) {
            Some(&e) => gdt::gc_edt(e, now),
            None => 0,
        }
    }

    fn reset(&mut self, dev: &mut dyn Device, z: u32) -> Result<(), SpaceError> {
        let base = z as u64 * self.spz;
        self.maps.clear_slots(base..base + self.spz);
        match self.cfg.backend {
            Backend::Zns => dev.zone_reset(z)?,
            _ if self.cfg.trim_on_reset => {
                dev.trim(z as u64 * self.cfg.zone_bytes, self.cfg.zone_capacity)?
            }
            _ => {}
        }
        self.groups.leave(z);
        let zz = &mut self.zones[z as usize];
        debug_assert_eq!(zz.valid, 0, "zone {z} reset with live pages");
        zz.wp = 0;
        zz.valid = 0;
        zz.total = 0;
        zz.resets += 1;
        zz.state = State::Empty;
        zz.edt_sum = 0.0;
        zz.edt_n = 0;
        self.counters.zone_resets += 1;
        Ok(())
    }

    /// Checks every invariant of the module: O(pages + slots).
    pub fn check(&self) -> Result<(), String> {
        self.maps.check()?;
        self.groups.check()?;
        for (z, zz) in self.zones.iter().enumerate() {
            let base = z as u64 * self.spz;
            let mut valid = 0;
            for s in base..base + self.spz {
                let n = self.maps.valid_in(s).count() as u32;
                if s >= base + zz.wp as u64 && n > 0 {
                    return Err(format!("zone {z}: live page beyond the write pointer"));
                }
                valid += n;
            }
            if valid != zz.valid {
                return Err(format!(
                    "zone {z}: valid count {} but {valid} live pages",
                    zz.valid
                ));
            }
            let listed = self.active.contains(&(z as u32));
            match zz.state {
                State::Empty if zz.wp != 0 || !self.empty.contains(&(z as u32)) => {
                    return Err(format!("zone {z}: empty but written or not listed"))
                }
                State::Active if !listed => return Err(format!("zone {z}: active but not listed")),
                State::Full if zz.wp as u64 != self.spz => {
                    return Err(format!("zone {z}: full at {} of {}", zz.wp, self.spz))
                }
                State::Full if listed != (self.cfg.nowa && zz.in_active) => {
                    return Err(format!("zone {z}: full zone's active membership is wrong"))
                }
                _ => {}
            }
        }
        if self.active.len() > self.cfg.max_open as usize {
            return Err(format!(
                "{} active zones > {}",
                self.active.len(),
                self.cfg.max_open
            ));
        }
        Ok(())
    }

    /// Live pages in the store (mapped).
    pub fn mapped_pages(&self) -> u64 {
        self.zones.iter().map(|z| z.valid as u64).sum()
    }
}
