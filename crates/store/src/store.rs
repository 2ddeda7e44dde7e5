//! The page store: buffer pool + write path (in place with a double-write buffer, or out of
//! place through [`Space`]) over a [`Device`].
//!
//! Invariants:
//! - Every read returns the last written version of the page: a fetched page must pass the
//!   magic/CRC/page-id check and (with `verify`) carry the version the store last gave it;
//!   anything else is an error, never silently accepted.
//! - A page is resident in the pool, or stored where the layout says (in place: at
//!   pid x 4 KiB; out of place: the PID map), or both. A page the GC left to its dirty frame
//!   is resident and dirty until it is written.
//! - The write path of an evicted batch: append each page's write timestamp to its history
//!   (for GDT), seal its checksum, compress it (out of place with compression), then write.
//! - Data modes ([`DataMode`]): with bytes, pages have contents and every step above moves
//!   and checks them. In the model mode nothing has contents: a page's stored size comes
//!   from the calibrated compression model ([`crate::sizes`]), its write history from a
//!   per-page array, and the device takes requests by length. Every decision (eviction,
//!   sizes aside: packing, placement, GC, maps, device requests) is made by the same code on
//!   the same inputs, so given the same stored sizes both modes run identically
//!   ([`Store::record_sizes`] / [`Store::replay_sizes`] prove it in the tests).

use ssdiq_workload::SeededRng;

use crate::compress::{decompress, Compressor};
use crate::device::{Device, Placement};
pub use crate::error::StoreError;
use crate::page::{self, History, PageError, PageGen, PAGE};
use crate::pool::Pool;
use crate::sizes::{Calibration, PageState, Shadow, SizeModel};
use crate::space::map::Loc;
use crate::space::{gdt, Item, Kind, Space};
pub use ssdiq_schema::store::{DataMode, Layout, StoreConfig};

impl StoreError {
    pub fn is_usage(&self) -> bool {
        match self {
            StoreError::Config(_) | StoreError::NoProgress(_) => true,
            StoreError::Device(d) => d.is_usage(),
            _ => false,
        }
    }
}

/// Cumulative counters of the store (bytes are device bytes unless said otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct StoreCounters {
    pub reads: u64,
    pub updates: u64,
    pub hits: u64,
    pub misses: u64,
    /// Pages written by eviction (and checkpoints): the user writes, counted as 4 KiB each.
    pub user_pages: u64,
    /// Device bytes of user writes (compressed and packed slots, or whole pages).
    pub user_bytes: u64,
    /// Sum of the stored (compressed) sizes of user-written pages.
    pub user_stored_bytes: u64,
    pub dwb_bytes: u64,
    pub load_bytes: u64,
    pub page_reads: u64,
    pub read_bytes: u64,
}

pub struct Store {
    cfg: StoreConfig,
    dev: Box<dyn Device>,
    pool: Pool,
    gen: PageGen,
    comp: Compressor,
    space: Option<Space>,
    /// Last version per page: bytes mode with `verify` (to check reads), model mode with
    /// compression (a page's size depends on it).
    versions: Vec<u32>,
    /// Model mode: stored sizes (with compression) and write histories (with compression
    /// or GDT).
    sizes: Option<SizeModel>,
    replay: Option<std::vec::IntoIter<u32>>,
    histories: Vec<History>,
    /// Stored sizes in the order they were decided, if recording.
    size_log: Option<Vec<u32>>,
    /// Bytes mode with compression: the size model run beside LZ4 on every user write.
    shadow: Option<Box<(SizeModel, Shadow)>>,
    /// Page-write clock (the GSN stand-in of the write history).
    clock: u64,
    rng: SeededRng,
    pub counters: StoreCounters,
    staging: Vec<u8>,
    items: Vec<Item>,
    victims: Vec<u32>,
    dirty: Vec<u32>,
    order: Vec<u32>,
    slot: Vec<u8>,
}

