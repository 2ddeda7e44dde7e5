//! The emulated drive: the page-mapped [`Ftl`] plus dies, a PLP write buffer, background and
//! foreground GC, and a host link, as a discrete-event model in virtual nanoseconds.
//!
//! How a request is timed (all in [`Drive`]):
//! - **write**: the data crosses the host link (host->device direction, bandwidth-capped in
//!   arrival order); if the buffer has room the write completes `write_ns` later, else it
//!   waits (parked) until programs free enough slots: the source of write tail latency.
//! - **read**: firmware overhead, then per flash page group one die read (tR, plus read-retry
//!   steps for a rare read) on the die that holds it and the transfer of the pages read on its
//!   channel (shared by the channel's dies, and by program data going in); buffered or
//!   unmapped data comes from DRAM. Reads are reserved on their die at once: they wait only for
//!   the operation in progress, or get a program/erase suspended (see `dies`). Then the link
//!   (device->host).
//! - **readahead** (a profile's `readahead_kib`): sequential host reads are read ahead into
//!   DRAM a chunk at a time (`readahead`); a read found there skips the flash read path.
//! - **DRAM-less map** (`[map]`): a write's or read's map page may have to be written back and
//!   read first (`map_cache`); data written in order needs none.
//! - **host interface**: a command first passes the controller (`command_ns`, one command at
//!   a time); with `command_slots`, its flash work (a write: its acceptance into the buffer)
//!   waits for a free slot. A SATA link is half duplex: one timeline for both directions. The
//!   32-command NCQ limit is the executor's (the host holds the rest).
//! - **in-place media** (3D XPoint): buffered host pages are programmed without mapping, so
//!   nothing is ever relocated or erased; a read finds a page on the die its address stripes
//!   to.
//! - **flash work** is pulled by idle dies, in priority order: GC reads of this die, GC
//!   erases of this die, then one-shot program units of relocated and buffered host pages,
//!   mixed by the pacing rule below. Host pages are mapped in the FTL when their unit starts,
//!   in arrival order; a page trimmed while buffered is programmed void in its place.
//!
//! Invariants:
//! - *What* GC does is the FTL's: when the host's write frontier needs a superblock and only
//!   `low` are free, it collects a victim (naive greedy: relocated pages go to the front of
//!   the new superblock, host pages fill the rest); 2R merges its victims. The FTL's reserve is
//!   `low`, kept inside the drive's superblocks. So the emulator's WAF is the simulator's for
//!   the same policy, at every pacing.
//! - *When* it runs is the drive's, paced like a controller: each program unit takes
//!   `unit * owed / (owed + room)` relocated pages (`owed`: collected, not yet programmed;
//!   `room`: host pages the FTL can still map before it collects again), so a victim's
//!   relocation is spread over the host writes its space takes and is done as that space runs
//!   out. GC takes more when too few host pages are buffered (dies would idle otherwise), all
//!   of a unit in foreground GC. A victim's size sets how long its work lasts, never a burst:
//!   the work per host page is the same at every superblock size.
//! - Physically free superblocks = FTL free blocks - victims whose valid pages are not all
//!   read; host pages are not mapped while that is below `critical` (foreground GC: host
//!   writes wait in the buffer).
//! - GC reads ahead only its paced share of the next two units (at least a unit), and
//!   relocated data waiting for or in a program holds write-buffer slots like host data.
//! - Idle-time GC: once no host request has been in flight for `idle_delay_ns`, the drive
//!   collects victims one at a time, spaced by what relocating each takes at the idle rate,
//!   until `idle_free_blocks` superblocks are free; the next host write cancels it (its work
//!   in flight is paced against the room it made).
//! - A program ends no sooner than its data is in over the channel (cache programming hides
//!   the transfer only when the channel keeps up).
//! - Every program, read and erase occupies a die for its full time; so at saturation host
//!   write throughput = die program throughput / WAF (less GC read and erase time). A channel
//!   carries one transfer at a time (read data out, program data in).
//! - Capacity-dependent parameters are scaled (see [`Timing`]): the superblock's program units
//!   and its erase time with the capacity, so the drive keeps the full-size superblock count;
//!   the buffer's rewrite absorption, so rewrites are absorbed as often as at full size.
//! - Deterministic: no clock; read-retry draws come from a generator seeded by the profile's
//!   seed; events at equal times are processed in die order, the idle timer after them.

use serde::Serialize;

use ssdiq_flash::{Ftl, FtlConfig, Geometry};
use ssdiq_workload::SeededRng;

use crate::channels::Channels;
use crate::dies::{Die, Kind, Suspend, NEVER};
use crate::gc::Gc;
use crate::map_cache::{MapCache, MapMiss};
use crate::profile::{Profile, ProfileError};
use crate::readahead::Readahead;
use crate::slc::{max_pages, Slc};
use crate::wbuf::{Entry, WriteBuf};

/// How far ahead of the page being mapped its successor's mapping is prefetched.
const PREFETCH: usize = 8;

/// Program units of relocated data GC reads ahead of its programs.
const READ_AHEAD_UNITS: u64 = 2;

/// Mixed into the profile's seed for the read-retry draws.
const RETRY_SEED: u64 = 0x0EAD_2E72;

/// Mixed into the profile's seed for the write-stall draws (a stream of its own, so a profile
/// without stalls draws exactly the read-retries it drew before stalls existed).
const STALL_SEED: u64 = 0x57A1_1ED0;

/// The map unit (FTL page) of the emulated drive, and its logical block size unless its
/// profile formats smaller blocks (`lba_bytes`).
pub const LBA_BYTES: u64 = 4096;

/// The map units (first, count) that `len` bytes from byte `offset` touch.
#[inline]
fn units_of(offset: u64, len: u64) -> (u64, u64) {
    let lpn = offset / LBA_BYTES;
    (lpn, (offset + len).div_ceil(LBA_BYTES) - lpn)
}

/// Timing and shape derived from a profile, in nanoseconds and 4 KiB pages.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub dies: u32,
    pub channels: u32,
    /// capacity / full_capacity: the factor the capacity-dependent parameters are scaled by.
    pub scale: f64,
    /// Program units per die in a superblock, scaled (the profile's value is at full size).
    pub units_per_block: u32,
    /// Pages per one-shot program unit (bits x planes x page).
    pub unit_pages: u32,
    /// Pages per multi-plane read (planes x page): one GC read op, and the grouping of host
    /// reads.
    pub read_pages: u32,
    pub read_ns: u64,
    pub xfer_ns_per_page: f64,
    pub program_ns: u64,
    /// Erase time of the scaled superblock (the profile's `erase_us` times the block scale).
    pub erase_ns: u64,
    pub suspend: Suspend,
    pub retry_rate: f64,
    pub retry_max_steps: u32,
    pub link_ns_per_page: f64,
    /// One link for both directions (SATA), instead of one each way (PCIe).
    pub half_duplex: bool,
    /// Controller time per command, one command at a time.
    pub command_ns: u64,
    /// Commands serviced at once (0: no limit).
    pub command_slots: u32,
    pub read_overhead_ns: u64,
    pub write_ns: u64,
    /// Fraction of buffered writes that wait for a firmware stall, and the longest stall.
    pub stall_rate: f64,
    pub stall_ns: u64,
    pub dram_ns: u64,
    pub buffer_pages: u64,
    /// Rewrites of a page among the last `window_pages` buffered are absorbed (the buffer
    /// scaled by `scale`, at most all of it).
    pub window_pages: u64,
    pub low: u32,
    pub critical: u32,
    /// Idle-time GC: host idle time before it starts, virtual time per relocated page (the
    /// idle relocation bandwidth), free superblocks it gathers (`NEVER`/0: off).
    pub idle_delay_ns: u64,
    pub idle_ns_per_page: u64,
    pub idle_free_blocks: u32,
    /// SLC cache: its most pages (0: none), one SLC program unit's pages (planes x page) and
    /// time, and the SLC pages of a superblock in SLC mode (one erase each).
    pub slc_pages: u64,
    pub slc_unit_pages: u32,
    pub slc_program_ns: u64,
    pub slc_block_pages: u64,
    /// In-place media: host pages are programmed without mapping, never relocated.
    pub in_place: bool,
    /// DRAM-less map: map pages cached (0: the whole map in DRAM), logical pages per map page.
    pub map_cache_pages: u32,
    pub map_seg_pages: u64,
    /// Readahead chunk in logical pages (0: none).
    pub readahead_pages: u64,
}

