//! The emulated SSD as a store device: the engine's `emu:PROFILE` drive (FTL + timing model,
//! virtual time) plus a data plane that keeps the bytes, so reads return what was written.
//!
//! Modes:
//! - conventional: one write stream, the drive's own GC;
//! - FDP: the drive gets `streams` placement streams (reclaim unit handles), a write's
//!   placement picks its stream, so streams never share a superblock;
//! - zoned: zones of one superblock each, appended sequentially, reset by deallocating the
//!   whole zone; each open zone writes through its own stream, and the spare space of the
//!   conventional drive (its OP) becomes zones (ZNS has no OP), less the few superblocks the
//!   FTL keeps free.
//!
//! Without a data plane (`keep_data` false, the store's model data mode) the drive takes
//! requests by length only: the FTL, the timing model and the counters see exactly what a
//! request of that length would do, and no byte is copied or kept.
//!
//! Invariants:
//! - The data plane is an anonymous mapping touched only where written; trim and zone reset
//!   give the memory back, so memory use is the live data.
//! - Without a scheduler ([`VirtualTime::begin`] never called) every request is synchronous:
//!   the clock moves to its completion, a write that waits for buffer room waits right there.

use ssdiq_emu::memory::drive_bytes;
use ssdiq_emu::{drive_geometry, Drive, Profile, LBA_BYTES};
use ssdiq_workload::units::format_size;

use super::{
    check_range, no_data, BufferSamples, Device, DeviceError, DeviceInfo, Placement, VirtualTime,
    Wait, WriteCounters, ZoneGeometry, ZoneState,
};

/// How the emulated drive is presented to the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmuMode {
    Conventional,
    /// FDP with this many reclaim unit handles.
    Fdp {
        handles: u16,
    },
    /// Zoned, with at most this many zones open at once.
    Zoned {
        max_open: u16,
    },
}

/// Bytes kept in an anonymous mapping, allocated on first touch.
struct DataPlane {
    ptr: *mut u8,
    len: usize,
}

impl DataPlane {
    fn new(len: u64) -> Result<Self, DeviceError> {
        let len = len as usize;
        // SAFETY: a private anonymous mapping; checked for MAP_FAILED below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len.max(1),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(DeviceError::io(
                format!("cannot map {len} bytes for the emulated drive's data"),
                std::io::Error::last_os_error(),
            ));
        }
        Ok(DataPlane {
            ptr: ptr as *mut u8,
            len,
        })
    }
    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping is `len` bytes, readable, and lives as long as self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
    /// Zeroes `[off, off + len)` and returns its whole pages to the kernel.
    fn discard(&mut self, off: usize, len: usize) {
        let page = 4096;
        let start = off.div_ceil(page) * page;
        let end = (off + len) / page * page;
        if end > start {
            // SAFETY: [start, end) lies inside the mapping; MADV_DONTNEED on a private
            // anonymous mapping makes the range read as zeros.
            unsafe {
                libc::madvise(
                    self.ptr.add(start) as *mut libc::c_void,
                    end - start,
                    libc::MADV_DONTNEED,
                );
            }
        }
        let b = self.bytes_mut();
        b[off..start.min(off + len)].fill(0);
        if end >= start {
            b[end.max(off)..off + len].fill(0);
        }
    }
}

impl Drop for DataPlane {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping created in `new`.
        unsafe {
            libc::munmap(self.ptr as *mut libc::c_void, self.len.max(1));
        }
    }
}

pub struct EmuDevice {
    drive: Drive,
    profile: Profile,
    info: DeviceInfo,
    data: Option<DataPlane>,
    zones: Option<ZoneState>,
    /// Zoned mode: the stream each zone writes through while it is open.
    zone_stream: Vec<u16>,
    streams_busy: Vec<bool>,
    /// Virtual-time bookkeeping of the operation in progress.
    at: u64,
    token: u64,
    op_done: u64,
    op_parked: u32,
    scheduled: bool,
    woken: Vec<(u64, u64)>,
    buffer: BufferSamples,
}

fn invalid(m: String) -> DeviceError {
    DeviceError::Invalid(m)
}