impl Store {
    /// Checks the configuration against the device and builds an empty store (call
    /// [`Store::load`] next).
    pub fn new(cfg: StoreConfig, dev: Box<dyn Device>) -> Result<Store, StoreError> {
        let info = dev.info().clone();
        let bad = |m: String| Err(StoreError::Config(m));
        if cfg.pages == 0 || cfg.pages >= u32::MAX as u64 {
            return bad(format!("{} pages: expected 1 to 2^32 - 2", cfg.pages));
        }
        if cfg.frames < 2 || cfg.evict_batch == 0 || cfg.evict_batch > cfg.frames / 2 {
            return bad(format!(
                "{} buffer frames with eviction batches of {}: expected at least two batches of frames",
                cfg.frames, cfg.evict_batch
            ));
        }
        let bytes = cfg.data == DataMode::Bytes;
        if info.keeps_data != bytes {
            return bad(if bytes {
                format!(
                    "{} keeps no data; the bytes mode needs one that does",
                    info.description
                )
            } else {
                format!(
                    "the model data mode runs on the emulated SSD without data; {} keeps data",
                    info.description
                )
            });
        }
        let space = match &cfg.layout {
            Layout::InPlace { dwb } => {
                if info.zoned.is_some() {
                    return bad(
                        "in-place writes need a conventional device, not a zoned one".into(),
                    );
                }
                let need =
                    (cfg.pages + if *dwb { cfg.evict_batch as u64 } else { 0 }) * PAGE as u64;
                if need > info.capacity {
                    return bad(format!(
                        "{} pages{} need {need} bytes; the device has {}",
                        cfg.pages,
                        if *dwb {
                            " and the double-write area"
                        } else {
                            ""
                        },
                        info.capacity
                    ));
                }
                None
            }
            Layout::OutOfPlace { space, compression } => {
                let s = space;
                if s.zone_capacity < PAGE as u64 || !s.zone_capacity.is_multiple_of(PAGE as u64) {
                    return bad(format!(
                        "zone capacity {} is not a positive multiple of 4 KiB",
                        s.zone_capacity
                    ));
                }
                if s.zone_bytes * (s.zones as u64) > info.capacity {
                    return bad(format!(
                        "{} zones of {} bytes exceed the device ({} bytes)",
                        s.zones, s.zone_bytes, info.capacity
                    ));
                }
                if s.zones < 2 * s.max_open + 1 {
                    return bad(format!(
                        "{} zones for {} open zones: expected at least 2 x open + 1",
                        s.zones, s.max_open
                    ));
                }
                let room = (s.zones - s.max_open) as u64 * (s.zone_capacity / PAGE as u64);
                let worst = if *compression {
                    cfg.pages / 2
                } else {
                    cfg.pages
                };
                if worst > room {
                    return bad(format!(
                        "{} pages do not fit: {} zones less {} open hold {room} pages{}",
                        cfg.pages,
                        s.zones,
                        s.max_open,
                        if *compression {
                            " (two per slot at best)"
                        } else {
                            ""
                        }
                    ));
                }
                if matches!(s.backend, crate::space::Backend::Zns) && info.zoned.is_none() {
                    return bad("the ZNS backend needs a zoned device".into());
                }
                if info.zoned.is_some() && !matches!(s.backend, crate::space::Backend::Zns) {
                    return bad("a zoned device needs the ZNS backend".into());
                }
                if let crate::space::Backend::Fdp { handles } = s.backend {
                    if handles > info.streams {
                        return bad(format!(
                            "{handles} placement handles; the device has {}",
                            info.streams
                        ));
                    }
                }
                Some(Space::new(s.clone(), cfg.pages, bytes))
            }
        };
        let gen = PageGen::calibrated(cfg.seed, cfg.data_ratio, cfg.records_per_page);
        let (compression, gdt) = match &cfg.layout {
            Layout::OutOfPlace { space, compression } => (*compression, space.gdt.is_some()),
            Layout::InPlace { .. } => (false, false),
        };
        let model_sizes = !bytes && compression;
        Ok(Store {
            pool: Pool::new(cfg.frames, cfg.pages, bytes),
            sizes: model_sizes.then(|| SizeModel::new(&gen, cfg.seed)),
            replay: None,
            histories: if !bytes && (compression || gdt) {
                vec![History::default(); cfg.pages as usize]
            } else {
                Vec::new()
            },
            size_log: None,
            shadow: None,
            gen,
            comp: Compressor::default(),
            space,
            versions: if (cfg.verify && bytes) || model_sizes {
                vec![0; cfg.pages as usize]
            } else {
                Vec::new()
            },
            clock: 1,
            rng: SeededRng::new(cfg.seed ^ 0xda7a),
            counters: StoreCounters::default(),
            staging: Vec::new(),
            items: Vec::new(),
            victims: Vec::new(),
            dirty: Vec::new(),
            order: Vec::new(),
            slot: vec![0u8; PAGE],
            dev,
            cfg,
        })
    }