/// Cumulative counters of the drive (never reset, like a drive's SMART/OCP counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DriveCounters {
    pub host_write_bytes: u64,
    pub host_read_bytes: u64,
    /// Bytes programmed to flash (host and GC).
    pub media_write_bytes: u64,
    /// Superblocks erased.
    pub erases: u64,
}

pub struct Drive {
    t: Timing,
    /// The whole flash: `blocks` superblocks, the FTL's GC reserve among them.
    flash: Geometry,
    cfg: FtlConfig,
    ftl: Ftl,
    dies: Vec<Die>,
    /// Dies with no event (`Die::is_idle`).
    idle: u32,
    /// The earliest die event and its die, valid unless `dirty` (a die's event changed).
    min_ev: (u64, usize),
    dirty: bool,
    buf: WriteBuf,
    gc: Gc,
    /// What each channel carries when.
    channels: Channels,
    rng: SeededRng,
    stall_rng: SeededRng,
    link_in: u64,
    link_out: u64,
    /// When the controller takes its next command.
    ctrl_free: u64,
    /// When each command slot is next free (empty: no limit).
    slot_free: Vec<u64>,
    now: u64,
    /// Parked writes admitted since the caller last took them: (tag, completion time).
    done: Vec<(u64, u64)>,
    c: DriveCounters,
    /// The placement stream of each logical page's newest write; empty with one stream.
    stream_of: Vec<u16>,
    /// `--verify`'s write generations, when kept ([`Drive::keep_generations`]).
    gens: Option<Generations>,
    /// When the last host request returned so far completes (idle GC waits for it).
    busy_until: u64,
    /// When idle GC next acts (`NEVER`: not armed).
    idle_at: u64,
    /// The host has been idle: buffered host pages are programmed without a full unit.
    idle_flush: bool,
    /// Superblock erases before the last reset (and by it): wear is never undone.
    erased_before_reset: u64,
    slc: Option<Slc>,
    /// A DRAM-less drive's map cache.
    map: Option<MapCache>,
    /// The drive's readahead into DRAM.
    ra: Option<Readahead>,
    /// Pages of the fold unit being formed (scratch).
    fold_pages: Vec<u64>,
}

/// Marks a read unit of SLC-cached pages (keyed by logical unit) apart from flash read units.
const SLC_KEY: u64 = 1 << 63;

/// `earliest()`'s slot for the idle-GC timer (die events use their index).
const IDLE_EVENT: usize = usize::MAX;

fn us(v: f64) -> u64 {
    (v * 1000.0).round() as u64
}

/// The SLC cache of a drive with timing `t`, if it has one.
fn new_slc(t: &Timing, bits: u32, logical: u64) -> Option<Slc> {
    (t.slc_pages > 0).then(|| Slc::new(t.slc_pages, bits as u64, logical))
}

/// Logical pages one map page covers: a flash page of 4-byte entries.
pub fn map_seg_pages(page_kib: u32) -> u64 {
    page_kib as u64 * 1024 / 4
}

/// Map pages a DRAM-less drive caches at this profile's capacity (0: the map is in DRAM): its
/// `map_cache_kib` in map pages, scaled like the capacity, at least 1.
pub fn map_cache_pages(p: &Profile, scale: f64) -> u32 {
    if p.map.map_cache_kib == 0 {
        return 0;
    }
    let full = p.map.map_cache_kib as f64 / p.nand.page_kib as f64;
    ((full * scale).round() as u64).clamp(1, u32::MAX as u64) as u32
}

/// Program units per die in a superblock at this profile's capacity: its `units_per_block`
/// (given at full size) scaled by capacity / full_capacity, at least 1.
pub fn scaled_units(p: &Profile) -> Result<u32, ProfileError> {
    let scale = p.scale()?;
    Ok(((p.nand.units_per_block as f64 * scale).round() as u64).clamp(1, 1 << 20) as u32)
}

/// The FTL geometry of a profile: superblocks of every die's (scaled) units, enough of them
/// for the capacity plus OP, 4 KiB pages. The GC reserve (the low watermark) is among the
/// drive's superblocks, so the geometry's `blocks` leave it out (`ftl_blocks()` is all).
pub fn drive_geometry(p: &Profile) -> Result<Geometry, ProfileError> {
    let n = &p.nand;
    let dies = n.channels * n.dies_per_channel;
    let unit_pages = n.bits_per_cell * n.planes * (n.page_kib / 4);
    let ppb = dies as u64 * scaled_units(p)? as u64 * unit_pages as u64;
    let logical = p.capacity_bytes()? / LBA_BYTES;
    let physical_min = (logical as f64 * (1.0 + p.drive.op)).ceil() as u64;
    let blocks = physical_min.div_ceil(ppb);
    if blocks * ppb >= u32::MAX as u64 || logical >= u32::MAX as u64 {
        return Err(ProfileError(format!(
            "invalid capacity \"{}\": the emulator addresses at most 2^32 4 KiB pages (16 TiB) including OP",
            p.drive.capacity
        )));
    }
    let reserve = p.gc.low_watermark;
    if blocks <= reserve as u64 + 1 {
        return Err(ProfileError(format!(
            "invalid geometry for capacity {} and op {}: {blocks} superblocks leave too few beside the {reserve} kept free for GC",
            p.drive.capacity, p.drive.op
        )));
    }
    Ok(Geometry {
        page_bytes: LBA_BYTES,
        pages_per_block: ppb as u32,
        blocks: (blocks - reserve as u64) as u32,
        logical_pages: logical,
        reserve_blocks: reserve,
    })
}

/// The FTL a profile describes, checked as [`Ftl::new`] would check it but without allocating
/// anything: so a profile whose OP and capacity leave GC no free superblock is refused when it
/// is read, naming the keys, not when its drive is built.
pub fn check_geometry(p: &Profile) -> Result<FtlConfig, ProfileError> {
    let geometry = drive_geometry(p)?;
    let cfg = FtlConfig {
        geometry,
        policy: p.drive.policy,
        streams: p.drive.streams,
        gc_frontier: p.drive.gc_frontier,
        gc_frontier_share: p.drive.gc_frontier_share.unwrap_or(1.0),
        mode: p.drive.gc_mode.parse().map_err(ProfileError)?,
        wear_level_gap: p.gc.wear_level_gap,
        seed: p.drive.seed,
    };
    if let Err(e) = cfg.check() {
        // The superblocks kept free for GC (the low watermark) are not spare for this.
        let spare = geometry
            .physical_pages()
            .saturating_sub(geometry.logical_pages);
        let need = cfg.frontiers() as u64 * geometry.ppb();
        if spare < need {
            return Err(ProfileError(format!(
                "invalid op {} for capacity {}: it leaves {spare} spare 4 KiB pages beside the {} superblocks kept free, and GC needs {need} more ({} open superblock{} of {} pages); raise op or capacity, or lower units_per_block",
                p.drive.op,
                p.drive.capacity,
                geometry.reserve_blocks,
                cfg.frontiers(),
                if cfg.frontiers() == 1 { "" } else { "s" },
                geometry.ppb()
            )));
        }
        return Err(ProfileError(e.to_string()));
    }
    Ok(cfg)
}