impl EmuDevice {
    /// `profile` (of `target`) as `mode` reshapes it (streams, zones).
    fn profile_for(
        target: &str,
        mut profile: Profile,
        mode: EmuMode,
    ) -> Result<Profile, DeviceError> {
        // The drive's whole flash: its superblocks, the GC reserve among them.
        let geo_sb = |p: &Profile| -> Result<(u64, u64), DeviceError> {
            let g = drive_geometry(p).map_err(|e| invalid(format!("{target}: {e}")))?;
            Ok((g.ppb() * LBA_BYTES, g.ftl_blocks() as u64))
        };
        match mode {
            EmuMode::Conventional => {}
            EmuMode::Fdp { handles } => {
                if handles == 0 || handles > 64 {
                    return Err(invalid(format!(
                        "invalid FDP handle count {handles}: expected 1 to 64"
                    )));
                }
                profile.drive.streams = handles as u32;
            }
            EmuMode::Zoned { max_open } => {
                if max_open == 0 || max_open > 64 {
                    return Err(invalid(format!(
                        "invalid open zone limit {max_open}: expected 1 to 64"
                    )));
                }
                // Same flash as the conventional drive; the host gets all of it as zones but
                // the superblocks the FTL keeps free (reserve, one per stream, one spare).
                let (sb, blocks) = geo_sb(&profile)?;
                let keep = profile.gc.low_watermark as u64 + max_open as u64 + 2;
                if blocks <= keep + 1 {
                    return Err(invalid(format!(
                        "{target}: {blocks} superblocks leave no zones"
                    )));
                }
                let zones = blocks - keep;
                profile.drive.streams = max_open as u32;
                profile.drive.capacity = (zones * sb).to_string();
                // Physical = ceil(logical x (1 + op)) rounds back up to `blocks`.
                profile.drive.op = (blocks as f64 - 0.5) / zones as f64 - 1.0;
            }
        }
        Ok(profile)
    }

    /// Bytes opening `target` (parsed as `profile`) in `mode` will take: the drive's heap and,
    /// with `keep_data`, its data plane (a mapping the store's load touches; counted whole).
    pub fn estimate_bytes(
        target: &str,
        profile: Profile,
        mode: EmuMode,
        keep_data: bool,
    ) -> Result<u64, DeviceError> {
        let profile = Self::profile_for(target, profile, mode)?;
        let drive = drive_bytes(&profile).map_err(|e| invalid(format!("{target}: {e}")))?;
        let data = if keep_data {
            drive_geometry(&profile)
                .map_err(|e| invalid(format!("{target}: {e}")))?
                .logical_bytes()
        } else {
            0
        };
        Ok(drive.total() + data)
    }

    /// Opens `emu:PROFILE[,key=value...]` in `mode`, with a data plane if `keep_data`.
    pub fn open(target: &str, mode: EmuMode, keep_data: bool) -> Result<EmuDevice, DeviceError> {
        Self::with_profile(target, Self::parse(target)?, mode, keep_data)
    }

    fn parse(target: &str) -> Result<Profile, DeviceError> {
        Profile::from_target(target).map_err(|e| invalid(e.to_string()))
    }

    /// [`Self::open`] for a profile already parsed from `target` (`ssdiq_emu::TargetSpec`).
    pub fn with_profile(
        target: &str,
        profile: Profile,
        mode: EmuMode,
        keep_data: bool,
    ) -> Result<EmuDevice, DeviceError> {
        let profile = Self::profile_for(target, profile, mode)?;
        let drive = Drive::new(&profile).map_err(|e| invalid(format!("{target}: {e}")))?;
        let capacity_pages = drive.timing().buffer_pages;
        let g = *drive.geometry();
        let sb = g.ppb() * LBA_BYTES;
        let capacity = g.logical_bytes();
        let zones = match mode {
            EmuMode::Zoned { max_open } => Some(ZoneGeometry {
                zone_bytes: sb,
                zone_capacity: sb,
                zones: (capacity / sb) as u32,
                max_open: max_open as u32,
            }),
            _ => None,
        };
        let mode_text = match mode {
            EmuMode::Conventional => String::new(),
            EmuMode::Fdp { handles } => format!(", FDP with {handles} reclaim unit handles"),
            EmuMode::Zoned { max_open } => format!(
                ", zoned: {} zones of {}, {max_open} open",
                capacity / sb,
                format_size(sb)
            ),
        };
        let info = DeviceInfo {
            description: format!(
                "{target}: {}, {}, {:.1}% OP, superblock {}, {} GC{mode_text}",
                profile.description,
                format_size(capacity),
                g.op() * 100.0,
                format_size(sb),
                profile.drive.gc_description()
            ),
            capacity,
            zoned: zones,
            streams: profile.drive.streams as u16,
            gc_unit: Some(sb),
            virtual_time: true,
            keeps_data: keep_data,
        };
        let streams = profile.drive.streams as usize;
        Ok(EmuDevice {
            data: if keep_data {
                Some(DataPlane::new(capacity)?)
            } else {
                None
            },
            zone_stream: vec![0; zones.map_or(0, |z| z.zones as usize)],
            zones: zones.map(ZoneState::new),
            streams_busy: vec![false; streams],
            drive,
            profile,
            info,
            at: 0,
            token: 0,
            op_done: 0,
            op_parked: 0,
            scheduled: false,
            woken: Vec::new(),
            buffer: BufferSamples {
                capacity_pages,
                ..BufferSamples::default()
            },
        })
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }
    pub fn drive(&self) -> &Drive {
        &self.drive
    }
    /// The virtual clock.
    pub fn now(&self) -> u64 {
        self.drive.now().max(self.at)
    }