    pub fn config(&self) -> &StoreConfig {
        &self.cfg
    }
    pub fn device(&mut self) -> &mut dyn Device {
        self.dev.as_mut()
    }
    pub fn device_ref(&self) -> &dyn Device {
        self.dev.as_ref()
    }
    pub fn space(&self) -> Option<&Space> {
        self.space.as_ref()
    }
    pub fn pool(&self) -> &Pool {
        &self.pool
    }
    pub fn generator(&self) -> &PageGen {
        &self.gen
    }

    /// Bytes of metadata the layout keeps in memory (maps, zones, groups, EDTs) plus the
    /// pool's page table.
    pub fn metadata_bytes(&self) -> u64 {
        self.space.as_ref().map_or(0, |s| s.metadata_bytes()) + self.pool.metadata_bytes()
    }

    /// The compression model (model mode with compression).
    pub fn size_model(&self) -> Option<&SizeModel> {
        self.sizes.as_ref()
    }

    /// Bytes mode with compression: from now on, also asks the size model for every user
    /// write and keeps both sizes (see [`Store::size_calibration`]).
    pub fn shadow_size_model(&mut self) {
        if self.bytes() && self.compressed() {
            let m = SizeModel::new(&self.gen, self.cfg.seed);
            self.shadow = Some(Box::new((m, Shadow::default())));
        }
    }

    /// The size model against real LZ4: on this run's user writes (bytes mode, shadowed),
    /// or on drawn pages (model mode).
    pub fn size_calibration(&self) -> Option<Calibration> {
        match (&self.shadow, &self.sizes) {
            (Some(s), _) => Some(s.1.calibration(&s.0)),
            (None, Some(m)) => Some(m.check(self.cfg.pages, 4000)),
            (None, None) => None,
        }
    }

    /// From now on, keeps every stored size the store decides, in order (see
    /// [`Store::replay_sizes`]).
    pub fn record_sizes(&mut self) {
        self.size_log = Some(Vec::new());
    }

    /// The sizes recorded since [`Store::record_sizes`].
    pub fn recorded_sizes(&mut self) -> Vec<u32> {
        self.size_log.take().unwrap_or_default()
    }

    /// Model mode: takes the stored sizes from `sizes`, in order, instead of the model (to
    /// replay a bytes-mode run's sizes exactly).
    pub fn replay_sizes(&mut self, sizes: Vec<u32>) -> Result<(), StoreError> {
        if self.cfg.data != DataMode::Model {
            return Err(StoreError::Config(
                "stored sizes are replayed in the model data mode only".into(),
            ));
        }
        self.replay = Some(sizes.into_iter());
        Ok(())
    }

    fn bytes(&self) -> bool {
        self.cfg.data == DataMode::Bytes
    }

    fn compressed(&self) -> bool {
        matches!(
            self.cfg.layout,
            Layout::OutOfPlace {
                compression: true,
                ..
            }
        )
    }

    /// Model mode: the stored size of a write of `pid` at clock `now` (its history already
    /// holds `now`).
    fn model_size(&mut self, pid: u64, now: u64) -> Result<u32, StoreError> {
        if let Some(r) = &mut self.replay {
            return r.next().ok_or(StoreError::ReplayEnded);
        }
        Ok(match &mut self.sizes {
            Some(m) => {
                let s = PageState {
                    pid,
                    version: self.versions[pid as usize] as u64,
                    history: &self.histories[pid as usize],
                };
                m.size(&s, now)
            }
            None => PAGE as u32,
        })
    }

    fn log_size(&mut self, len: u32) {
        if let Some(l) = &mut self.size_log {
            l.push(len);
        }
    }

    /// The item for page `pid`, its stored form appended to the staging buffer: the bytes of
    /// `page` (compressed if the layout compresses), or, in the model mode, nothing and the
    /// size the model gives.
    fn stage(
        &mut self,
        pid: u64,
        page: Option<&[u8]>,
        now: u64,
        edt: u64,
    ) -> Result<Item, StoreError> {
        let off = self.staging.len();
        let len = match page {
            Some(p) => stage_bytes(
                self.compressed().then_some(&mut self.comp),
                p,
                &mut self.staging,
            ),
            None if self.compressed() => self.model_size(pid, now)?,
            None => PAGE as u32,
        };
        self.log_size(len);
        Ok(Item { pid, off, len, edt })
    }