/// The smallest capacity, in whole MiB, at which `p`'s geometry passes [`check_geometry`]
/// (everything else as it is); `None` if none up to 16 TiB does. Spare space grows with the
/// capacity while a superblock stops shrinking at one program unit per die, so the check
/// passes from one capacity on: found by doubling, then bisection.
pub fn min_capacity_mib(p: &Profile) -> Option<u64> {
    let ok = |mib: u64| {
        let mut q = p.clone();
        q.drive.capacity = format!("{mib}MiB");
        check_geometry(&q).is_ok()
    };
    let mut hi = 1u64;
    while !ok(hi) {
        hi *= 2;
        if hi > 16 << 20 {
            return None;
        }
    }
    let mut lo = hi / 2 + 1;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

impl Drive {
    /// Builds a fresh drive from a checked profile.
    pub fn new(p: &Profile) -> Result<Drive, ProfileError> {
        let bad = |m: String| ProfileError(m);
        let n = &p.nand;
        let dies = n.channels * n.dies_per_channel;
        let page_lbas = n.page_kib / 4;
        let unit_pages = n.bits_per_cell * n.planes * page_lbas;
        let read_pages = n.planes * page_lbas;
        let scale = p.scale()?;
        let units = scaled_units(p)?;
        let cfg = check_geometry(p)?;
        let geometry = cfg.geometry;
        let logical = geometry.logical_pages;
        let ftl = Ftl::new(cfg).map_err(|e| bad(e.to_string()))?;
        let lbas_mb = LBA_BYTES as f64 / 1e6;
        let xfer_ns_per_page = lbas_mb / n.channel_mb_s * 1e9;
        let buffer_pages = (p.buffer.buffer_kib * 1024 / LBA_BYTES).max(1);
        let window_pages = match p.buffer.rewrite_window.as_str() {
            "scaled" => ((buffer_pages as f64 * scale).round() as u64).min(buffer_pages),
            "full" => buffer_pages,
            "none" => 0,
            other => {
                return Err(bad(format!(
                    "invalid rewrite_window \"{other}\": expected scaled, full or none"
                )))
            }
        };
        let block_scale = units as f64 / n.units_per_block as f64;
        let mut t = Timing {
            dies,
            channels: n.channels,
            scale,
            units_per_block: units,
            unit_pages,
            read_pages,
            read_ns: us(n.read_us),
            xfer_ns_per_page,
            program_ns: us(n.program_us),
            erase_ns: us(n.erase_us * block_scale),
            suspend: Suspend {
                enabled: n.suspend,
                program_ns: us(n.program_suspend_us),
                erase_ns: us(n.erase_suspend_us),
                erase_stretch: (1.0 / block_scale).max(1.0),
                max_per_op: n.max_suspends,
            },
            retry_rate: n.read_retry_rate,
            retry_max_steps: n.read_retry_max_steps,
            link_ns_per_page: lbas_mb / p.host.link_mb_s * 1e9,
            half_duplex: p.is_sata(),
            command_ns: us(p.host.command_us),
            command_slots: p.host.command_slots,
            read_overhead_ns: us(p.host.read_overhead_us),
            write_ns: us(p.host.write_us),
            stall_rate: p.host.write_stall_rate,
            stall_ns: us(p.host.write_stall_us),
            dram_ns: us(p.host.dram_read_us),
            buffer_pages,
            window_pages,
            low: p.gc.low_watermark,
            critical: p.gc.critical_watermark,
            idle_delay_ns: NEVER,
            idle_ns_per_page: 0,
            idle_free_blocks: 0,
            slc_pages: max_pages(p.slc.slc_share, logical),
            slc_unit_pages: read_pages,
            slc_program_ns: us(p.slc.slc_program_us),
            slc_block_pages: (geometry.pages_per_block / n.bits_per_cell).max(1) as u64,
            in_place: p.in_place(),
            map_cache_pages: map_cache_pages(p, scale),
            map_seg_pages: map_seg_pages(n.page_kib),
            readahead_pages: p.host.readahead_kib * 1024 / LBA_BYTES,
        };
        let flash = Geometry {
            blocks: geometry.ftl_blocks(),
            ..geometry
        };
        if p.gc.idle_mb_s > 0.0 {
            let spare_blocks = flash.blocks as f64 - logical as f64 / flash.pages_per_block as f64;
            t.idle_delay_ns = us(p.gc.idle_delay_ms * 1000.0);
            t.idle_ns_per_page = (lbas_mb / p.gc.idle_mb_s * 1e9).ceil().max(1.0) as u64;
            t.idle_free_blocks = p.gc.low_watermark + (spare_blocks * p.gc.idle_spare) as u32;
        }
        Ok(Drive {
            t,
            flash,
            cfg,
            ftl,
            dies: vec![Die::new(0); dies as usize],
            idle: dies,
            min_ev: (NEVER, 0),
            dirty: false,
            buf: WriteBuf::new(t.buffer_pages, logical, t.window_pages),
            gc: Gc::new(dies as usize),
            channels: Channels::new(n.channels as usize),
            rng: SeededRng::new(p.drive.seed ^ RETRY_SEED),
            stall_rng: SeededRng::new(p.drive.seed ^ STALL_SEED),
            link_in: 0,
            link_out: 0,
            ctrl_free: 0,
            slot_free: vec![0; t.command_slots as usize],
            now: 0,
            done: Vec::new(),
            c: DriveCounters::default(),
            stream_of: if p.drive.streams > 1 {
                vec![0; logical as usize]
            } else {
                Vec::new()
            },
            gens: None,
            busy_until: 0,
            idle_at: NEVER,
            idle_flush: false,
            erased_before_reset: 0,
            slc: new_slc(&t, n.bits_per_cell, logical),
            map: (t.map_cache_pages > 0)
                .then(|| MapCache::new(logical, t.map_seg_pages, t.map_cache_pages)),
            ra: (t.readahead_pages > 0).then(|| Readahead::new(t.readahead_pages, LBA_BYTES)),
            fold_pages: Vec::new(),
        })
    }

    pub fn timing(&self) -> &Timing {
        &self.t
    }
    /// The drive's flash: all its superblocks (physical capacity, true OP), the GC reserve
    /// among them. The FTL's own geometry ([`Ftl::geometry`]) keeps the reserve apart.
    pub fn geometry(&self) -> &Geometry {
        &self.flash
    }
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }
    pub fn counters(&self) -> DriveCounters {
        DriveCounters {
            erases: self.erased_before_reset + self.gc.erased,
            ..self.c
        }
    }
    /// The virtual clock: the latest time the drive was advanced to.
    pub fn now(&self) -> u64 {
        self.now
    }
    /// Host slots of the buffer in use (pages buffered or being programmed): accepted, and not
    /// yet in the media counter, which counts a program when it ends.
    pub fn buffered_pages(&self) -> u64 {
        self.buf.used()
    }
    /// Writes waiting for buffer room.
    pub fn parked(&self) -> usize {
        self.buf.parked()
    }

    /// A fresh drive (everything unmapped, buffer empty, dies idle) at the current time;
    /// counters keep counting. Call between jobs, with no write parked.
    pub fn reset(&mut self) {
        // A reset (sanitize, format) erases every superblock that held data and undoes no
        // wear: the erase count carries over and grows by those erases.
        self.erased_before_reset +=
            self.gc.erased + u64::from(self.ftl.geometry().ftl_blocks() - self.ftl.free_blocks());
        self.ftl = Ftl::new(self.cfg).expect("the configuration was accepted before");
        // A reset drive holds nothing: no generation either.
        if let Some(g) = self.gens.as_mut() {
            g.accepted.fill(0);
            g.programmed.fill(0);
        }
        self.buf = WriteBuf::new(
            self.t.buffer_pages,
            self.ftl.geometry().logical_pages,
            self.t.window_pages,
        );
        self.dies = vec![Die::new(self.now); self.t.dies as usize];
        self.channels.clear();
        self.idle = self.t.dies;
        self.dirty = true;
        self.gc = Gc::new(self.t.dies as usize);
        self.link_in = self.now;
        self.link_out = self.now;
        self.ctrl_free = self.now;
        self.slot_free.fill(self.now);
        self.done.clear();
        self.busy_until = self.now;
        self.idle_at = NEVER;
        self.idle_flush = false;
        self.slc = self.slc.as_ref().map(Slc::emptied);
        self.map = self.map.as_ref().map(MapCache::emptied);
        self.ra = self.ra.as_ref().map(Readahead::emptied);
    }

    /// Time of the next internal event (a die finishing or starting work), `u64::MAX` if none.
    #[inline]
    pub fn next_event(&mut self) -> u64 {
        self.earliest().0
    }

    /// The next event: a die's, or the idle-GC timer's (`IDLE_EVENT`), whichever is first
    /// (dies first at equal times).
    #[inline]
    fn earliest(&mut self) -> (u64, usize) {
        if self.dirty {
            let (mut best, mut bi) = (NEVER, 0);
            for (i, d) in self.dies.iter().enumerate() {
                if d.ev < best {
                    best = d.ev;
                    bi = i;
                }
            }
            self.min_ev = (best, bi);
            self.dirty = false;
        }
        if self.idle_at < self.min_ev.0 {
            return (self.idle_at, IDLE_EVENT);
        }
        self.min_ev
    }

    /// True if writes wait for buffer room that no flash work will ever free: every die idle
    /// with nothing scheduled (the idle-GC timer does nothing while writes wait). A fault of
    /// the model: whoever drives the drive reports it instead of spinning on the timer.
    pub fn stuck(&self) -> bool {
        self.buf.parked() > 0 && self.dies.iter().all(|d| d.ev == NEVER)
    }

    /// Processes every internal event up to and including `t`, then sets the clock to `t`.
    /// Parked writes admitted on the way are available from [`Drive::take_completed`].
    pub fn advance(&mut self, t: u64) {
        loop {
            let (ev, d) = self.earliest();
            if ev > t {
                break;
            }
            self.now = self.now.max(ev);
            if d == IDLE_EVENT {
                self.idle_gc(ev);
            } else {
                self.on_event(d, ev);
            }
        }
        self.now = self.now.max(t);
    }

    /// A host request returns at `done`: idle GC waits until the host has been idle that
    /// long after it.
    #[inline]
    fn host_busy(&mut self, done: u64) {
        self.idle_flush = false;
        if let Some(s) = self.slc.as_mut() {
            s.idle_fold = false;
        }
        self.busy_until = self.busy_until.max(done);
        if self.t.idle_delay_ns != NEVER {
            self.idle_at = self.busy_until.saturating_add(self.t.idle_delay_ns);
        }
    }

    /// The idle-GC timer fired at `t`: collect one victim if the host is still idle and free
    /// space is below the idle target, then wait what relocating it takes at the idle rate.
    fn idle_gc(&mut self, t: u64) {
        self.idle_at = NEVER;
        let quiet = self.busy_until.saturating_add(self.t.idle_delay_ns);
        if t < quiet || self.buf.parked() > 0 {
            self.idle_at = quiet.max(t + self.t.idle_delay_ns);
            return;
        }
        // A partial unit of host pages is programmed now rather than left waiting for more.
        self.idle_flush = self.buf.live() > 0;
        if self.idle_flush && self.idle > 0 {
            self.kick(t);
        }
        // The SLC cache is emptied for the next burst, at the dies' own pace.
        if let Some(s) = self.slc.as_mut().filter(|s| s.pending() > 0) {
            s.idle_fold = true;
            if self.idle > 0 {
                self.kick(t);
            }
        }
        if self.ftl.free_blocks() >= self.t.idle_free_blocks {
            return;
        }
        let Some(e) = self.ftl.collect_one() else {
            return;
        };
        self.add_gc(e.relocations as u64, e.erases as u64);
        if self.idle > 0 {
            self.kick(t);
        }
        if e.relocations as u64 >= e.erases as u64 * self.flash.pages_per_block as u64 {
            // Fully valid victims: nothing left to gain.
            return;
        }
        self.idle_at = t + (e.relocations as u64).max(1) * self.t.idle_ns_per_page;
    }

    /// Moves the (tag, completion time) of admitted parked writes into `out`.
    pub fn take_completed(&mut self, out: &mut Vec<(u64, u64)>) {
        out.append(&mut self.done);
    }

    /// True if admitted parked writes are waiting to be taken.
    #[inline]
    pub fn has_completed(&self) -> bool {
        !self.done.is_empty()
    }

    /// A host read of `pages` 4 KiB pages from `lpn`, arriving at `now` (>= the clock).
    /// Returns its completion time.
    pub fn read(&mut self, now: u64, lpn: u64, pages: u64) -> u64 {
        self.read_bytes(now, lpn * LBA_BYTES, pages * LBA_BYTES)
    }

    /// A host read of `len` bytes from byte `offset` (sectors of a namespace formatted with
    /// smaller blocks than the map's 4 KiB unit): the units it touches are read whole, and
    /// only `len` bytes cross the link. Returns its completion time.
    pub fn read_bytes(&mut self, now: u64, offset: u64, len: u64) -> u64 {
        let (lpn, pages) = units_of(offset, len);
        self.c.host_read_bytes += len;
        let at = self.accept(now);
        let ready = match self.read_ahead(at, offset, len) {
            // Read ahead into DRAM: no flash read path.
            Some(ready) => ready.max(at + self.t.dram_ns),
            None => {
                let (slot, t1) = self.service_start(at + self.t.read_overhead_ns);
                let ready = self.flash_pages(t1, lpn, pages);
                self.service_end(slot, ready);
                ready
            }
        };
        let x = self.link_ns(len);
        let s = self.link(at, x, true);
        let done = ready.max(s) + x;
        self.host_busy(done);
        done
    }

    /// The drive's readahead for a host read of `len` bytes from `offset` arriving at `at`:
    /// reads the next chunk ahead if the read asks for it, and returns when the read's pages
    /// are in DRAM if they were read ahead.
    fn read_ahead(&mut self, at: u64, offset: u64, len: u64) -> Option<u64> {
        let l = self.ra.as_mut()?.read(offset, len);
        if let Some((lo, n)) = l.fetch {
            let n = n.min(self.ftl.geometry().logical_pages.saturating_sub(lo));
            if n > 0 {
                let ready = self.flash_pages(at + self.t.read_overhead_ns, lo, n);
                self.ra.as_mut().expect("checked").fetched((lo, n), ready);
            }
        }
        l.hit
    }

    /// Reads `pages` pages from `lpn` out of the flash (or the buffer, or nowhere for
    /// unmapped ones) from `t1`: when the last is out of its die and over its channel.
    fn flash_pages(&mut self, mut t1: u64, lpn: u64, pages: u64) -> u64 {
        let mut ready = t1 + self.t.dram_ns;
        let (mut key, mut n, mut die) = (u64::MAX, 0u64, 0usize);
        let mut map_seg = u64::MAX;
        // The read unit and die of the run of pages being gathered.
        let rp = self.t.read_pages as u64;
        let up = self.t.unit_pages as u64;
        let nd = self.t.dies as u64;
        for p in lpn..lpn + pages {
            if self.buf.contains(p) {
                continue;
            }
            // SLC-cached pages sit where they were striped in write order, which the model
            // approximates by their logical read unit (sequential data is written in order).
            let (k, d) = match self.slc.as_ref().filter(|s| s.is_live(p)) {
                Some(_) => (SLC_KEY | (p / rp), ((p / rp) % nd) as usize),
                None if self.t.in_place => (p / rp, ((p / up) % nd) as usize),
                None => {
                    if p / self.t.map_seg_pages != map_seg {
                        map_seg = p / self.t.map_seg_pages;
                        // A DRAM-less drive finds the page's flash address first.
                        if let Some(miss) = self
                            .map
                            .as_mut()
                            .and_then(|m| m.needs_page(p).then(|| m.read(p)))
                        {
                            t1 = self.map_io(t1, miss);
                        }
                    }
                    let Some(ppn) = self.ftl.lookup(p) else {
                        continue;
                    };
                    (ppn / rp, ((ppn / up) % nd) as usize)
                }
            };
            if k == key {
                n += 1;
                continue;
            }
            if n > 0 {
                ready = ready.max(self.die_read(die, t1, n, key));
            }
            key = k;
            n = 1;
            die = d;
        }
        if n > 0 {
            ready = ready.max(self.die_read(die, t1, n, key));
        }
        ready
    }

    /// A command arriving at `now` passes the controller, one at a time: when it is through.
    #[inline]
    fn accept(&mut self, now: u64) -> u64 {
        if self.t.command_ns == 0 {
            return now;
        }
        self.ctrl_free = now.max(self.ctrl_free) + self.t.command_ns;
        self.ctrl_free
    }

    /// A command ready for service at `t`: the command slot it takes (`usize::MAX`: none is
    /// kept) and when its service starts.
    #[inline]
    fn service_start(&self, t: u64) -> (usize, u64) {
        match self.slot_free.iter().enumerate().min_by_key(|&(_, &f)| f) {
            Some((i, &f)) => (i, t.max(f)),
            None => (usize::MAX, t),
        }
    }

    /// Slot `slot`'s command is serviced until `end`.
    #[inline]
    fn service_end(&mut self, slot: usize, end: u64) {
        if let Some(f) = self.slot_free.get_mut(slot) {
            *f = end;
        }
    }

    /// Reserves `x` of the host link from `t` (out: device to host), in arrival order: when
    /// the transfer starts. A half-duplex link carries one direction at a time.
    #[inline]
    fn link(&mut self, t: u64, x: u64, out: bool) -> u64 {
        if self.t.half_duplex {
            let s = t.max(self.link_in).max(self.link_out);
            self.link_in = s + x;
            self.link_out = s + x;
            return s;
        }
        let free = if out {
            &mut self.link_out
        } else {
            &mut self.link_in
        };
        let s = t.max(*free);
        *free = s + x;
        s
    }

    /// A host flash read of `pages` pages on `die` arriving at `t`: the die's tR (and any
    /// read-retry steps), then the transfer on its channel. Returns when the data is out.
    #[inline]
    fn die_read(&mut self, die: usize, t: u64, pages: u64, unit: u64) -> u64 {
        let x = (pages as f64 * self.t.xfer_ns_per_page) as u64;
        if let Some(at) = self.dies[die].registered(unit, t) {
            return self.channel(die, at, x);
        }
        let dur = self.flash_read_ns(x);
        // A suspension moves the die's event.
        self.dirty = true;
        let done = self.dies[die].read(t, dur, self.t.suspend, unit);
        self.channel(die, done, x)
    }

    /// Die time of one flash read whose transfer takes `x`: tR, plus for a read that needs
    /// read-retry 1 to `retry_max_steps` more reads with their transfers.
    #[inline]
    fn flash_read_ns(&mut self, x: u64) -> u64 {
        let mut steps = 0;
        if self.t.retry_rate > 0.0 && self.rng.unit_f64() < self.t.retry_rate {
            steps = 1 + self.rng.below(self.t.retry_max_steps as u64);
        }
        self.t.read_ns + steps * (self.t.read_ns + x)
    }

    /// Carries `x` of data on `die`'s channel from `t` (or when the channel is free);
    /// returns the end of the transfer.
    #[inline]
    fn channel(&mut self, die: usize, t: u64, x: u64) -> u64 {
        let c = die % self.channels.len();
        self.channels.carry(c, t, x, self.now)
    }

    /// A host write of `pages` pages from `lpn` arriving at `now`: its completion time, or
    /// `None` if it waits for buffer room (it completes later, reported with `tag` through
    /// [`Drive::take_completed`]).
    pub fn write(&mut self, now: u64, lpn: u64, pages: u64, tag: u64) -> Option<u64> {
        self.write_stream(now, lpn, pages, tag, 0)
    }

    /// A host write of `len` bytes from byte `offset`, as [`Drive::write`]. A unit it covers
    /// in part merges into the unit's buffered copy if the unit waits in the buffer;
    /// otherwise the unit is rewritten whole, its old data read from flash first (a
    /// read-modify-write on its die, behind the buffer, so it costs die time, not the
    /// write's latency).
    /// Its pages go to placement stream `stream` ([`Drive::write_stream`]).
    pub fn write_bytes(
        &mut self,
        now: u64,
        offset: u64,
        len: u64,
        tag: u64,
        stream: u16,
    ) -> Option<u64> {
        let (first, count) = units_of(offset, len);
        let (mut lpn, mut pages) = (first, count);
        if offset.is_multiple_of(LBA_BYTES) && len.is_multiple_of(LBA_BYTES) {
            return self.write_units(now, lpn, pages, len, tag, stream);
        }
        // The partial first and last units: merged if buffered, else read for the rewrite.
        let head = !offset.is_multiple_of(LBA_BYTES);
        let tail = !(offset + len).is_multiple_of(LBA_BYTES);
        if head && self.buf.contains(lpn) {
            lpn += 1;
            pages -= 1;
        }
        if tail && pages > 0 && self.buf.contains(lpn + pages - 1) {
            pages -= 1;
        }
        if pages == 0 {
            return Some(self.merge_into_buffer(now, first, count, len));
        }
        let partial = [
            (head && lpn * LBA_BYTES < offset).then_some(lpn),
            (tail && (lpn + pages) * LBA_BYTES > offset + len).then_some(lpn + pages - 1),
        ];
        let mut last = u64::MAX;
        for p in partial.into_iter().flatten() {
            if p != last && self.ftl.lookup(p).is_some() {
                self.flash_pages(now, p, 1);
            }
            last = p;
        }
        // Every byte the host sent counts and crosses the link, merged ones too.
        self.write_units(now, lpn, pages, len, tag, stream)
    }

    /// A write of `len` bytes within the `pages` buffered units from `lpn`: it updates their
    /// buffered copies (no new slot, no program of its own). Returns its completion time.
    fn merge_into_buffer(&mut self, now: u64, lpn: u64, pages: u64, len: u64) -> u64 {
        self.c.host_write_bytes += len;
        if let Some(ra) = self.ra.as_mut() {
            ra.invalidate(lpn, pages);
        }
        let ready = self.data_in(now, len);
        self.acknowledge(ready)
    }

    /// Link time of `bytes` of host data.
    #[inline]
    fn link_ns(&self, bytes: u64) -> u64 {
        (bytes as f64 / LBA_BYTES as f64 * self.t.link_ns_per_page) as u64
    }

    /// A write's `bytes` arriving at `now`: through the controller and over the link; when
    /// they are in.
    fn data_in(&mut self, now: u64, bytes: u64) -> u64 {
        let x = self.link_ns(bytes);
        let at = self.accept(now);
        self.link(at, x, false) + x
    }

    /// A write whose data is in the buffer at `ready` is acknowledged (a command slot, the
    /// firmware's write time, any stall): when it completes.
    fn acknowledge(&mut self, ready: u64) -> u64 {
        let (slot, start) = self.service_start(ready);
        let done = start + self.t.write_ns + self.stall();
        self.service_end(slot, done);
        self.host_busy(done);
        done
    }

    /// [`Drive::write`] through placement stream `stream` (< the profile's `streams`): its
    /// pages are programmed at that stream's frontier (FDP reclaim unit handle), so streams
    /// never share an erase block. Stream 0 is the default stream.
    pub fn write_stream(
        &mut self,
        now: u64,
        lpn: u64,
        pages: u64,
        tag: u64,
        stream: u16,
    ) -> Option<u64> {
        self.write_units(now, lpn, pages, pages * LBA_BYTES, tag, stream)
    }

    /// A host write of `bytes` (over the link) to the `pages` whole units from `lpn`.
    fn write_units(
        &mut self,
        now: u64,
        lpn: u64,
        pages: u64,
        bytes: u64,
        tag: u64,
        stream: u16,
    ) -> Option<u64> {
        if !self.stream_of.is_empty() {
            assert!(
                (stream as usize) < self.ftl.streams(),
                "stream {stream} of a drive with {} streams",
                self.ftl.streams()
            );
            self.stream_of[lpn as usize..(lpn + pages) as usize].fill(stream);
        }
        self.c.host_write_bytes += bytes;
        if let Some(ra) = self.ra.as_mut() {
            ra.invalidate(lpn, pages);
        }
        let ready = self.data_in(now, bytes);
        // A DRAM-less drive's write waits for its map pages (a parked write is timed by its
        // admission, which the map work on its dies delays).
        let ready = if self.map.is_some() {
            self.map_write(ready, lpn, pages)
        } else {
            ready
        };
        if self.buf.fits(pages, self.gc.held()) {
            self.buf.insert(lpn, pages);
            if self.idle > 0 && self.buf.live() >= self.t.unit_pages as u64 {
                self.kick(now);
            }
            Some(self.acknowledge(ready))
        } else {
            self.buf.park(tag, lpn, pages, ready);
            // A buffer smaller than a program unit never fills one: idle dies program what
            // it holds now (`take_unit`'s flush), or the write would wait for ever.
            if self.idle > 0 {
                self.kick(now);
            }
            None
        }
    }

    /// A DRAM-less drive's map work for a host write of `pages` from `lpn` whose data is in
    /// at `t` (DFTL: the request waits for its map pages): when it is done.
    fn map_write(&mut self, mut t: u64, lpn: u64, pages: u64) -> u64 {
        let seg = self.t.map_seg_pages;
        let mut p = lpn;
        while p < lpn + pages {
            let n = (seg - p % seg).min(lpn + pages - p);
            let miss = self.map.as_mut().expect("a DRAM-less drive").write(p, n);
            t = self.map_io(t, miss);
            p += n;
        }
        t
    }

    /// Times a map miss from `t`: the evicted page's write back (a program on its die, not
    /// suspended), then the needed page's read (a die read and its transfer). Returns when
    /// the map page is at hand.
    fn map_io(&mut self, mut t: u64, miss: MapMiss) -> u64 {
        let nd = self.dies.len() as u32;
        let x = self.t.xfer_ns_per_page as u64;
        let hold = Suspend {
            enabled: false,
            ..self.t.suspend
        };
        if let Some(seg) = miss.write_back {
            let d = (seg % nd) as usize;
            // One flash page: 1024 four-byte entries per 4 KiB of it.
            let map_page = self.t.map_seg_pages / 1024;
            self.dirty = true;
            t = self.dies[d].read(t, self.t.program_ns + map_page * x, hold, NEVER);
            self.c.media_write_bytes += map_page * LBA_BYTES;
        }
        if let Some(seg) = miss.read {
            let d = (seg % nd) as usize;
            self.dirty = true;
            let done = self.dies[d].read(t, self.t.read_ns, self.t.suspend, NEVER);
            t = self.channel(d, done, x);
        }
        t
    }

    /// The firmware stall a buffered write waits for: none for most, for a `stall_rate` share
    /// between half the longest stall and all of it.
    #[inline]
    fn stall(&mut self) -> u64 {
        if self.t.stall_rate > 0.0 && self.stall_rng.unit_f64() < self.t.stall_rate {
            let half = self.t.stall_ns / 2;
            half + self.stall_rng.below(self.t.stall_ns - half + 1)
        } else {
            0
        }
    }

    /// Deallocates the units wholly inside `len` bytes from byte `offset` (a unit trimmed in
    /// part keeps its data, as a drive's deallocation granularity allows). Returns its
    /// completion time.
    pub fn trim_bytes(&mut self, now: u64, offset: u64, len: u64) -> u64 {
        let lpn = offset.div_ceil(LBA_BYTES);
        let end = (offset + len) / LBA_BYTES;
        self.trim(now, lpn, end.saturating_sub(lpn))
    }

    /// Deallocates `pages` pages from `lpn`. Their buffered copies are no longer read, but
    /// they keep their slots and are programmed void (see `wbuf`). Returns its completion
    /// time.
    pub fn trim(&mut self, now: u64, lpn: u64, pages: u64) -> u64 {
        if let Some(ra) = self.ra.as_mut() {
            ra.invalidate(lpn, pages);
        }
        if let Some(m) = self.map.as_mut() {
            m.trim(lpn, pages);
        }
        for p in lpn..lpn + pages {
            if let Some(g) = self.gens.as_mut() {
                g.trimmed(p);
            }
            self.buf.discard(p);
            self.ftl.trim(p);
            if let Some(s) = self.slc.as_mut() {
                s.forget(p);
            }
        }
        self.host_busy(now + self.t.write_ns);
        now + self.t.write_ns
    }

    /// Physically free superblocks: FTL free blocks less victims whose valid pages are not all
    /// read yet (a victim read is free but for its erase, which goes before any program on
    /// each die).
    #[inline]
    fn free_phys(&self) -> i64 {
        self.ftl.free_blocks() as i64 - self.gc.unread() as i64
    }

    fn on_event(&mut self, d: usize, t: u64) {
        self.dirty = true;
        let die = self.dies[d];
        match die.kind {
            Kind::Program | Kind::SlcProgram => {
                self.c.media_write_bytes += die.pages as u64 * LBA_BYTES;
                self.buf.release(die.host_pages as u64);
                self.gc.program_ended((die.pages - die.host_pages) as u64);
                let before = self.done.len();
                self.buf
                    .admit(t, self.t.write_ns, self.gc.held(), &mut self.done);
                if let Some(last) = self.done[before..].iter().map(|&(_, at)| at).max() {
                    self.host_busy(last);
                }
            }
            Kind::GcRead => {
                self.gc.read_ended(die.pages as u64);
            }
            Kind::Erase => {
                self.gc.erased_on(d);
            }
            Kind::FoldRead => {
                if let Some(s) = self.slc.as_mut() {
                    s.read_ended(die.pages as u64);
                }
            }
            Kind::FoldProgram => {
                self.c.media_write_bytes += die.pages as u64 * LBA_BYTES;
            }
            Kind::Idle => {}
        }
        self.dies[d].rest();
        self.idle += 1;
        self.try_start(d, t);
        if self.idle > 0 {
            self.kick(t);
        }
    }

    /// Offers work to every idle die at time `t`.
    fn kick(&mut self, t: u64) {
        for d in 0..self.dies.len() {
            if self.dies[d].is_idle() {
                self.try_start(d, t);
            }
        }
    }

    /// Starts the next piece of flash work on idle die `d` at `t`, if there is any.
    fn try_start(&mut self, d: usize, t: u64) {
        debug_assert!(self.dies[d].is_idle());
        self.dirty = true;
        let rf = self.dies[d].read_free;
        if rf > t {
            self.dies[d].wake_at(rf);
            self.idle -= 1;
            return;
        }
        // In foreground GC (a victim's pages still to read keep host pages out) GC reads up
        // to a stripe (a unit on every die) ahead, so the victim frees at once without
        // flooding the buffer with relocated data.
        if self.gc.read_pages[d] > 0
            && (self.gc.ready < self.gc_read_ahead()
                || (self.free_phys() < self.t.critical as i64
                    && self.gc.ready < self.t.unit_pages as u64 * self.t.dies as u64))
        {
            let n = self.gc.read_pages[d].min(self.t.read_pages as u64);
            self.gc.read_pages[d] -= n;
            self.gc.read_pages_total -= n;
            self.gc.reads_inflight += 1;
            let x = (n as f64 * self.t.xfer_ns_per_page) as u64;
            let read = self.flash_read_ns(x);
            // The die holds the data until its channel has carried it.
            let end = self.channel(d, t + read, x);
            self.dies[d].start(t, Kind::GcRead, end - t, n as u32, 0);
        } else if self.gc.erases[d] > 0 && self.gc.read_pages[d] == 0 {
            self.gc.erases[d] -= 1;
            self.dies[d].start(t, Kind::Erase, self.t.erase_ns, 0, 0);
        } else if let Some(n) = self.take_fold_read() {
            let x = (n as f64 * self.t.xfer_ns_per_page) as u64;
            let end = self.channel(d, t + self.t.read_ns, x);
            self.dies[d].start(t, Kind::FoldRead, end - t, n as u32, 0);
        } else if let Some((kind, pages, host)) = self.take_unit() {
            // The unit's data goes in over the channel (overlapping the program: cache
            // programming), keeping reads on that channel waiting meanwhile; the program
            // ends no sooner than its data is in, so a slow channel paces programs.
            let x = (pages as f64 * self.t.xfer_ns_per_page) as u64;
            let data_in = self.channel(d, t, x);
            let program = match kind {
                Kind::SlcProgram => self.t.slc_program_ns,
                _ => self.t.program_ns,
            };
            self.dies[d].start(t, kind, program.max(data_in - t), pages, host);
        } else {
            return;
        }
        self.idle -= 1;
    }

    /// Forms one program unit of relocated and buffered host pages (mapped in the FTL now).
    /// `None` unless a full unit is available, or GC's last relocated pages are.
    ///
    /// GC is paced: its share of the unit is what it still owes against the host room left
    /// before the FTL collects again, `owed / (owed + room)`, so a victim's relocation is
    /// spread over the host pages its space takes and is done as that space runs out, at any
    /// superblock size. GC takes more when too few host pages are buffered (the dies would
    /// idle otherwise), all of it while host pages may not be mapped (foreground GC).
    fn take_unit(&mut self) -> Option<(Kind, u32, u32)> {
        if self.slc.is_some() {
            if let Some(u) = self.take_slc_unit() {
                return Some(u);
            }
        }
        let unit = self.t.unit_pages as u64;
        let host_ok = self.free_phys() >= self.t.critical as i64;
        let host = if host_ok { self.buf.live() } else { 0 };
        let g = self.gc.ready;
        // A partial unit costs a whole program: relocated pages wait to be topped up with host
        // pages or the next victim's, unless nothing else can come (no GC read pending, no host
        // page buffered).
        let gc_tail = g > 0
            && self.gc.read_pages_total == 0
            && self.gc.reads_inflight == 0
            && self.buf.live() == 0;
        // Host pages too: a write waits for room the buffered pages cannot make as a full
        // unit (a buffer smaller than a unit plus a write), so flush what there is.
        let host_flush = host > 0 && (self.buf.parked() > 0 || self.idle_flush);
        // Relocated pages that hold the buffer while writes wait for room, with no die at work
        // and no GC read in flight to free or top it up, are programmed as they are: the host
        // pages that would top them up cannot enter until they go (a small buffer would
        // otherwise wait for ever).
        let gc_flush = g > 0
            && self.buf.parked() > 0
            && self.idle as usize == self.dies.len()
            && self.gc.reads_inflight == 0;
        if g + host < unit && !gc_tail && !host_flush && !gc_flush {
            return None;
        }
        let paced = self.gc_pages_per_unit();
        let gp = g.min(unit).min(paced.max(unit - host.min(unit)));
        self.gc.programmed(gp);
        let mut hp = 0u64;
        if host_ok {
            while gp + hp < unit {
                if let Some(ahead) = self.buf.peek(PREFETCH) {
                    self.ftl.prefetch(ahead);
                }
                let Some(entry) = self.buf.pop() else {
                    break;
                };
                hp += 1;
                if let (Some(g), Entry::Page(lpn)) = (self.gens.as_mut(), entry) {
                    g.programmed(lpn);
                }
                if self.t.in_place {
                    continue;
                }
                let (Entry::Page(lpn) | Entry::Void(lpn)) = entry;
                let stream = self.stream_of.get(lpn as usize).copied().unwrap_or(0) as u32;
                let e = match entry {
                    Entry::Page(_) => self.ftl.write(lpn, stream),
                    Entry::Void(_) => self.ftl.write_void(stream),
                };
                if e.erases > 0 {
                    self.add_gc(e.relocations as u64, e.erases as u64);
                }
                if let (Some(s), Entry::Page(_)) = (self.slc.as_mut(), entry) {
                    s.forget(lpn);
                }
            }
        }
        Some((Kind::Program, (gp + hp) as u32, hp as u32))
    }

    /// The SLC cache must fold now: the host is idle, or the cache holds more flash than the
    /// free space (`room`, the FTL's host room) lends it.
    #[inline]
    fn folding(s: &Slc, room: u64) -> bool {
        s.idle_fold || s.over(room)
    }

    /// Starts a fold read of up to one SLC unit if folding and fewer than two native units
    /// are read or being read; the live pages it reads (whole SLC blocks passed are erased).
    fn take_fold_read(&mut self) -> Option<u64> {
        let unit = self.t.unit_pages as u64;
        let room = self.ftl.host_room();
        let s = self.slc.as_mut()?;
        if !Self::folding(s, room) || s.reading + s.ready >= 2 * unit {
            return None;
        }
        let mut n = 0;
        while n == 0 && s.used() > 0 {
            n = s.take_for_read(self.t.slc_unit_pages as u64);
        }
        let erases = s.erases_due(self.t.slc_block_pages);
        if erases > 0 {
            self.add_gc(0, erases);
        }
        (n > 0).then_some(n)
    }

    /// An SLC-cache unit: a native unit of folded pages when folding (whole, or the last
    /// ones), else an SLC unit of buffered host pages while the cache has room and GC owes
    /// nothing (relocation goes to native units with the host pages beside it).
    fn take_slc_unit(&mut self) -> Option<(Kind, u32, u32)> {
        let unit = self.t.unit_pages as u64;
        let room = self.ftl.host_room();
        let host_ok = self.free_phys() >= self.t.critical as i64;
        let s = self.slc.as_mut()?;
        if Self::folding(s, room) {
            let last = s.used() == 0 && s.reading == 0;
            if s.ready >= unit || (last && s.ready > 0) {
                let mut pages = std::mem::take(&mut self.fold_pages);
                pages.clear();
                s.take_for_program(unit, &mut pages);
                for &lpn in &pages {
                    let e = self.ftl.write(lpn, 0);
                    if e.erases > 0 {
                        self.add_gc(e.relocations as u64, e.erases as u64);
                    }
                }
                let n = pages.len() as u32;
                self.fold_pages = pages;
                if n > 0 {
                    return Some((Kind::FoldProgram, n, 0));
                }
            }
            return None;
        }
        let su = self.t.slc_unit_pages as u64;
        let live = self.buf.live();
        let flush = live > 0 && (self.buf.parked() > 0 || self.idle_flush);
        if self.gc.owed > 0 || !host_ok || s.room(room) < su || (live < su && !flush) {
            return None;
        }
        let mut hp = 0u64;
        while hp < su {
            let Some(entry) = self.buf.pop() else {
                break;
            };
            match entry {
                Entry::Page(lpn) => {
                    if let Some(g) = self.gens.as_mut() {
                        g.programmed(lpn);
                    }
                    // The native copy is stale now; the FTL forgets it without a trim.
                    self.ftl.unmap(lpn);
                    s.push(Some(lpn));
                }
                Entry::Void(_) => s.push(None),
            }
            hp += 1;
        }
        Some((Kind::SlcProgram, hp as u32, hp as u32))
    }

    /// GC's paced share of a program unit, in pages: `unit * owed / (owed + room)`, rounded
    /// up, with `room` the host pages the FTL can still map before it collects again.
    #[inline]
    fn gc_pages_per_unit(&self) -> u64 {
        let owed = self.gc.owed;
        if owed == 0 {
            return 0;
        }
        // Pages stay below 2^32 (the FTL's limit) and a unit below 2^12: no overflow.
        (self.t.unit_pages as u64 * owed).div_ceil(owed + self.ftl.host_room())
    }

    /// How far GC reads ahead of its programs: its paced share of the next
    /// `READ_AHEAD_UNITS` units, and at least a whole unit (which foreground GC, mapping no
    /// host page, must be able to fill), so relocated data takes the buffer the next programs
    /// need and no more.
    #[inline]
    fn gc_read_ahead(&self) -> u64 {
        (self.gc_pages_per_unit() * READ_AHEAD_UNITS).max(self.t.unit_pages as u64)
    }

    /// Charges the flash work of `victims` collected victims holding `pages` valid pages.
    fn add_gc(&mut self, pages: u64, victims: u64) {
        self.gc.add(pages, victims);
        // No kick here: this runs inside `try_start`; callers offer work to idle dies after.
    }
}

