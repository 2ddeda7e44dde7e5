//! MSR Cambridge block traces (SNIA IOTTA): `Timestamp,Hostname,DiskNumber,Type,Offset,Size,
//! ResponseTime`, e.g. `128166372003061629,hm,0,Read,7014609920,24576,41286`. Timestamps are
//! Windows filetime (100 ns ticks since 1601), offsets and sizes bytes. A device is one
//! (hostname, disk) pair.

use std::collections::HashMap;

use super::{bad, read_or_write, request, LineResult};
use crate::fields::{split, trim, whole};
use crate::format::Format;

const F: Format = Format::Msr;

#[derive(Default)]
pub struct MsrParser {
    /// (hostname, disk) of each device id, in order of first appearance.
    devices: Vec<(Vec<u8>, u64)>,
    /// The id of each (disk, hostname): a lookup per line stays constant-time with hundreds
    /// of thousands of devices (a scan of `devices` made `trace stats` quadratic).
    index: HashMap<u64, HashMap<Vec<u8>, u32>>,
    last: Option<u32>,
}

impl MsrParser {
    pub fn parse(&mut self, line: &[u8]) -> LineResult {
        let mut f = [&b""[..]; 8];
        let n = split(line, b',', &mut f);
        if n < 6 {
            return Err(bad(F, "the line", &format!("has {n} fields, not 7")));
        }
        let ticks = whole(f[0]).map_err(|w| bad(F, "Timestamp", w))?;
        let time_ns = ticks
            .checked_mul(100)
            .ok_or_else(|| bad(F, "Timestamp", "overflows nanoseconds"))?;
        let host = trim(f[1]);
        if host.is_empty() {
            return Err(bad(F, "Hostname", "is empty"));
        }
        let disk = whole(f[2]).map_err(|w| bad(F, "DiskNumber", w))?;
        let op = read_or_write(f[3]).ok_or_else(|| bad(F, "Type", "is not Read or Write"))?;
        let offset = whole(f[4]).map_err(|w| bad(F, "Offset", w))?;
        let len = whole(f[5]).map_err(|w| bad(F, "Size", w))?;
        let device = self.device(host, disk);
        request(F, time_ns, device, op, offset, len)
    }

    #[inline]
    fn device(&mut self, host: &[u8], disk: u64) -> u32 {
        if let Some(id) = self.last {
            let (h, d) = &self.devices[id as usize];
            if *d == disk && h.as_slice() == host {
                return id;
            }
        }
        let by_host = self.index.entry(disk).or_default();
        let id = match by_host.get(host) {
            Some(&i) => i,
            None => {
                let i = self.devices.len() as u32;
                self.devices.push((host.to_vec(), disk));
                by_host.insert(host.to_vec(), i);
                i
            }
        };
        self.last = Some(id);
        id
    }

    pub fn device_name(&self, id: u32) -> String {
        match self.devices.get(id as usize) {
            Some((h, d)) => format!("{},{d}", String::from_utf8_lossy(h)),
            None => id.to_string(),
        }
    }
}
