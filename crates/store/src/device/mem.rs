//! A device in memory: conventional or zoned, no timing, no counters beyond host bytes.
//! For tests, and to check the store's zoned write path without hardware.

use super::{
    check_range, Device, DeviceError, DeviceInfo, Placement, WriteCounters, ZoneGeometry, ZoneState,
};

pub struct MemDevice {
    info: DeviceInfo,
    data: Vec<u8>,
    zones: Option<ZoneState>,
    host_bytes: u64,
    /// Bytes written per placement stream (tests check the store's hints).
    pub stream_bytes: Vec<u64>,
}

impl MemDevice {
    pub fn new(capacity: u64, streams: u16) -> Self {
        MemDevice {
            info: DeviceInfo {
                description: format!("memory device of {capacity} bytes"),
                capacity,
                zoned: None,
                streams: streams.max(1),
                gc_unit: None,
                virtual_time: false,
                keeps_data: true,
            },
            data: vec![0; capacity as usize],
            zones: None,
            host_bytes: 0,
            stream_bytes: vec![0; streams.max(1) as usize],
        }
    }

    /// A zoned memory device of `zones` zones.
    pub fn zoned(geo: ZoneGeometry) -> Self {
        let mut d = Self::new(geo.zone_bytes * geo.zones as u64, 1);
        d.info.description = format!("zoned memory device of {} zones", geo.zones);
        d.info.zoned = Some(geo);
        d.zones = Some(ZoneState::new(geo));
        d
    }
}

impl Device for MemDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }
    fn read(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        check_range(&self.info, offset, buf.len() as u64)?;
        buf.copy_from_slice(&self.data[offset as usize..offset as usize + buf.len()]);
        Ok(())
    }
    fn write(&mut self, offset: u64, data: &[u8], placement: Placement) -> Result<(), DeviceError> {
        if self.zones.is_some() {
            return Err(DeviceError::Invalid(
                "a zoned device takes zone appends, not writes".into(),
            ));
        }
        check_range(&self.info, offset, data.len() as u64)?;
        if let Placement::Stream(s) = placement {
            if s >= self.info.streams {
                return Err(DeviceError::Invalid(format!(
                    "placement {s} of a device with {} streams",
                    self.info.streams
                )));
            }
            self.stream_bytes[s as usize] += data.len() as u64;
        } else {
            self.stream_bytes[0] += data.len() as u64;
        }
        self.data[offset as usize..offset as usize + data.len()].copy_from_slice(data);
        self.host_bytes += data.len() as u64;
        Ok(())
    }
    fn trim(&mut self, offset: u64, len: u64) -> Result<(), DeviceError> {
        check_range(&self.info, offset, len)?;
        self.data[offset as usize..(offset + len) as usize].fill(0);
        Ok(())
    }
    fn zone_append(&mut self, zone: u32, data: &[u8]) -> Result<u64, DeviceError> {
        let z = self
            .zones
            .as_mut()
            .ok_or_else(|| DeviceError::Invalid("not a zoned device".into()))?;
        let off = z.append(zone, data.len() as u64)?;
        self.data[off as usize..off as usize + data.len()].copy_from_slice(data);
        self.host_bytes += data.len() as u64;
        Ok(off)
    }
    fn zone_reset(&mut self, zone: u32) -> Result<(), DeviceError> {
        let z = self
            .zones
            .as_mut()
            .ok_or_else(|| DeviceError::Invalid("not a zoned device".into()))?;
        let off = z.reset(zone)?;
        let len = z.geo.zone_bytes as usize;
        self.data[off as usize..off as usize + len].fill(0);
        Ok(())
    }
    fn counters(&mut self) -> Option<WriteCounters> {
        Some(WriteCounters {
            host_bytes: self.host_bytes,
            media_bytes: Some(self.host_bytes),
            buffered_bytes: None,
        })
    }
}