    /// Writes every page once (the load phase), in batches of 256 pages.
    pub fn load(&mut self, progress: &mut dyn FnMut(u64)) -> Result<(), StoreError> {
        self.load_until(progress, &|| false)
    }

    /// [`Store::load`], ending after the batch in which `stop` turns true (a Ctrl-C: the pages
    /// after it are never loaded, and the phases after the load end at once).
    pub fn load_until(
        &mut self,
        progress: &mut dyn FnMut(u64),
        stop: &dyn Fn() -> bool,
    ) -> Result<(), StoreError> {
        const BATCH: u64 = 256;
        let mut page = vec![0u8; PAGE];
        let mut pid = 0;
        while pid < self.cfg.pages {
            let end = (pid + BATCH).min(self.cfg.pages);
            self.staging.clear();
            self.items.clear();
            for p in pid..end {
                let item = if self.bytes() {
                    self.gen.init(&mut page, p);
                    self.stage(p, Some(&page), self.clock, self.clock)?
                } else {
                    self.stage(p, None, self.clock, self.clock)?
                };
                self.items.push(item);
            }
            let bytes = (end - pid) * PAGE as u64;
            match self.space.as_mut() {
                None => {
                    let at = pid * PAGE as u64;
                    if self.cfg.data == DataMode::Bytes {
                        self.dev.write(at, &self.staging, Placement::None)?;
                    } else {
                        self.dev.write_len(at, bytes, Placement::None)?;
                    }
                    self.counters.load_bytes += bytes;
                }
                Some(space) => {
                    let before = space.counters.load_slots;
                    space.write(
                        self.dev.as_mut(),
                        Kind::Load,
                        &self.staging,
                        &self.items,
                        self.clock,
                        &|_| false,
                    )?;
                    self.counters.load_bytes += (space.counters.load_slots - before) * PAGE as u64;
                }
            }
            pid = end;
            progress(pid);
            if stop() {
                break;
            }
        }
        Ok(())
    }

    /// Reads page `pid` (a YCSB read / lookup).
    pub fn read(&mut self, pid: u64) -> Result<(), StoreError> {
        self.counters.reads += 1;
        self.fix(pid)?;
        Ok(())
    }

    /// Updates record `slot` of page `pid`.
    pub fn update(&mut self, pid: u64, slot: u32) -> Result<(), StoreError> {
        self.counters.updates += 1;
        let f = self.fix(pid)?;
        if self.bytes() {
            let frame = self.pool.frame_mut(f);
            self.gen.update(frame, slot, &mut self.rng);
            if self.cfg.verify {
                self.versions[pid as usize] = page::version_of(frame) as u32;
            }
        } else if let Some(v) = self.versions.get_mut(pid as usize) {
            *v = v.wrapping_add(1);
        }
        self.pool.set_dirty(f, true);
        Ok(())
    }

    /// The frame holding `pid`, fetching it on a miss.
    fn fix(&mut self, pid: u64) -> Result<u32, StoreError> {
        if let Some(f) = self.pool.lookup(pid) {
            self.counters.hits += 1;
            self.pool.touch(f);
            return Ok(f);
        }
        self.counters.misses += 1;
        while !self.pool.has_free() {
            self.evict_batch()?;
        }
        let f = self.pool.install(pid).expect("a frame is free");
        if let Err(e) = self.fetch(pid, f) {
            self.pool.release(f);
            return Err(e);
        }
        Ok(f)
    }

    /// Reads the stored form of `pid` (its 4 KiB slot or home block) into frame `f` and
    /// checks it (bytes mode); a page stored whole is read straight into the frame.
    fn fetch(&mut self, pid: u64, f: u32) -> Result<(), StoreError> {
        let (off, loc) = match &self.space {
            None => (pid * PAGE as u64, None),
            Some(s) => {
                let (off, l) = s.locate(pid).ok_or(StoreError::Lost(pid))?;
                (off, Some(l))
            }
        };
        self.counters.page_reads += 1;
        self.counters.read_bytes += PAGE as u64;
        if !self.bytes() {
            self.dev.read_len(off, PAGE as u64)?;
            return Ok(());
        }
        let frame = self.pool.frame_mut(f);
        read_page(
            self.dev.as_mut(),
            (off, loc),
            &mut self.slot,
            frame,
            &self.versions,
            pid,
        )
    }

