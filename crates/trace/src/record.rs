//! One request of a block trace, in bytes and nanoseconds, whatever the file's units were.

use ssdiq_workload::Op;

/// A trace request. Invariants: `len > 0`; `op` is read, write or trim (a discard); `time_ns`
/// is nanoseconds since the trace's first record once it leaves [`crate::TraceReader`] (the
/// parsers hand the reader absolute nanoseconds in the file's own epoch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub time_ns: u64,
    /// The device (disk, volume, ASU) the request went to; see
    /// [`crate::TraceReader::device_name`] for its name in the file.
    pub device: u32,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
}

impl TraceRecord {
    /// End offset (exclusive), saturating.
    #[inline]
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.len)
    }

    /// The `unit`-sized pages the request touches, `[first, last]` inclusive: a request that
    /// covers part of a page touches that page.
    #[inline]
    pub fn pages(&self, unit: u64) -> (u64, u64) {
        (self.offset / unit, (self.end() - 1) / unit)
    }
}

/// Device ids of formats that name devices by major and minor number.
#[inline]
pub fn major_minor(major: u64, minor: u64) -> Option<u32> {
    (major < (1 << 12) && minor < (1 << 20)).then_some(((major as u32) << 20) | minor as u32)
}

/// "MAJOR,MINOR" of an id made by [`major_minor`].
pub fn major_minor_name(id: u32) -> String {
    format!("{},{}", id >> 20, id & ((1 << 20) - 1))
}