/// `--verify` on the emulated drive, which keeps no data: the write generation of each logical
/// page as the host sent it (`accepted`) and as it left the write buffer for the flash
/// (`programmed`); 0 is "nothing written". A read finds a buffered page's accepted generation
/// and a flash page's programmed one, through the map ([`Drive::found`]).
struct Generations {
    accepted: Vec<u32>,
    programmed: Vec<u32>,
}

impl Generations {
    fn programmed(&mut self, lpn: u64) {
        self.programmed[lpn as usize] = self.accepted[lpn as usize];
    }

    fn trimmed(&mut self, lpn: u64) {
        self.accepted[lpn as usize] = 0;
        self.programmed[lpn as usize] = 0;
    }
}

impl Drive {
    /// Keeps `--verify`'s generations from now on (8 bytes per logical page).
    pub fn keep_generations(&mut self) {
        if self.gens.is_none() {
            let n = self.ftl.geometry().logical_pages as usize;
            self.gens = Some(Generations {
                accepted: vec![0; n],
                programmed: vec![0; n],
            });
        }
    }

    /// The host sends a write of `len` bytes at `offset` whose blocks of `block` bytes carry
    /// generations from `first` (`--verify`'s numbering). Kept only after
    /// [`Drive::keep_generations`].
    pub fn note_generations(&mut self, offset: u64, len: u64, first: u32, block: u64) {
        if let Some(g) = self.gens.as_mut() {
            let (lpn, count) = units_of(offset, len);
            for i in 0..count {
                let b = (i * LBA_BYTES) / block.max(1);
                g.accepted[(lpn + i) as usize] =
                    ssdiq_engine::verify::Verifier::generation_of(first, b);
            }
        }
    }