    /// Evicts one batch of frames by CLOCK, writing the dirty ones.
    fn evict_batch(&mut self) -> Result<(), StoreError> {
        let b = self.cfg.evict_batch as usize;
        let mut victims = std::mem::take(&mut self.victims);
        let mut dirty = std::mem::take(&mut self.dirty);
        victims.clear();
        self.pool.pick_victims(b, 4 * b, &mut victims);
        dirty.clear();
        dirty.extend(victims.iter().copied().filter(|&f| self.pool.is_dirty(f)));
        let r = self.write_frames(&dirty);
        if r.is_ok() {
            for &f in &victims {
                self.pool.release(f);
            }
        }
        self.victims = victims;
        self.dirty = dirty;
        r
    }

    /// Writes every dirty page (a checkpoint); pages stay resident.
    pub fn flush(&mut self) -> Result<(), StoreError> {
        let dirty: Vec<u32> = self.pool.dirty_frames().collect();
        for chunk in dirty.chunks(self.cfg.evict_batch as usize) {
            self.write_frames(chunk)?;
        }
        Ok(())
    }

    /// Writes the pages of `frames` (user writes) and marks them clean.
    fn write_frames(&mut self, frames: &[u32]) -> Result<(), StoreError> {
        if frames.is_empty() {
            return Ok(());
        }
        self.staging.clear();
        self.items.clear();
        let bytes = self.bytes();
        // Pages stored whole are written from their frames (out of place) or from staging (in
        // place: the double-write area needs the batch contiguous; in page order, so runs of
        // consecutive pages are contiguous too).
        let from_frames = bytes && self.space.is_some() && !self.compressed();
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend_from_slice(frames);
        if self.space.is_none() {
            order.sort_by_key(|&f| self.pool.owner(f));
        }
        let r = self.write_ordered(&order, from_frames);
        self.order = order;
        r
    }

    fn write_ordered(&mut self, frames: &[u32], from_frames: bool) -> Result<(), StoreError> {
        let bytes = self.bytes();
        for &f in frames {
            let pid = self.pool.owner(f);
            let now = self.clock;
            self.clock += 1;
            let edt = if bytes {
                let frame = self.pool.frame_mut(f);
                let (h, k) = page::push_history(frame, now);
                page::seal(frame);
                gdt::user_edt(&h[..k], now)
            } else if let Some(h) = self.histories.get_mut(pid as usize) {
                let (h, k) = h.push(now);
                gdt::user_edt(&h[..k], now)
            } else {
                now
            };
            let item = if from_frames {
                self.log_size(PAGE as u32);
                Item {
                    pid,
                    off: f as usize * PAGE,
                    len: PAGE as u32,
                    edt,
                }
            } else if bytes {
                let off = self.staging.len();
                let comp = self.compressed().then_some(&mut self.comp);
                let frame = self.pool.frame(f);
                let len = stage_bytes(comp, frame, &mut self.staging);
                if let Some(sh) = &mut self.shadow {
                    let h = History::of_page(frame);
                    let s = PageState {
                        pid,
                        version: page::version_of(frame),
                        history: &h,
                    };
                    let m = sh.0.size(&s, now);
                    sh.1.push(len, m);
                }
                self.log_size(len);
                Item { pid, off, len, edt }
            } else {
                self.stage(pid, None, now, edt)?
            };
            self.counters.user_stored_bytes += item.len as u64;
            self.items.push(item);
            self.pool.set_dirty(f, false);
        }
        self.counters.user_pages += frames.len() as u64;
        if let Some(sh) = &mut self.shadow {
            sh.1.end_batch();
        }
        match self.space.as_mut() {
            None => {
                let Layout::InPlace { dwb } = self.cfg.layout else {
                    unreachable!("no space means in place")
                };
                let batch = self.items.len() as u64 * PAGE as u64;
                if dwb {
                    let at = self.cfg.pages * PAGE as u64;
                    if bytes {
                        self.dev.write(at, &self.staging, Placement::None)?;
                    } else {
                        self.dev.write_len(at, batch, Placement::None)?;
                    }
                    self.counters.dwb_bytes += batch;
                }
                // Home writes, runs of consecutive pages coalesced (items are in page order).
                let mut i = 0;
                while i < self.items.len() {
                    let mut j = i + 1;
                    while j < self.items.len() && self.items[j].pid == self.items[j - 1].pid + 1 {
                        j += 1;
                    }
                    let at = self.items[i].pid * PAGE as u64;
                    let len = (j - i) * PAGE;
                    if bytes {
                        let from = self.items[i].off;
                        self.dev
                            .write(at, &self.staging[from..from + len], Placement::None)?;
                    } else {
                        self.dev.write_len(at, len as u64, Placement::None)?;
                    }
                    i = j;
                }
                self.counters.user_bytes += batch;
            }
            Some(space) => {
                let before = space.counters.user_slots;
                let pool = &self.pool;
                let src: &[u8] = if from_frames {
                    pool.frame_bytes()
                } else {
                    &self.staging
                };
                space.write(
                    self.dev.as_mut(),
                    Kind::User,
                    src,
                    &self.items,
                    self.clock,
                    &|pid| pool.lookup(pid).is_some_and(|f| pool.is_dirty(f)),
                )?;
                self.counters.user_bytes += (space.counters.user_slots - before) * PAGE as u64;
            }
        }
        Ok(())
    }