    fn read_timed(&mut self, offset: u64, len: u64) {
        let t = self
            .drive
            .read(self.at, offset / LBA_BYTES, len / LBA_BYTES);
        self.op_done = self.op_done.max(t);
        if !self.scheduled {
            self.at = self.at.max(t);
            self.drive.advance(self.at);
        }
    }

    /// Checks a conventional write; returns its stream.
    fn check_write(&self, offset: u64, len: u64, placement: Placement) -> Result<u16, DeviceError> {
        if self.zones.is_some() {
            return Err(invalid(
                "the zoned emulated drive takes zone appends, not writes".into(),
            ));
        }
        check_range(&self.info, offset, len)?;
        match placement {
            Placement::None => Ok(0),
            Placement::Stream(s) if s < self.info.streams => Ok(s),
            Placement::Stream(s) => Err(invalid(format!(
                "placement {s} of a drive with {} streams",
                self.info.streams
            ))),
        }
    }

    /// Appends `len` bytes to `zone` through its stream; returns where they land.
    fn append_timed(&mut self, zone: u32, len: u64) -> Result<u64, DeviceError> {
        let zs = self
            .zones
            .as_mut()
            .ok_or_else(|| invalid("the emulated drive is not zoned".into()))?;
        let was_empty = zs.wp.get(zone as usize) == Some(&0);
        let off = zs.append(zone, len)?;
        let z = zone as usize;
        if was_empty {
            let s = self
                .streams_busy
                .iter()
                .position(|b| !b)
                .expect("the open zone limit equals the stream count");
            self.streams_busy[s] = true;
            self.zone_stream[z] = s as u16;
        }
        let stream = self.zone_stream[z];
        let full = !self.zones.as_ref().expect("zoned").is_open(z);
        if full {
            self.streams_busy[stream as usize] = false;
        }
        self.write_through(off, len, stream)?;
        Ok(off)
    }