    /// What a read of `len` bytes at `offset` finds: the generation every page of it holds,
    /// `Never` where none holds one, or `Torn`. A buffered page holds its newest write; a page
    /// on the flash (native or SLC) the write programmed there, found through the map: a page
    /// whose map entry points at a flash page last programmed with another logical page is
    /// torn, whatever it holds.
    pub fn found(&self, offset: u64, len: u64) -> ssdiq_engine::verify::Found {
        use ssdiq_engine::verify::Found;
        let Some(g) = self.gens.as_ref() else {
            return Found::Never;
        };
        let (first, count) = units_of(offset, len);
        let mut seen: Option<u32> = None;
        for lpn in first..first + count {
            let at = if self.buf.contains(lpn) {
                g.accepted[lpn as usize]
            } else if self.t.in_place || self.slc.as_ref().is_some_and(|s| s.is_live(lpn)) {
                g.programmed[lpn as usize]
            } else {
                match self.ftl.lookup(lpn) {
                    Some(ppn) if self.ftl.lpn_at(ppn) != Some(lpn) => return Found::Torn,
                    Some(_) => g.programmed[lpn as usize],
                    None => 0,
                }
            };
            match seen {
                None => seen = Some(at),
                Some(s) if s != at => return Found::Torn,
                Some(_) => {}
            }
        }
        match seen {
            None | Some(0) => Found::Never,
            Some(g) => Found::Generation(g),
        }
    }
}

