//! The page-mapped FTL: mapping tables, block states, write frontiers, GC.
//!
//! Memory: `l2p` is one `u32` per logical page, `p2l` one `u32` per physical page, everything
//! else is O(blocks). (About 8.6 bytes per logical page at fill 0.875.)
//!
//! Invariants (checked by [`Ftl::check_invariants`] in tests):
//! - `l2p[lpn] = ppn` iff `p2l[ppn] = lpn` and `ppn` holds the live copy of `lpn`. `p2l` of a
//!   stale page is *not* cleared: a page is valid iff `l2p[p2l[ppn]] == ppn`, which keeps the
//!   host write path to one random access (`l2p`) plus sequential `p2l` stores.
//! - `valid[b]` is the number of live pages in block `b`.
//! - Every block is exactly one of: free (in `free`), open (some frontier's block), full
//!   (in `fifo`, in `full_set`, and, when the policy needs it, in bucket `valid[b]`).
//! - The FTL owns `geometry.blocks + geometry.reserve_blocks` blocks: the reserve is *extra*
//!   free space GC relocates into, so the spare space host data and GC share is exactly the
//!   geometry's (as in SSD-iq's simulator, which compacts victims in place: relocating out of
//!   place through one spare block and renaming it is the same thing).
//! - Between host operations `free.len() >= reserve_blocks`: host writes never take the last
//!   `reserve_blocks` free blocks, GC relocation may (and then returns the victim), so GC never
//!   runs out of space. `Geometry::check_spare` guarantees greedy always finds a victim with an
//!   invalid page.
//! - When a host frontier needs a block and the pool is at the reserve, GC runs ([`GcMode`]):
//!   `Naive` collects one victim at a time and stops as soon as the frontier has room and the
//!   pool is back at the reserve, so relocated pages and host pages share one log (SSD-iq's
//!   "naive greedy"); `Batched` collects until a whole block is free again, so relocated pages
//!   fill blocks of their own.
//! - Relocated pages go to the GC frontier if there is one, else back to the frontier of the
//!   stream that wrote the victim block (`owner`): with one stream that is the single log; with
//!   several, streams stay separated through GC (FDP reclaim units). All frontiers, the GC
//!   frontier included, share one free pool.
//! - With a wear-levelling gap g > 0 (static wear levelling, what-does-the-ftl-do §2.2.2), a
//!   victim-by-policy is replaced by the full block of fewest erases when that count lags the
//!   drive's mean by more than g, at most 16 in a row (`victim.rs`): cold data in blocks GC
//!   would never pick is moved, and its block rejoins the pool. The GC frontier then opens
//!   the most worn free block and host frontiers the least worn (a dual pool), so moved cold
//!   data rests where wear is highest. `by_erases` then holds exactly the full blocks, keyed
//!   by erase count. Erase counts start at zero with the FTL.
//!   Off (g = 0) it changes nothing, so the policies stay exact. 2R policies choose groups of
//!   victims and ignore it.
//! - With a GC frontier share s < 1 (a policy between naive greedy and a separate GC log),
//!   about s n of every n consecutive relocated pages go to the GC frontier (an error-diffusion
//!   counter in steps of 2^-24, no random draws; exactly floor or ceil of s n but for the
//!   fallback below); the others go back to the host log: the victim owner's frontier, or
//!   stream 0 for a victim the GC frontier wrote. A page whose frontier would need a block when
//!   the pool is empty goes to the other frontier.
//!
//! No clock, no I/O: a caller drives it one host operation at a time and gets back the flash
//! work each caused ([`WriteEffect`]); [`Ftl::collect_one`] runs one GC step on demand, so a
//! timing model can run GC in the background.

use std::collections::{BTreeSet, VecDeque};

use ssdiq_workload::SeededRng;

use crate::counters::{Counters, GcEffect, WriteEffect};
pub use crate::error::FtlError;
use crate::geometry::Geometry;
use crate::lists::{BlockLists, NIL};
use crate::two_r::TwoR;
use ssdiq_schema::GcPolicy;

mod two_r_gc;

/// How many pages ahead GC starts loading the map entry it will check.
const PREFETCH_AHEAD: u32 = 16;

