//! Flexible Data Placement (TP4146) logs: configurations (20h), reclaim unit handle usage (21h),
//! statistics (22h), and the Reclaim Unit Handle Status returned by I/O Management Receive.
//! All FDP logs are per endurance group (Get Log Page LSI = endurance group ID).

use serde::{Deserialize, Serialize};

pub use ssdiq_schema::info::{FdpConfig, FdpStats, RuhStatus, RuhType};

use crate::bytes::{need, u128_, u16_, u32_, u64_, u8_};
use crate::NvmeError;

fn ruh_type(v: u8) -> RuhType {
    match v {
        1 => RuhType::InitiallyIsolated,
        2 => RuhType::PersistentlyIsolated,
        x => RuhType::Reserved(x),
    }
}

/// Decodes the FDP Configurations log page.
pub fn decode_fdp_configs(buf: &[u8]) -> Result<Vec<FdpConfig>, NvmeError> {
    need(buf, 16, "FDP configurations log")?;
    let n = u16_(buf, 0) as usize + 1; // NUMFDPC is 0-based
    let size = (u32_(buf, 4) as usize).min(buf.len());
    let mut off = 16;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if off + 64 > size {
            return Err(NvmeError::Decode(format!(
                "FDP configurations log: descriptor {i} at byte {off} runs past the log ({size} bytes)"
            )));
        }
        let dsze = u16_(buf, off) as usize;
        let fdpa = u8_(buf, off + 2);
        let nruh = u16_(buf, off + 8);
        if dsze < 64 + 4 * nruh as usize || off + dsze > size {
            return Err(NvmeError::Decode(format!(
                "FDP configurations log: descriptor {i} has size {dsze} for {nruh} handles"
            )));
        }
        let ruh_types = (0..nruh as usize)
            .map(|h| ruh_type(u8_(buf, off + 64 + 4 * h)))
            .collect();
        out.push(FdpConfig {
            valid: fdpa & 0x80 != 0,
            rgif: fdpa & 0x3,
            fdpvwc: fdpa & 0x10 != 0,
            nrg: u32_(buf, off + 4),
            nruh,
            max_pids: u16_(buf, off + 10) as u32 + 1,
            nnss: u32_(buf, off + 12),
            runs: u64_(buf, off + 16),
            erutl: u32_(buf, off + 24),
            ruh_types,
        });
        off += dsze;
    }
    Ok(out)
}

/// Reclaim unit handle attributes from the usage log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuhAttributes {
    Unused,
    HostSpecified,
    ControllerSpecified,
    Reserved(u8),
}

/// Decodes the Reclaim Unit Handle Usage log: one attribute per handle.
pub fn decode_ruh_usage(buf: &[u8]) -> Result<Vec<RuhAttributes>, NvmeError> {
    need(buf, 8, "RUH usage log")?;
    let n = u16_(buf, 0) as usize;
    need(buf, 8 + 8 * n, "RUH usage log")?;
    Ok((0..n)
        .map(|i| match u8_(buf, 8 + 8 * i) {
            0 => RuhAttributes::Unused,
            1 => RuhAttributes::HostSpecified,
            2 => RuhAttributes::ControllerSpecified,
            x => RuhAttributes::Reserved(x),
        })
        .collect())
}

pub fn decode_fdp_stats(buf: &[u8]) -> Result<FdpStats, NvmeError> {
    need(buf, 48, "FDP statistics log")?;
    Ok(FdpStats {
        host_bytes_written: u128_(buf, 0),
        media_bytes_written: u128_(buf, 16),
        media_bytes_erased: u128_(buf, 32),
    })
}

