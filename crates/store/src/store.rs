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

use ssdiq_workload::SeededRng;

use crate::compress::{decompress, Compressor};
use crate::device::{Device, DeviceError, Placement};
use crate::page::{self, PageError, PageGen, PAGE};
use crate::pool::Pool;
use crate::space::{gdt, Item, Kind, Space, SpaceConfig, SpaceError};

/// Where pages live on the device.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Page `pid` at byte pid x 4 KiB; with `dwb`, every batch is first written to a
    /// double-write area after the data.
    InPlace { dwb: bool },
    OutOfPlace {
        space: SpaceConfig,
        compression: bool,
    },
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StoreConfig {
    /// Pages in the dataset.
    pub pages: u64,
    /// Buffer pool frames.
    pub frames: u32,
    /// Dirty pages written per eviction batch.
    pub evict_batch: u32,
    pub records_per_page: u32,
    /// How much the page contents compress with LZ4 (page size / mean compressed size).
    pub data_ratio: f64,
    pub layout: Layout,
    /// Keep each page's last version and check it on every read.
    pub verify: bool,
    pub seed: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("invalid store configuration: {0}")]
    Config(String),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Space(#[from] SpaceError),
    #[error("corrupt read: {0}")]
    Corrupt(#[from] PageError),
    #[error("page {0} has no stored copy and is not in memory (lost)")]
    Lost(u64),
}

impl StoreError {
    pub fn is_usage(&self) -> bool {
        match self {
            StoreError::Config(_) => true,
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
    /// Last version written per page (with `verify`).
    versions: Vec<u32>,
    /// Page-write clock (the GSN stand-in of the write history).
    clock: u64,
    rng: SeededRng,
    pub counters: StoreCounters,
    staging: Vec<u8>,
    items: Vec<Item>,
    victims: Vec<u32>,
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
                Some(Space::new(s.clone(), cfg.pages))
            }
        };
        let gen = PageGen::calibrated(cfg.seed, cfg.data_ratio, cfg.records_per_page);
        Ok(Store {
            pool: Pool::new(cfg.frames, cfg.pages),
            gen,
            comp: Compressor::default(),
            space,
            versions: if cfg.verify {
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

    /// Writes every page once (the load phase), in batches of 256 pages.
    pub fn load(&mut self, progress: &mut dyn FnMut(u64)) -> Result<(), StoreError> {
        const BATCH: u64 = 256;
        let mut page = vec![0u8; PAGE];
        let mut pid = 0;
        while pid < self.cfg.pages {
            let end = (pid + BATCH).min(self.cfg.pages);
            self.staging.clear();
            self.items.clear();
            for p in pid..end {
                self.gen.init(&mut page, p);
                let stored: &[u8] = match (&self.cfg.layout, &mut self.comp) {
                    (
                        Layout::OutOfPlace {
                            compression: true, ..
                        },
                        c,
                    ) => c.compress(&page),
                    _ => &page,
                };
                self.items.push(Item {
                    pid: p,
                    off: self.staging.len(),
                    len: stored.len() as u32,
                    edt: self.clock,
                });
                self.staging.extend_from_slice(stored);
            }
            let bytes = (end - pid) * PAGE as u64;
            match self.space.as_mut() {
                None => {
                    self.dev
                        .write(pid * PAGE as u64, &self.staging, Placement::None)?;
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
        let frame = self.pool.frame_mut(f);
        self.gen.update(frame, slot, &mut self.rng);
        if self.cfg.verify {
            self.versions[pid as usize] = page::version_of(frame) as u32;
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
        self.fetch_into_slot(pid)?;
        let f = self.pool.install(pid).expect("a frame is free");
        let frame = self.pool.frame_mut(f);
        if let Err(e) = decode(self.space.as_ref(), &self.slot, &self.versions, pid, frame) {
            self.pool.release(f);
            return Err(e);
        }
        Ok(f)
    }

    /// Reads the stored form of `pid` into `self.slot` (its 4 KiB slot or home block).
    fn fetch_into_slot(&mut self, pid: u64) -> Result<(), StoreError> {
        let off = match &self.space {
            None => pid * PAGE as u64,
            Some(s) => s.locate(pid).ok_or(StoreError::Lost(pid))?.0,
        };
        self.dev.read(off, &mut self.slot)?;
        self.counters.page_reads += 1;
        self.counters.read_bytes += PAGE as u64;
        Ok(())
    }

    /// Evicts one batch of frames by CLOCK, writing the dirty ones.
    fn evict_batch(&mut self) -> Result<(), StoreError> {
        let b = self.cfg.evict_batch as usize;
        let mut victims = std::mem::take(&mut self.victims);
        victims.clear();
        self.pool.pick_victims(b, 4 * b, &mut victims);
        let dirty: Vec<u32> = victims
            .iter()
            .copied()
            .filter(|&f| self.pool.is_dirty(f))
            .collect();
        let r = self.write_frames(&dirty);
        if r.is_ok() {
            for &f in &victims {
                self.pool.release(f);
            }
        }
        self.victims = victims;
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
        let compress = matches!(
            self.cfg.layout,
            Layout::OutOfPlace {
                compression: true,
                ..
            }
        );
        for &f in frames {
            let pid = self.pool.owner(f);
            let now = self.clock;
            self.clock += 1;
            let frame = self.pool.frame_mut(f);
            let (h, k) = page::push_history(frame, now);
            let edt = gdt::user_edt(&h[..k], now);
            page::seal(frame);
            let stored: &[u8] = if compress {
                self.comp.compress(self.pool.frame(f))
            } else {
                self.pool.frame(f)
            };
            self.items.push(Item {
                pid,
                off: self.staging.len(),
                len: stored.len() as u32,
                edt,
            });
            self.counters.user_stored_bytes += stored.len() as u64;
            self.staging.extend_from_slice(stored);
            self.pool.set_dirty(f, false);
        }
        self.counters.user_pages += frames.len() as u64;
        match self.space.as_mut() {
            None => {
                let Layout::InPlace { dwb } = self.cfg.layout else {
                    unreachable!("no space means in place")
                };
                if dwb {
                    let at = self.cfg.pages * PAGE as u64;
                    self.dev.write(at, &self.staging, Placement::None)?;
                    self.counters.dwb_bytes += self.staging.len() as u64;
                }
                // Home writes, consecutive pages coalesced.
                self.items.sort_by_key(|i| i.pid);
                let mut i = 0;
                let mut run = Vec::new();
                while i < self.items.len() {
                    let mut j = i + 1;
                    while j < self.items.len() && self.items[j].pid == self.items[j - 1].pid + 1 {
                        j += 1;
                    }
                    run.clear();
                    for it in &self.items[i..j] {
                        run.extend_from_slice(&self.staging[it.off..it.off + PAGE]);
                    }
                    self.dev
                        .write(self.items[i].pid * PAGE as u64, &run, Placement::None)?;
                    i = j;
                }
                self.counters.user_bytes += self.staging.len() as u64;
            }
            Some(space) => {
                let before = space.counters.user_slots;
                let pool = &self.pool;
                space.write(
                    self.dev.as_mut(),
                    Kind::User,
                    &self.staging,
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
    /// resident pages are skipped (their device copy is older by design). For tests.
    pub fn verify_device(&mut self) -> Result<u64, StoreError> {
        let mut frame = vec![0u8; PAGE];
        let mut n = 0;
        for pid in 0..self.cfg.pages {
            if self.pool.lookup(pid).is_some_and(|f| self.pool.is_dirty(f)) {
                continue;
            }
            self.fetch_into_slot(pid)?;
            decode(
                self.space.as_ref(),
                &self.slot,
                &self.versions,
                pid,
                &mut frame,
            )?;
            n += 1;
        }
        Ok(n)
    }
}

/// Decodes the stored form of `pid` (`slot`: its 4 KiB slot or home block) into `frame` and
/// checks it is the newest version (`versions` empty: no version check).
fn decode(
    space: Option<&Space>,
    slot: &[u8],
    versions: &[u32],
    pid: u64,
    frame: &mut [u8],
) -> Result<(), StoreError> {
    match space {
        None => frame.copy_from_slice(slot),
        Some(s) => {
            let (_, l) = s.locate(pid).ok_or(StoreError::Lost(pid))?;
            let stored = &slot[l.offset as usize..(l.offset + l.size) as usize];
            decompress(stored, frame, pid)?;
        }
    }
    page::check(frame, pid)?;
    if let Some(&want) = versions.get(pid as usize) {
        let got = page::version_of(frame) & 0xFFFF_FFFF;
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