/// A GC frontier share of 1, in the fixed point the relocation loop counts in.
const SHARE_ONE: u32 = 1 << 24;

#[inline(always)]
fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < v.len() {
        // SAFETY: the pointer is in bounds; a prefetch has no architectural effect.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                v.as_ptr().add(i) as *const i8
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

pub(crate) const FREE: u8 = 0;
pub(crate) const OPEN: u8 = 1;
pub(crate) const FULL: u8 = 2;
/// 2R: written in part (or not at all) by a merge, waiting in the host queue.
pub(crate) const QUEUED: u8 = 3;

/// When GC stops collecting, once a host frontier needs a block and the free pool is down to
/// the reserve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GcMode {
    /// One victim at a time, until the frontier that needs space has room: the victim's valid
    /// pages go to the front of the host's next block and host writes fill the rest (one log,
    /// SSD-iq's naive greedy).
    #[default]
    Naive,
    /// Victims until a whole free block is gained (about 1 / (1 - u) of them at victim
    /// utilisation u): their pages fill blocks of their own, apart from host writes. An
    /// implicit hot/cold separation, which lowers WAF under skew.
    Batched,
}

impl std::str::FromStr for GcMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "naive" => Ok(GcMode::Naive),
            "batched" => Ok(GcMode::Batched),
            _ => Err(format!(
                "invalid GC mode \"{s}\": expected naive or batched"
            )),
        }
    }
}

impl std::fmt::Display for GcMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GcMode::Naive => "naive",
            GcMode::Batched => "batched",
        })
    }
}

/// How an FTL is set up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FtlConfig {
    pub geometry: Geometry,
    pub policy: GcPolicy,
    /// Host placement streams (multi-stream/FDP): each gets its own write frontier. >= 1.
    pub streams: u32,
    /// Relocate GC pages to their own frontier (always on for 2R policies).
    pub gc_frontier: bool,
    /// With `gc_frontier`: the share of relocated pages the GC frontier takes, in [0, 1]; the
    /// rest go back to the host log. 1 is a separate GC log, 0 naive greedy's single log.
    pub gc_frontier_share: f64,
    /// When GC stops collecting.
    pub mode: GcMode,
    /// Static wear levelling: the erase-count lag behind the mean past which the block closed
    /// longest ago becomes the next victim (0: off).
    pub wear_level_gap: u32,
    /// Seed of the policy's random choices (random, dchoices).
    pub seed: u64,
}

impl FtlConfig {
    pub fn new(geometry: Geometry, policy: GcPolicy) -> Self {
        Self {
            geometry,
            policy,
            streams: 1,
            gc_frontier: false,
            gc_frontier_share: 1.0,
            mode: GcMode::Naive,
            wear_level_gap: 0,
            seed: 1,
        }
    }
    /// What [`Ftl::new`] refuses, without allocating anything.
    pub fn check(&self) -> Result<(), FtlError> {
        if self.policy == GcPolicy::SeparatedModel {
            return Err(FtlError::NotSimulated(self.policy));
        }
        if self.streams == 0 || self.streams > 1000 {
            return Err(FtlError::NoStreams);
        }
        if self.gc_frontier && self.policy.is_two_r() {
            return Err(FtlError::FrontierWithTwoR(self.policy));
        }
        if !(0.0..=1.0).contains(&self.gc_frontier_share) {
            return Err(FtlError::FrontierShare(self.gc_frontier_share.to_string()));
        }
        if self.gc_frontier_share < 1.0 && !self.gc_frontier {
            return Err(FtlError::ShareWithoutFrontier(
                self.gc_frontier_share.to_string(),
            ));
        }
        self.geometry.check_spare(self.frontiers())?;
        if let GcPolicy::DChoices(d) = self.policy {
            if d > self.geometry.blocks {
                return Err(FtlError::TooManyChoices(
                    self.policy,
                    d,
                    self.geometry.blocks,
                ));
            }
        }
        Ok(())
    }