#[cfg(test)]
mod verify_tests {
    use super::*;
    use crate::profile::{builtin, Profile};
    use ssdiq_engine::verify::{Found, Verifier};

    fn drain(d: &mut Drive) {
        let mut out = Vec::new();
        while d.next_event() != u64::MAX {
            let t = d.next_event();
            d.advance(t);
            d.take_completed(&mut out);
        }
    }

    /// A write as the executor sends one with `--verify`: its generation noted, then sent.
    fn write(d: &mut Drive, v: &Verifier, lpn: u64) {
        let at = lpn * LBA_BYTES;
        let g = v.assign(at, LBA_BYTES);
        d.note_generations(at, LBA_BYTES, g, LBA_BYTES);
        let now = d.now();
        assert!(
            d.write_bytes(now, at, LBA_BYTES, lpn, 0).is_some(),
            "buffer room"
        );
        v.written(at, LBA_BYTES, g);
    }

    fn check(d: &Drive, v: &Verifier, lpn: u64) -> Option<String> {
        let at = lpn * LBA_BYTES;
        let (checked, m) = v.check_found(at, d.found(at, LBA_BYTES));
        assert_eq!(checked, 1, "page {lpn} was written");
        m.map(|m| m.what)
    }

    #[test]
    fn generations_follow_writes_through_buffer_and_map_and_a_fault_shows() {
        let p = Profile::parse(builtin("default").unwrap(), &[("capacity", "256MiB")]).unwrap();
        let mut d = Drive::new(&p).unwrap();
        d.keep_generations();
        let v = Verifier::new(1, LBA_BYTES, 256 << 20, true);
        let pages = 4 * d.timing().unit_pages as u64;
        for lpn in 0..pages {
            write(&mut d, &v, lpn);
        }
        // Rewrites: the newest generation is the one to find.
        for lpn in (0..pages).step_by(3) {
            write(&mut d, &v, lpn);
        }
        // One page more, short of a program unit: it waits in the buffer.
        write(&mut d, &v, pages);
        assert!(d.buf.contains(pages), "the last write is still buffered");
        assert_eq!(check(&d, &v, pages), None);
        // Idle long enough for the buffer to reach the flash.
        let later = d.now() + 10_000_000_000;
        d.advance(later);
        drain(&mut d);
        assert!(!d.buf.contains(0) && d.ftl.lookup(0).is_some());
        for lpn in 0..=pages {
            assert_eq!(check(&d, &v, lpn), None, "page {lpn}");
        }
        // A write the drive acknowledged and never kept: the older write is found.
        let at = 7 * LBA_BYTES;
        let g = v.assign(at, LBA_BYTES);
        v.written(at, LBA_BYTES, g);
        assert!(check(&d, &v, 7).unwrap().contains("an older write"));
        // A page the map lost: nothing is found.
        d.ftl.unmap(5);
        assert!(check(&d, &v, 5).unwrap().contains("nothing written"));
        // A block whose pages hold different writes is torn.
        assert_eq!(d.found(5 * LBA_BYTES, 2 * LBA_BYTES), Found::Torn);
    }
}
