//! Zoned namespaces (NVMe ZNS command set): Zone Append, Zone Management Send (reset) and
//! Receive (report zones), as pure encoders/decoders plus thin [`Device`] methods.
//!
//! Buffers handed to the device methods must be page-aligned and within the controller's
//! transfer limits (the caller splits; Zone Append also has its own size limit, ZASL).

use crate::bytes::{le, need};
use crate::error::NvmeError;
use crate::ioctl::{PassthruCmd64, Queue};
use crate::Device;

/// ZNS I/O opcodes.
pub mod op {
    pub const ZONE_MGMT_SEND: u8 = 0x79;
    pub const ZONE_MGMT_RECV: u8 = 0x7A;
    pub const ZONE_APPEND: u8 = 0x7D;
}

/// Zone Send Action: reset the zone's write pointer.
pub const ZSA_RESET: u32 = 0x04;

/// Zone Append of `nlb` (1..=65536) blocks to the zone starting at `zslba`.
pub fn zone_append(nsid: u32, zslba: u64, nlb: u32) -> PassthruCmd64 {
    assert!((1..=65536).contains(&nlb), "nlb must be 1..=65536");
    PassthruCmd64 {
        opcode: op::ZONE_APPEND,
        nsid,
        cdw10: zslba as u32,
        cdw11: (zslba >> 32) as u32,
        cdw12: nlb - 1,
        ..Default::default()
    }
}

/// Zone Management Send with action `zsa` on the zone at `zslba` (or every zone).
pub fn zone_mgmt_send(nsid: u32, zslba: u64, zsa: u32, select_all: bool) -> PassthruCmd64 {
    PassthruCmd64 {
        opcode: op::ZONE_MGMT_SEND,
        nsid,
        cdw10: zslba as u32,
        cdw11: (zslba >> 32) as u32,
        cdw13: (zsa & 0xFF) | (u32::from(select_all) << 8),
        ..Default::default()
    }
}

/// Zone Management Receive, Report Zones (all states) from `slba` into a buffer of `len`
/// bytes (a multiple of 4). Not partial: the header counts every zone from `slba` on, while
/// the buffer holds as many descriptors as fit.
pub fn report_zones(nsid: u32, slba: u64, len: u32) -> PassthruCmd64 {
    assert!(len >= 64 && len.is_multiple_of(4));
    PassthruCmd64 {
        opcode: op::ZONE_MGMT_RECV,
        nsid,
        cdw10: slba as u32,
        cdw11: (slba >> 32) as u32,
        cdw12: len / 4 - 1,
        ..Default::default()
    }
}

/// One zone descriptor of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneDescriptor {
    /// Zone type (2: sequential write required).
    pub zone_type: u8,
    /// Zone state (1 empty, 2 implicitly open, 3 explicitly open, 4 closed, 0xE full, ...).
    pub state: u8,
    pub capacity_blocks: u64,
    pub start_lba: u64,
    pub write_pointer: u64,
}

/// Decodes a report: the number of zones it covers, and its descriptors.
pub fn decode_report(buf: &[u8]) -> Result<(u64, Vec<ZoneDescriptor>), NvmeError> {
    need(buf, 64, "zone report")?;
    let n = le(buf, 0, 8) as u64;
    let fit = ((buf.len() - 64) / 64) as u64;
    let mut v = Vec::new();
    for i in 0..n.min(fit) as usize {
        let d = &buf[64 + i * 64..128 + i * 64];
        v.push(ZoneDescriptor {
            zone_type: d[0] & 0x0F,
            state: d[1] >> 4,
            capacity_blocks: le(d, 8, 8) as u64,
            start_lba: le(d, 16, 8) as u64,
            write_pointer: le(d, 24, 8) as u64,
        });
    }
    Ok((n, v))
}

impl Device {
    /// Appends `data` (whole blocks, page-aligned) to the zone at `zslba`; returns the LBA
    /// where it landed.
    pub fn zone_append(&self, zslba: u64, data: &mut [u8]) -> Result<u64, NvmeError> {
        let nsid = self.nsid().ok_or_else(|| need_ns(self))?;
        let bs = self.block_size()? as usize;
        if data.is_empty() || !data.len().is_multiple_of(bs) {
            return Err(NvmeError::InvalidArgument(format!(
                "zone append of {} bytes: not a whole number of {bs}-byte blocks",
                data.len()
            )));
        }
        let nlb = (data.len() / bs) as u32;
        self.submit(
            "zone append",
            Queue::Io,
            zone_append(nsid, zslba, nlb),
            Some(data),
        )
    }

    /// Resets the zone at `zslba` (or every zone with `all`).
    pub fn zone_reset(&self, zslba: u64, all: bool) -> Result<(), NvmeError> {
        let nsid = self.nsid().ok_or_else(|| need_ns(self))?;
        self.submit(
            "zone reset",
            Queue::Io,
            zone_mgmt_send(nsid, zslba, ZSA_RESET, all),
            None,
        )
        .map(|_| ())
    }

    /// Up to `max` zone descriptors from `slba`, and the number of zones from there on.
    pub fn report_zones(
        &self,
        slba: u64,
        max: usize,
    ) -> Result<(u64, Vec<ZoneDescriptor>), NvmeError> {
        let nsid = self.nsid().ok_or_else(|| need_ns(self))?;
        let len = (64 + 64 * max.max(1)).next_multiple_of(4096);
        let mut buf = vec![0u8; len];
        self.submit(
            "report zones",
            Queue::Io,
            report_zones(nsid, slba, len as u32),
            Some(&mut buf),
        )?;
        decode_report(&buf)
    }
}

fn need_ns(d: &Device) -> NvmeError {
    NvmeError::InvalidArgument(format!(
        "{} is a controller; zone commands need a namespace",
        d.path().display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        let c = zone_append(1, 0x1_0000_4000, 32);
        assert_eq!((c.opcode, c.cdw10, c.cdw11, c.cdw12), (0x7D, 0x4000, 1, 31));
        let c = zone_mgmt_send(1, 0x8000, ZSA_RESET, false);
        assert_eq!((c.opcode, c.cdw10, c.cdw13), (0x79, 0x8000, 4));
        let c = zone_mgmt_send(1, 0, ZSA_RESET, true);
        assert_eq!(c.cdw13, 0x104);
        let c = report_zones(1, 0, 4096);
        assert_eq!((c.opcode, c.cdw12, c.cdw13), (0x7A, 1023, 0));
    }

    #[test]
    fn decodes_a_report() {
        let mut b = vec![0u8; 192];
        b[0] = 2;
        for (i, (start, wp, st)) in [(0u64, 8u64, 0x2u8), (16384, 16384, 0x1)]
            .iter()
            .enumerate()
        {
            let d = &mut b[64 + i * 64..];
            d[0] = 2;
            d[1] = st << 4;
            d[8..16].copy_from_slice(&16384u64.to_le_bytes());
            d[16..24].copy_from_slice(&start.to_le_bytes());
            d[24..32].copy_from_slice(&wp.to_le_bytes());
        }
        let (n, z) = decode_report(&b).unwrap();
        assert_eq!(n, 2);
        assert_eq!(z[0].state, 2);
        assert_eq!(z[1].start_lba, 16384);
        assert_eq!(z[0].write_pointer, 8);
        assert_eq!(z[1].capacity_blocks, 16384);
        assert!(decode_report(&b[..10]).is_err());
    }
}