    fn write_through(&mut self, offset: u64, len: u64, stream: u16) -> Result<(), DeviceError> {
        self.buffer.writes += 1;
        self.buffer.buffered_pages += self.drive.buffered_pages();
        let lpn = offset / LBA_BYTES;
        let pages = len / LBA_BYTES;
        match self
            .drive
            .write_stream(self.at, lpn, pages, self.token, stream)
        {
            Some(t) => {
                self.op_done = self.op_done.max(t);
                if !self.scheduled {
                    self.at = self.at.max(t);
                }
            }
            None if self.scheduled => self.op_parked += 1,
            None => {
                // Synchronous use: wait here until the drive takes the write.
                loop {
                    if self.drive.stuck() {
                        return Err(stuck(&self.info));
                    }
                    let t = self.drive.next_event();
                    assert!(t != u64::MAX, "a parked write with no drive event pending");
                    self.drive.advance(t);
                    self.woken.clear();
                    self.drive.take_completed(&mut self.woken);
                    if let Some(&(_, done)) = self.woken.iter().find(|w| w.0 == self.token) {
                        self.at = self.at.max(done);
                        self.op_done = self.op_done.max(done);
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A drive that can never take a waiting write (`Drive::stuck`): a fault of the model.
pub(crate) fn stuck(info: &DeviceInfo) -> DeviceError {
    DeviceError::Io {
        what: format!(
            "{}: the emulated drive can free no buffer room for a waiting write (an emulator fault: please report the target and flags)",
            info.description
        ),
        source: std::io::Error::from(std::io::ErrorKind::TimedOut),
    }
}

impl Device for EmuDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn read(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        check_range(&self.info, offset, buf.len() as u64)?;
        let Some(data) = &self.data else {
            return Err(no_data(&self.info));
        };
        buf.copy_from_slice(&data.bytes()[offset as usize..offset as usize + buf.len()]);
        self.read_timed(offset, buf.len() as u64);
        Ok(())
    }

    fn read_len(&mut self, offset: u64, len: u64) -> Result<(), DeviceError> {
        check_range(&self.info, offset, len)?;
        if self.data.is_some() {
            return Err(invalid(format!(
                "{} keeps data: read it with bytes",
                self.info.description
            )));
        }
        self.read_timed(offset, len);
        Ok(())
    }

    fn write(&mut self, offset: u64, data: &[u8], placement: Placement) -> Result<(), DeviceError> {
        let stream = self.check_write(offset, data.len() as u64, placement)?;
        let Some(plane) = &mut self.data else {
            return Err(no_data(&self.info));
        };
        plane.bytes_mut()[offset as usize..offset as usize + data.len()].copy_from_slice(data);
        self.write_through(offset, data.len() as u64, stream)
    }

    fn write_len(
        &mut self,
        offset: u64,
        len: u64,
        placement: Placement,
    ) -> Result<(), DeviceError> {
        let stream = self.check_write(offset, len, placement)?;
        if self.data.is_some() {
            return Err(invalid(format!(
                "{} keeps data: write it with bytes",
                self.info.description
            )));
        }
        self.write_through(offset, len, stream)
    }

    fn trim(&mut self, offset: u64, len: u64) -> Result<(), DeviceError> {
        check_range(&self.info, offset, len)?;
        if let Some(d) = &mut self.data {
            d.discard(offset as usize, len as usize);
        }
        let t = self
            .drive
            .trim(self.at, offset / LBA_BYTES, len / LBA_BYTES);
        self.op_done = self.op_done.max(t);
        Ok(())
    }

    fn zone_append(&mut self, zone: u32, data: &[u8]) -> Result<u64, DeviceError> {
        if self.data.is_none() {
            return Err(no_data(&self.info));
        }
        let off = self.append_timed(zone, data.len() as u64)?;
        if let Some(plane) = &mut self.data {
            plane.bytes_mut()[off as usize..off as usize + data.len()].copy_from_slice(data);
        }
        Ok(off)
    }

    fn zone_append_len(&mut self, zone: u32, len: u64) -> Result<u64, DeviceError> {
        if self.data.is_some() {
            return Err(invalid(format!(
                "{} keeps data: append with bytes",
                self.info.description
            )));
        }
        self.append_timed(zone, len)
    }

    fn zone_reset(&mut self, zone: u32) -> Result<(), DeviceError> {
        let zs = self
            .zones
            .as_mut()
            .ok_or_else(|| invalid("the emulated drive is not zoned".into()))?;
        let was_open = zs.is_open(zone as usize);
        let off = zs.reset(zone)?;
        if was_open {
            self.streams_busy[self.zone_stream[zone as usize] as usize] = false;
        }
        let len = self.info.zoned.expect("zoned").zone_bytes;
        self.trim(off, len)
    }

    fn counters(&mut self) -> Option<WriteCounters> {
        Some(ssdiq_emu::drive_write_counters(&self.drive))
    }

    fn buffer_samples(&self) -> Option<BufferSamples> {
        Some(self.buffer)
    }

    fn virtual_time(&mut self) -> Option<&mut dyn VirtualTime> {
        Some(self)
    }
}

impl VirtualTime for EmuDevice {
    fn stuck(&self) -> bool {
        self.drive.stuck()
    }

    fn begin(&mut self, at: u64, token: u64) {
        self.scheduled = true;
        self.drive.advance(at);
        self.at = at;
        self.token = token;
        self.op_done = at;
        self.op_parked = 0;
    }

    fn finish(&mut self) -> Wait {
        if self.op_parked > 0 {
            Wait::Parked {
                parked: self.op_parked,
                until: self.op_done,
            }
        } else {
            Wait::Until(self.op_done)
        }
    }

    fn next_event(&mut self) -> u64 {
        self.drive.next_event()
    }

    fn advance(&mut self, t: u64, done: &mut Vec<(u64, u64)>) {
        self.drive.advance(t);
        self.drive.take_completed(done);
    }
}