    /// Number of write frontiers, i.e. blocks open at once.
    pub fn frontiers(&self) -> u32 {
        self.streams + u32::from(self.gc_frontier || self.policy.implies_gc_frontier())
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Frontier {
    pub block: u32,
    pub next: u32,
}

pub struct Ftl {
    pub(crate) geo: Geometry,
    pub(crate) policy: GcPolicy,
    pub(crate) mode: GcMode,
    pub(crate) ppb: u32,
    pub(crate) l2p: Vec<u32>,
    pub(crate) p2l: Vec<u32>,
    pub(crate) valid: Vec<u32>,
    pub(crate) state: Vec<u8>,
    /// Host programs when the block was closed (cost-benefit's age).
    pub(crate) closed_at: Vec<u64>,
    /// The frontier that opened each block (GC relocation target without a GC frontier).
    pub(crate) owner: Vec<u16>,
    /// Full blocks bucketed by valid count (greedy); kept only if the policy needs it.
    pub(crate) buckets: BlockLists,
    pub(crate) use_buckets: bool,
    /// A lower bound on the smallest non-empty bucket.
    pub(crate) min_bucket: u32,
    /// Full blocks in close order (list 0).
    pub(crate) fifo: BlockLists,
    /// 2R-FIFO's scan position in `fifo`.
    pub(crate) fifo_cursor: u32,
    /// Full blocks, for O(1) uniform sampling; `full_pos[b]` is b's index.
    pub(crate) full_set: Vec<u32>,
    pub(crate) full_pos: Vec<u32>,
    pub(crate) free: VecDeque<u32>,
    pub(crate) frontiers: Vec<Frontier>,
    pub(crate) gc_idx: Option<usize>,
    /// The GC frontier's share of relocated pages, in units of [`SHARE_ONE`], and the
    /// error-diffusion counter that spreads it.
    gc_share: u32,
    gc_share_acc: u32,
    /// The 2R policies' regions, host queue and scan state.
    pub(crate) two_r: Option<Box<TwoR>>,
    pub(crate) rng: SeededRng,
    pub(crate) counters: Counters,
    /// Erases of each block since the FTL was created.
    pub(crate) erase_count: Vec<u32>,
    pub(crate) wear_level_gap: u32,
    /// Wear-levelling victims since the last victim by policy.
    pub(crate) wear_levelled_run: u32,
    /// With wear levelling: the full blocks by (erase count, block).
    pub(crate) by_erases: Option<BTreeSet<(u32, u32)>>,
}

impl Ftl {
    pub fn new(cfg: FtlConfig) -> Result<Self, FtlError> {
        cfg.check()?;
        let g = cfg.geometry;
        let nb = g.ftl_blocks() as usize;
        let ppb = g.pages_per_block;
        let gc_sep = cfg.gc_frontier || cfg.policy.implies_gc_frontier();
        let nf = cfg.streams as usize + usize::from(gc_sep);
        Ok(Self {
            geo: g,
            policy: cfg.policy,
            mode: cfg.mode,
            ppb,
            l2p: vec![NIL; g.logical_pages as usize],
            p2l: vec![NIL; nb * ppb as usize],
            valid: vec![0; nb],
            state: vec![FREE; nb],
            closed_at: vec![0; nb],
            owner: vec![0; nb],
            buckets: BlockLists::new(
                if cfg.policy.needs_buckets() {
                    ppb as usize + 1
                } else {
                    1
                },
                if cfg.policy.needs_buckets() { nb } else { 0 },
            ),
            use_buckets: cfg.policy.needs_buckets(),
            min_bucket: 0,
            fifo: BlockLists::new(1, nb),
            fifo_cursor: NIL,
            full_set: Vec::with_capacity(nb),
            full_pos: vec![NIL; nb],
            free: (0..nb as u32).collect(),
            frontiers: vec![
                Frontier {
                    block: NIL,
                    next: 0
                };
                nf
            ],
            gc_idx: gc_sep.then_some(cfg.streams as usize),
            gc_share: (cfg.gc_frontier_share * SHARE_ONE as f64).round() as u32,
            gc_share_acc: 0,
            two_r: cfg
                .policy
                .is_two_r()
                .then(|| Box::new(TwoR::new(cfg.policy, nb, ppb))),
            rng: SeededRng::new(cfg.seed),
            counters: Counters {
                victim_valid: vec![0; ppb as usize + 1],
                ..Default::default()
            },
            erase_count: vec![0; nb],
            wear_level_gap: cfg.wear_level_gap,
            wear_levelled_run: 0,
            by_erases: (cfg.wear_level_gap > 0 && !cfg.policy.is_two_r()).then(BTreeSet::new),
        })
    }

    /// Writes logical page `lpn` through host stream `stream`; returns the flash work it
    /// caused (GC runs here only if the free pool is down to the reserve).
    #[inline]
    pub fn write(&mut self, lpn: u64, stream: u32) -> WriteEffect {
        debug_assert!(lpn < self.geo.logical_pages);
        debug_assert!((stream as usize) < self.streams());
        let mut eff = WriteEffect {
            programs: 1,
            ..Default::default()
        };
        self.invalidate(lpn as u32);
        let f = stream as usize;
        if self.frontiers[f].block == NIL {
            // Unmap first, so GC never copies the page this write replaces (otherwise
            // `program` overwrites the entry at once).
            self.l2p[lpn as usize] = NIL;
            self.open_for_host(f, &mut eff);
        }
        self.program(f, lpn as u32);
        self.counters.host_programs += 1;
        eff
    }

    /// Programs a page that holds no data at host stream `stream`'s frontier, with the GC a
    /// host write there would cause. A drive whose write buffer accepted a write that was
    /// trimmed before its program still programs its slot (the data had its place in the
    /// program unit), so the writes after it keep their place against the erase blocks.
    pub fn write_void(&mut self, stream: u32) -> WriteEffect {
        debug_assert!((stream as usize) < self.streams());
        let mut eff = WriteEffect {
            programs: 1,
            ..Default::default()
        };
        let f = stream as usize;
        if self.frontiers[f].block == NIL {
            self.open_for_host(f, &mut eff);
        }
        self.program(f, NIL);
        self.counters.host_programs += 1;
        eff
    }

    /// Pages the host frontiers can still take before a host write makes GC collect: their
    /// open blocks' room plus the free blocks above the reserve (under 2R, also the blocks
    /// merges left writable).
    pub fn host_room(&self) -> u64 {
        let open: u64 = (0..self.streams()).map(|f| self.room(f) as u64).sum();
        let pool = self.free.len() as u64 + self.two_r.as_ref().map_or(0, |t| t.queue.len() as u64);
        open + pool.saturating_sub(self.geo.reserve_blocks as u64) * self.ppb as u64
    }

    /// Forgets `lpn`'s mapping without counting a trim: a newer copy lives outside the FTL (a
    /// drive's SLC cache), so this page is invalid and costs nothing to GC.
    pub fn unmap(&mut self, lpn: u64) {
        if self.l2p[lpn as usize] != NIL {
            self.invalidate(lpn as u32);
            self.l2p[lpn as usize] = NIL;
        }
    }

    /// Discards `lpn`: its page becomes invalid and costs nothing to GC. Returns whether it
    /// was mapped.
    pub fn trim(&mut self, lpn: u64) -> bool {
        let mapped = self.l2p[lpn as usize] != NIL;
        if mapped {
            self.invalidate(lpn as u32);
            self.l2p[lpn as usize] = NIL;
            self.counters.trims += 1;
        }
        mapped
    }

    /// Runs one GC step: picks a victim by the policy, relocates its valid pages (to the GC
    /// frontier, else its own stream's frontier), erases it; with a GC frontier share, more
    /// victims until the pool is back at the reserve. `None` if no block is full or the free
    /// pool is empty (relocation might need a block).
    pub fn collect_one(&mut self) -> Option<GcEffect> {
        if self.free.is_empty() {
            return None;
        }
        if self.two_r.is_some() {
            return self.two_r_collect();
        }
        let mut g = self.collect()?;
        // A victim split between the GC and a host frontier may open a block in each: collect
        // on until the pool is back at the reserve (never runs without a split).
        while self.free.len() < self.geo.reserve_blocks as usize {
            let Some(more) = self.collect() else { break };
            g.relocations += more.relocations;
            g.erases += more.erases;
        }
        Some(g)
    }

    /// Hints that `lpn` is written soon: starts loading its map entry, so a caller that
    /// knows its next writes (a generated workload, the emulated drive's write buffer) hides
    /// the cache miss of the random `l2p` access.
    #[inline]
    pub fn prefetch(&self, lpn: u64) {
        prefetch(&self.l2p, lpn as usize);
    }

    /// Where `lpn` lives, if mapped.
    pub fn lookup(&self, lpn: u64) -> Option<u64> {
        let p = self.l2p[lpn as usize];
        (p != NIL).then_some(p as u64)
    }

    /// The logical page physical page `ppn` was last programmed with (live or stale).
    pub fn lpn_at(&self, ppn: u64) -> Option<u64> {
        let l = *self.p2l.get(ppn as usize)?;
        (l != NIL).then_some(l as u64)
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }
    pub fn policy(&self) -> GcPolicy {
        self.policy
    }
    pub fn mode(&self) -> GcMode {
        self.mode
    }
    pub fn counters(&self) -> &Counters {
        &self.counters
    }
    /// Each block's erases since the FTL was created (reserve blocks included).
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }
    /// Blocks a host frontier can take without GC: the free pool (the reserve included) and,
    /// under 2R, the queue of blocks merges left writable.
    pub fn free_blocks(&self) -> u32 {
        self.free.len() as u32 + self.two_r.as_ref().map_or(0, |t| t.queue.len() as u32)
    }
    pub fn full_blocks(&self) -> u32 {
        self.full_set.len() as u32
    }
    pub fn streams(&self) -> usize {
        self.frontiers.len() - usize::from(self.gc_idx.is_some())
    }
    /// Blocks open at once (one per frontier).
    pub fn open_blocks(&self) -> u32 {
        self.frontiers.len() as u32
    }
    pub fn valid_pages(&self, block: u32) -> u32 {
        self.valid[block as usize]
    }

    #[inline]
    fn invalidate(&mut self, lpn: u32) {
        let ppn = self.l2p[lpn as usize];
        if ppn == NIL {
            return;
        }
        let b = ppn / self.ppb;
        let v = self.valid[b as usize] - 1;
        self.valid[b as usize] = v;
        if self.use_buckets {
            if self.state[b as usize] == FULL {
                self.buckets.move_to(b, v);
                if v < self.min_bucket {
                    self.min_bucket = v;
                }
            }
        } else if self.two_r.is_some() {
            self.two_r_invalidated(b, v);
        }
    }

    /// 2R's bookkeeping of an invalidation, out of line so greedy's hot path stays small.
    #[inline(never)]
    fn two_r_invalidated(&mut self, b: u32, v: u32) {
        let full = self.state[b as usize] == FULL;
        if let Some(t) = self.two_r.as_deref_mut() {
            t.invalidated(b, v, full, self.ppb);
        }
    }

    /// Makes frontier `f` writable for a host write, collecting victims first if the free
    /// pool is at the reserve, until the [`GcMode`]'s stopping rule holds.
    fn open_for_host(&mut self, f: usize, eff: &mut WriteEffect) {
        if self.two_r.is_some() {
            return self.two_r_open(f, eff);
        }
        let reserve = self.geo.reserve_blocks as usize;
        let ppb = self.ppb as usize;
        let mut fruitless = 0u32;
        loop {
            let room = self.frontiers[f].block != NIL;
            let done = match self.mode {
                // The pool must also be back at the reserve: with a GC frontier share, a
                // victim's pages may open a GC block and a host block at once.
                GcMode::Naive => {
                    self.free.len() + usize::from(room) > reserve && self.free.len() >= reserve
                }
                GcMode::Batched => self.free.len() > reserve,
            };
            if done {
                break;
            }
            let space = |s: &Self| s.free.len() * ppb + s.room(f);
            let before = space(self);
            let g = self
                .collect()
                .expect("GC found no full block although the free pool is at the reserve");
            eff.relocations += g.relocations;
            eff.erases += g.erases;
            // A policy may pick fully valid victims (FIFO, random); that moves data without
            // gaining space. Give up loudly rather than spin forever.
            if space(self) <= before {
                fruitless += 1;
                assert!(
                    fruitless <= 4 * self.geo.ftl_blocks(),
                    "GC makes no progress: every full block is fully valid"
                );
            }
        }
        if self.frontiers[f].block == NIL {
            self.take_free(f);
        }
    }

    /// Pages frontier `f` can still take without a new block.
    fn room(&self, f: usize) -> usize {
        let fr = self.frontiers[f];
        if fr.block == NIL {
            0
        } else {
            (self.ppb - fr.next) as usize
        }
    }

    pub(crate) fn take_free(&mut self, f: usize) {
        let b = match self.by_erases {
            Some(_) => self.take_free_levelled(f),
            None => self.free.pop_front(),
        }
        .expect("free pool exhausted: the reserve is too small");
        debug_assert_eq!(self.valid[b as usize], 0);
        self.state[b as usize] = OPEN;
        self.owner[b as usize] = f as u16;
        self.frontiers[f] = Frontier { block: b, next: 0 };
    }

    /// With wear levelling, a dual pool: the GC frontier takes the most worn free block (what
    /// it writes is what survived, the coldest data, so the block rests), host frontiers the
    /// least worn. First in the pool wins ties, as without levelling.
    fn take_free_levelled(&mut self, f: usize) -> Option<u32> {
        let worn = |b: &u32| self.erase_count[*b as usize];
        let i = if Some(f) == self.gc_idx {
            let most = self.free.iter().map(worn).max()?;
            self.free.iter().position(|b| worn(b) == most)?
        } else {
            let least = self.free.iter().map(worn).min()?;
            self.free.iter().position(|b| worn(b) == least)?
        };
        self.free.remove(i)
    }

    /// Programs `lpn` at frontier `f`'s next page, opening a block (from the free pool,
    /// without GC) if needed and closing it when it fills. `NIL` programs a page that holds
    /// nothing (invalid from the start).
    #[inline]
    fn program(&mut self, f: usize, lpn: u32) {
        if self.frontiers[f].block == NIL {
            self.take_free(f);
        }
        let fr = &mut self.frontiers[f];
        let b = fr.block;
        let ppn = b * self.ppb + fr.next;
        fr.next += 1;
        let full = fr.next == self.ppb;
        if full {
            fr.block = NIL;
        }
        self.p2l[ppn as usize] = lpn;
        if lpn != NIL {
            self.l2p[lpn as usize] = ppn;
            self.valid[b as usize] += 1;
        }
        if full {
            self.close(b);
        }
    }

    fn close(&mut self, b: u32) {
        self.state[b as usize] = FULL;
        self.closed_at[b as usize] = self.counters.host_programs;
        if self.use_buckets {
            let v = self.valid[b as usize];
            self.buckets.push_back(v, b);
            if v < self.min_bucket {
                self.min_bucket = v;
            }
        }
        self.fifo.push_back(0, b);
        if let Some(set) = &mut self.by_erases {
            set.insert((self.erase_count[b as usize], b));
        }
        self.full_pos[b as usize] = self.full_set.len() as u32;
        self.full_set.push(b);
        if self.two_r.is_some() {
            self.two_r_closed(b);
        }
    }

    pub(crate) fn remove_full(&mut self, b: u32) {
        if self.use_buckets {
            self.buckets.remove(b);
        }
        if let Some(set) = &mut self.by_erases {
            set.remove(&(self.erase_count[b as usize], b));
        }
        if self.fifo_cursor == b {
            self.fifo_cursor = self.fifo.next(b);
        }
        self.fifo.remove(b);
        let i = self.full_pos[b as usize] as usize;
        let last = self.full_set.pop().expect("full set holds b");
        if last != b {
            self.full_set[i] = last;
            self.full_pos[last as usize] = i as u32;
        }
        self.full_pos[b as usize] = NIL;
    }

    /// One GC step.
    pub(crate) fn collect(&mut self) -> Option<GcEffect> {
        let victim = self.pick_victim()?;
        self.remove_full(victim);
        let owner = self.owner[victim as usize] as usize;
        let target = self.gc_idx.unwrap_or(owner);
        // Where the GC frontier's share leaves a page in the host log.
        let host = if Some(owner) == self.gc_idx { 0 } else { owner };
        let split = self.gc_idx.is_some() && self.gc_share < SHARE_ONE;
        let v = self.valid[victim as usize];
        self.counters.victim_valid[v as usize] += 1;
        let base = victim * self.ppb;
        let end = base + self.ppb;
        let mut moved = 0;
        for ppn in base..end {
            if moved == v {
                break;
            }
            // The validity check is a dependent random read of `l2p`; on a drive whose map
            // does not fit the cache it dominates GC, so start it a few pages early.
            if ppn + PREFETCH_AHEAD < end {
                let ahead = self.p2l[(ppn + PREFETCH_AHEAD) as usize];
                if ahead != NIL {
                    prefetch(&self.l2p, ahead as usize);
                }
            }
            let lpn = self.p2l[ppn as usize];
            if lpn != NIL && self.l2p[lpn as usize] == ppn {
                let to = if split {
                    self.split_target(target, host)
                } else {
                    target
                };
                self.program(to, lpn);
                moved += 1;
            }
        }
        debug_assert_eq!(moved, v);
        self.counters.gc_programs += moved as u64;
        self.valid[victim as usize] = 0;
        self.state[victim as usize] = FREE;
        self.free.push_back(victim);
        self.counters.erases += 1;
        self.erase_count[victim as usize] += 1;
        Some(GcEffect {
            victim,
            relocations: moved,
            erases: 1,
        })
    }

    /// The GC frontier `gc` for its share of relocated pages, else the host log's `host`.
    /// When the chosen frontier needs a block and the pool is empty (both frontiers may need
    /// one while a single victim is moved, and the reserve holds one), the page goes to the
    /// other, which then has room: the victim's valid pages are fewer than a block's.
    #[inline]
    fn split_target(&mut self, gc: usize, host: usize) -> usize {
        self.gc_share_acc += self.gc_share;
        let (to, other) = if self.gc_share_acc >= SHARE_ONE {
            self.gc_share_acc -= SHARE_ONE;
            (gc, host)
        } else {
            (host, gc)
        };
        if self.frontiers[to].block == NIL && self.free.is_empty() {
            other
        } else {
            to
        }
    }

    /// Checks every invariant in the module docs; O(pages). For tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        let ppb = self.ppb;
        let mut valid = vec![0u32; self.valid.len()];
        for (lpn, &ppn) in self.l2p.iter().enumerate() {
            if ppn == NIL {
                continue;
            }
            if self.p2l[ppn as usize] != lpn as u32 {
                return Err(format!("l2p[{lpn}] = {ppn} but p2l[{ppn}] differs"));
            }
            let b = ppn / ppb;
            if self.state[b as usize] == FREE {
                return Err(format!("lpn {lpn} maps into free block {b}"));
            }
            valid[b as usize] += 1;
        }
        if valid != self.valid {
            return Err("valid counts disagree with l2p".into());
        }
        let (mut free, mut open, mut full) = (0usize, 0usize, 0usize);
        for (b, &s) in self.state.iter().enumerate() {
            match s {
                FREE => free += 1,
                QUEUED => {}
                OPEN => {
                    open += 1;
                    if !self.frontiers.iter().any(|f| f.block == b as u32) {
                        return Err(format!("open block {b} belongs to no frontier"));
                    }
                }
                _ => {
                    full += 1;
                    if self.fifo.owner(b as u32) != 0 {
                        return Err(format!("full block {b} not in the FIFO"));
                    }
                    if self.use_buckets && self.buckets.owner(b as u32) != self.valid[b] {
                        return Err(format!("full block {b} in the wrong bucket"));
                    }
                }
            }
        }
        if free != self.free.len() || full != self.full_set.len() {
            return Err(format!(
                "block states: {free} free vs pool {}, {full} full vs set {}",
                self.free.len(),
                self.full_set.len()
            ));
        }
        if open != self.frontiers.iter().filter(|f| f.block != NIL).count() {
            return Err("open blocks and frontiers disagree".into());
        }
        if self.free.len() < self.geo.reserve_blocks as usize {
            return Err(format!("free pool {} below the reserve", self.free.len()));
        }
        if let Some(set) = &self.by_erases {
            let want: BTreeSet<(u32, u32)> = self
                .full_set
                .iter()
                .map(|&b| (self.erase_count[b as usize], b))
                .collect();
            if *set != want {
                return Err("the erase-count index is not the full blocks".into());
            }
        }
        self.check_two_r()
    }
}