    /// Checks the layout's invariants and that no page is lost: O(pages + slots).
    pub fn check(&self) -> Result<(), String> {
        if let Some(s) = &self.space {
            s.check()?;
            for pid in 0..self.cfg.pages {
                if s.locate(pid).is_none()
                    && !self.pool.lookup(pid).is_some_and(|f| self.pool.is_dirty(f))
                {
                    return Err(format!("page {pid} is neither stored nor dirty in memory"));
                }
            }
        }
        Ok(())
    }

    /// Reads every page back from the device (bypassing the pool) and checks it; dirty
    /// resident pages are skipped (their device copy is older by design). For tests; bytes
    /// mode only.
    pub fn verify_device(&mut self) -> Result<u64, StoreError> {
        if !self.bytes() {
            return Err(StoreError::Config(
                "the model data mode has no contents to verify".into(),
            ));
        }
        let mut frame = vec![0u8; PAGE];
        let mut n = 0;
        for pid in 0..self.cfg.pages {
            if self.pool.lookup(pid).is_some_and(|f| self.pool.is_dirty(f)) {
                continue;
            }
            let at = match &self.space {
                None => (pid * PAGE as u64, None),
                Some(s) => {
                    let (off, l) = s.locate(pid).ok_or(StoreError::Lost(pid))?;
                    (off, Some(l))
                }
            };
            read_page(
                self.dev.as_mut(),
                at,
                &mut self.slot,
                &mut frame,
                &self.versions,
                pid,
            )?;
            n += 1;
        }
        Ok(n)
    }
}

/// Appends the stored form of `page` to `staging` (LZ4 with `comp`); returns its length.
fn stage_bytes(comp: Option<&mut Compressor>, page: &[u8], staging: &mut Vec<u8>) -> u32 {
    let stored: &[u8] = match comp {
        Some(c) => c.compress(page),
        None => page,
    };
    staging.extend_from_slice(stored);
    stored.len() as u32
}

/// Reads page `pid` stored at `at` (device offset of its slot or home block, and its place
/// in the slot out of place) into `out` and checks it is the newest version (`versions`
/// empty: no version check). A page stored whole is read straight into `out`; a compressed
/// one through `slot`.
fn read_page(
    dev: &mut dyn Device,
    at: (u64, Option<Loc>),
    slot: &mut [u8],
    out: &mut [u8],
    versions: &[u32],
    pid: u64,
) -> Result<(), StoreError> {
    match at.1 {
        Some(l) if l.size < PAGE as u32 => {
            dev.read(at.0, slot)?;
            decompress(
                &slot[l.offset as usize..(l.offset + l.size) as usize],
                out,
                pid,
            )?;
        }
        _ => dev.read(at.0, out)?,
    }
    page::check(out, pid)?;
    if let Some(&want) = versions.get(pid as usize) {
        let got = page::version_of(out) & 0xFFFF_FFFF;
        if got != want as u64 {
            return Err(PageError::Stale {
                pid,
                want: want as u64,
                got,
            }
            .into());
        }
    }
    Ok(())
}