pub fn decode_ruh_status(buf: &[u8]) -> Result<Vec<RuhStatus>, NvmeError> {
    need(buf, 16, "RUH status")?;
    let n = u16_(buf, 14) as usize;
    need(buf, 16 + 32 * n, "RUH status")?;
    Ok((0..n)
        .map(|i| {
            let o = 16 + 32 * i;
            RuhStatus {
                pid: u16_(buf, o),
                ruhid: u16_(buf, o + 2),
                earutr: u32_(buf, o + 4),
                ruamw: u64_(buf, o + 8),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A configurations log the way QEMU builds it: 1 config, 8 handles, 8 MiB units.
    fn configs(nruh: u16) -> Vec<u8> {
        let dsze = (64 + 4 * nruh as usize).div_ceil(8) * 8;
        let size = 16 + dsze;
        let mut b = vec![0u8; 4096];
        b[0..2].copy_from_slice(&0u16.to_le_bytes());
        b[4..8].copy_from_slice(&(size as u32).to_le_bytes());
        let d = 16;
        b[d..d + 2].copy_from_slice(&(dsze as u16).to_le_bytes());
        b[d + 2] = 0x80; // valid, rgif 0
        b[d + 4..d + 8].copy_from_slice(&1u32.to_le_bytes());
        b[d + 8..d + 10].copy_from_slice(&nruh.to_le_bytes());
        b[d + 10..d + 12].copy_from_slice(&127u16.to_le_bytes());
        b[d + 12..d + 16].copy_from_slice(&256u32.to_le_bytes());
        b[d + 16..d + 24].copy_from_slice(&(8u64 << 20).to_le_bytes());
        for h in 0..nruh as usize {
            b[d + 64 + 4 * h] = 1;
        }
        b[d + 64 + 4] = 2;
        b
    }

    #[test]
    fn configurations() {
        let c = decode_fdp_configs(&configs(8)).unwrap();
        assert_eq!(c.len(), 1);
        let c = &c[0];
        assert!(c.valid);
        assert_eq!(c.rgif, 0);
        assert_eq!(c.nrg, 1);
        assert_eq!(c.nruh, 8);
        assert_eq!(c.max_pids, 128);
        assert_eq!(c.nnss, 256);
        assert_eq!(c.runs, 8 << 20);
        assert_eq!(c.ruh_types.len(), 8);
        assert_eq!(c.ruh_types[0], RuhType::InitiallyIsolated);
        assert_eq!(c.ruh_types[1], RuhType::PersistentlyIsolated);
    }

    #[test]
    fn configurations_reject_a_truncated_descriptor() {
        let mut b = configs(8);
        b[16..18].copy_from_slice(&32u16.to_le_bytes());
        assert!(decode_fdp_configs(&b).is_err());
        let mut b = configs(8);
        b[0..2].copy_from_slice(&1u16.to_le_bytes()); // claims 2 configs, has 1
        assert!(decode_fdp_configs(&b).is_err());
    }

    #[test]
    fn usage_stats_and_status() {
        let mut u = vec![0u8; 8 + 8 * 3];
        u[0..2].copy_from_slice(&3u16.to_le_bytes());
        u[8] = 1;
        u[16] = 2;
        assert_eq!(
            decode_ruh_usage(&u).unwrap(),
            vec![
                RuhAttributes::HostSpecified,
                RuhAttributes::ControllerSpecified,
                RuhAttributes::Unused
            ]
        );
        assert!(decode_ruh_usage(&u[..20]).is_err());

        let mut s = vec![0u8; 64];
        s[0..16].copy_from_slice(&2_621_440u128.to_le_bytes());
        s[16..32].copy_from_slice(&((1u128 << 80) + 3).to_le_bytes());
        s[32..48].copy_from_slice(&(8u128 << 20).to_le_bytes());
        let st = decode_fdp_stats(&s).unwrap();
        assert_eq!(st.host_bytes_written, 2_621_440);
        assert_eq!(st.media_bytes_written, (1u128 << 80) + 3);
        assert_eq!(st.media_bytes_erased, 8 << 20);

        let mut r = vec![0u8; 16 + 32 * 2];
        r[14..16].copy_from_slice(&2u16.to_le_bytes());
        r[16..18].copy_from_slice(&0u16.to_le_bytes());
        r[24..32].copy_from_slice(&16384u64.to_le_bytes());
        r[48..50].copy_from_slice(&3u16.to_le_bytes());
        r[50..52].copy_from_slice(&3u16.to_le_bytes());
        r[52..56].copy_from_slice(&60u32.to_le_bytes());
        r[56..64].copy_from_slice(&12288u64.to_le_bytes());
        let st = decode_ruh_status(&r).unwrap();
        assert_eq!(st.len(), 2);
        assert_eq!(st[0].ruamw, 16384);
        assert_eq!(
            st[1],
            RuhStatus {
                pid: 3,
                ruhid: 3,
                earutr: 60,
                ruamw: 12288
            }
        );
        assert!(decode_ruh_status(&r[..60]).is_err());
    }
}
