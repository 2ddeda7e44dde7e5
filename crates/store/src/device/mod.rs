//! Where the store's bytes go: the emulated SSD, a file or block device, an NVMe namespace with
//! FDP placement or zones, or memory (tests).
//!
//! Invariants every backend keeps:
//! - Offsets and lengths are multiples of 4 KiB; a read returns the bytes of the last write to
//!   each block (zeros if never written or trimmed/reset).
//! - A zoned backend accepts writes only as zone appends at the write pointer and needs a reset
//!   before a zone is rewritten; `zone_append` returns where the data landed.
//! - `counters` are the device's own cumulative host/media byte counters (the emulator's, or
//!   SMART/OCP), never the store's bookkeeping.
//! - A device either keeps data (`read`, `write`, `zone_append`) or is a model device
//!   ([`DeviceInfo::keeps_data`] false: the emulated SSD without its data plane) that takes
//!   only the `*_len` requests: the same timing and counters as a request of that length,
//!   no bytes. Each refuses the other kind, so a store cannot mix them.

pub mod emu;
pub mod file;
pub mod mem;
pub mod nvme;

pub use crate::error::DeviceError;
pub use ssdiq_engine::WriteCounters;
pub use ssdiq_schema::store::{DeviceInfo, ZoneGeometry};

/// Cumulative samples of a write buffer's occupancy, one per write request: the mean over a
/// window tells whether rewrites could find their previous copy still buffered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferSamples {
    pub writes: u64,
    /// Sum over those writes of the pages buffered when each arrived.
    pub buffered_pages: u64,
    pub capacity_pages: u64,
}

/// Placement hint of a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    None,
    /// FDP placement identifier (reclaim unit handle) / emulated placement stream.
    Stream(u16),
}

impl DeviceError {
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        DeviceError::Io {
            what: what.into(),
            source,
        }
    }
    /// True for errors that mean bad input rather than a failing device.
    pub fn is_usage(&self) -> bool {
        match self {
            DeviceError::Invalid(_) => true,
            DeviceError::Engine(e) => e.is_usage(),
            DeviceError::Nvme(ssdiq_nvme::NvmeError::InvalidArgument(_)) => true,
            _ => false,
        }
    }
}

/// When the I/O an operation issued is complete, in virtual nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Everything completes at this time.
    Until(u64),
    /// `parked` writes wait for room in the drive; they complete later (reported by
    /// [`VirtualTime::advance`]); the rest completes by `until`.
    Parked { parked: u32, until: u64 },
}

/// A device that runs in virtual time: operations are submitted at a virtual time and their
/// completion times come back; internal events advance between them.
pub trait VirtualTime {
    /// I/O issued from now until [`VirtualTime::finish`] is submitted at `at` under `token`.
    fn begin(&mut self, at: u64, token: u64);
    fn finish(&mut self) -> Wait;
    /// Time of the next internal event (`u64::MAX`: none).
    fn next_event(&mut self) -> u64;
    /// Processes internal events up to `t`; pushes (token, completion time) of parked writes
    /// that completed.
    fn advance(&mut self, t: u64, done: &mut Vec<(u64, u64)>);
    /// True if parked writes can never be taken (a fault of the model, reported as an error
    /// rather than waited on for ever).
    fn stuck(&self) -> bool;
}

pub trait Device {
    fn info(&self) -> &DeviceInfo;
    fn read(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), DeviceError>;
    fn write(&mut self, offset: u64, data: &[u8], placement: Placement) -> Result<(), DeviceError>;
    fn trim(&mut self, offset: u64, len: u64) -> Result<(), DeviceError>;
    /// Appends `data` to zone `zone`; returns the byte offset where it landed.
    fn zone_append(&mut self, zone: u32, data: &[u8]) -> Result<u64, DeviceError> {
        let _ = (zone, data);
        Err(DeviceError::Invalid(format!(
            "{} is not a zoned device",
            self.info().description
        )))
    }
    fn zone_reset(&mut self, zone: u32) -> Result<(), DeviceError> {
        let _ = zone;
        Err(DeviceError::Invalid(format!(
            "{} is not a zoned device",
            self.info().description
        )))
    }
    /// A write of `len` bytes without contents (model devices only).
    fn write_len(
        &mut self,
        offset: u64,
        len: u64,
        placement: Placement,
    ) -> Result<(), DeviceError> {
        let _ = (offset, len, placement);
        Err(keeps_data(self.info()))
    }
    /// A read of `len` bytes without contents (model devices only).
    fn read_len(&mut self, offset: u64, len: u64) -> Result<(), DeviceError> {
        let _ = (offset, len);
        Err(keeps_data(self.info()))
    }
    /// A zone append of `len` bytes without contents (zoned model devices only).
    fn zone_append_len(&mut self, zone: u32, len: u64) -> Result<u64, DeviceError> {
        let _ = (zone, len);
        Err(keeps_data(self.info()))
    }
    /// The device's cumulative write counters, if it reports them.
    fn counters(&mut self) -> Option<WriteCounters>;
    /// How full the device's write buffer was at each write, cumulative (emulated SSD only).
    fn buffer_samples(&self) -> Option<BufferSamples> {
        None
    }
    fn virtual_time(&mut self) -> Option<&mut dyn VirtualTime> {
        None
    }
}

fn keeps_data(info: &DeviceInfo) -> DeviceError {
    DeviceError::Invalid(format!(
        "{} keeps data: requests without contents (the model data mode) run on the emulated SSD only",
        info.description
    ))
}

/// The error of a model device asked to move bytes.
pub(crate) fn no_data(info: &DeviceInfo) -> DeviceError {
    DeviceError::Invalid(format!(
        "{} keeps no data (model data mode): it takes lengths, not bytes",
        info.description
    ))
}

/// Checks a request against 4 KiB alignment and the capacity.
pub(crate) fn check_range(info: &DeviceInfo, offset: u64, len: u64) -> Result<(), DeviceError> {
    if !offset.is_multiple_of(4096) || !len.is_multiple_of(4096) {
        return Err(DeviceError::Invalid(format!(
            "unaligned request: offset {offset}, length {len} (expected multiples of 4096)"
        )));
    }
    if offset + len > info.capacity {
        return Err(DeviceError::Invalid(format!(
            "request beyond the end: offset {offset} + {len} > capacity {}",
            info.capacity
        )));
    }
    Ok(())
}

/// Zone write pointers kept by backends that emulate zones (memory, emulated SSD).
#[derive(Clone, Debug)]
pub(crate) struct ZoneState {
    pub geo: ZoneGeometry,
    pub wp: Vec<u64>,
}

impl ZoneState {
    pub fn new(geo: ZoneGeometry) -> Self {
        ZoneState {
            geo,
            wp: vec![0; geo.zones as usize],
        }
    }
    pub fn is_open(&self, z: usize) -> bool {
        self.wp[z] > 0 && self.wp[z] < self.geo.zone_capacity
    }
    /// Where an append of `len` bytes to `zone` lands; advances the write pointer.
    pub fn append(&mut self, zone: u32, len: u64) -> Result<u64, DeviceError> {
        let z = zone as usize;
        if z >= self.wp.len() {
            return Err(DeviceError::Invalid(format!("zone {zone} does not exist")));
        }
        if self.wp[z] + len > self.geo.zone_capacity {
            return Err(DeviceError::Invalid(format!(
                "zone {zone} is full: append of {len} bytes at {} of {}",
                self.wp[z], self.geo.zone_capacity
            )));
        }
        if self.wp[z] == 0 && self.geo.max_open > 0 {
            let open = (0..self.wp.len()).filter(|&i| self.is_open(i)).count();
            if open >= self.geo.max_open as usize {
                return Err(DeviceError::Invalid(format!(
                    "zone {zone}: too many open zones (limit {})",
                    self.geo.max_open
                )));
            }
        }
        let off = zone as u64 * self.geo.zone_bytes + self.wp[z];
        self.wp[z] += len;
        Ok(off)
    }
    pub fn reset(&mut self, zone: u32) -> Result<u64, DeviceError> {
        let z = zone as usize;
        if z >= self.wp.len() {
            return Err(DeviceError::Invalid(format!("zone {zone} does not exist")));
        }
        self.wp[z] = 0;
        Ok(zone as u64 * self.geo.zone_bytes)
    }
}
