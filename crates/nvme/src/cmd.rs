//! Command encodings: pure functions from parameters to a [`PassthruCmd64`] (without the data
//! pointer, which [`crate::ioctl::submit`] fills in). Tested against the NVMe Base / NVM Command
//! Set specifications' dword layouts.

use crate::ioctl::PassthruCmd64;

/// Admin opcodes.
pub mod admin {
    pub const GET_LOG_PAGE: u8 = 0x02;
    pub const IDENTIFY: u8 = 0x06;
    pub const FORMAT_NVM: u8 = 0x80;
    pub const SANITIZE: u8 = 0x84;
}

/// NVM command set (I/O) opcodes.
pub mod io {
    pub const WRITE: u8 = 0x01;
    pub const READ: u8 = 0x02;
    pub const WRITE_ZEROES: u8 = 0x08;
    pub const DATASET_MANAGEMENT: u8 = 0x09;
    pub const IO_MGMT_RECV: u8 = 0x12;
}

/// Log page identifiers.
pub mod lid {
    pub const SMART: u8 = 0x02;
    pub const FDP_CONFIGS: u8 = 0x20;
    pub const FDP_RUH_USAGE: u8 = 0x21;
    pub const FDP_STATS: u8 = 0x22;
    pub const SANITIZE_STATUS: u8 = 0x81;
    /// OCP Datacenter NVMe SSD spec: SMART / Health Information Extended.
    pub const OCP_SMART_EXTENDED: u8 = 0xC0;
}

/// The NSID meaning "all namespaces / controller scope".
pub const NSID_ALL: u32 = 0xFFFF_FFFF;

/// Identify (CNS 0x01 = controller, 0x00 = namespace).
pub fn identify(cns: u8, nsid: u32) -> PassthruCmd64 {
    PassthruCmd64 {
        opcode: admin::IDENTIFY,
        nsid,
        cdw10: cns as u32,
        ..Default::default()
    }
}

/// Get Log Page. `len` must be a non-zero multiple of 4; `lsi` is the log specific identifier
/// (the endurance group for the FDP logs); `offset` is the byte offset into the log.
pub fn get_log_page(lid: u8, nsid: u32, lsi: u16, offset: u64, len: u32) -> PassthruCmd64 {
    assert!(
        len >= 4 && len.is_multiple_of(4),
        "log length must be a multiple of 4"
    );
    let numd = len / 4 - 1;
    PassthruCmd64 {
        opcode: admin::GET_LOG_PAGE,
        nsid,
        cdw10: lid as u32 | ((numd & 0xFFFF) << 16),
        cdw11: (numd >> 16) | ((lsi as u32) << 16),
        cdw12: offset as u32,
        cdw13: (offset >> 32) as u32,
        ..Default::default()
    }
}

/// Secure Erase Settings of Format NVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecureErase {
    /// No secure erase requested.
    None = 0,
    /// User data erase.
    UserData = 1,
    /// Cryptographic erase.
    Crypto = 2,
}

/// Format NVM with LBA format index `lbaf` (0..63; the high bits go to LBAFU) and no
/// protection information.
pub fn format_nvm(nsid: u32, lbaf: u8, ses: SecureErase) -> PassthruCmd64 {
    let lbaf = lbaf as u32;
    PassthruCmd64 {
        opcode: admin::FORMAT_NVM,
        nsid,
        cdw10: (lbaf & 0xF) | ((ses as u32) << 9) | (((lbaf >> 4) & 0x3) << 12),
        // Format can take minutes on a real drive.
        timeout_ms: 600_000,
        ..Default::default()
    }
}

/// Sanitize actions (SANACT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SanitizeAction {
    ExitFailureMode = 1,
    BlockErase = 2,
    Overwrite = 3,
    CryptoErase = 4,
}

/// Sanitize. `no_dealloc` sets NDAS (no deallocate after sanitize).
pub fn sanitize(action: SanitizeAction, no_dealloc: bool) -> PassthruCmd64 {
    PassthruCmd64 {
        opcode: admin::SANITIZE,
        cdw10: action as u32 | ((no_dealloc as u32) << 9),
        ..Default::default()
    }
}

/// Data placement for writes: the directive type and the directive specific value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// No directive.
    None,
    /// FDP (DTYPE 2): DSPEC is the placement identifier (reclaim group << (16 - RGIF) | handle).
    Fdp(u16),
}

/// Write `nlb` (1..=65536) logical blocks at `slba`.
pub fn write(nsid: u32, slba: u64, nlb: u32, placement: Placement) -> PassthruCmd64 {
    assert!((1..=65536).contains(&nlb), "nlb must be 1..=65536");
    let (dtype, dspec) = match placement {
        Placement::None => (0u32, 0u32),
        Placement::Fdp(pid) => (2, pid as u32),
    };
    PassthruCmd64 {
        opcode: io::WRITE,
        nsid,
        cdw10: slba as u32,
        cdw11: (slba >> 32) as u32,
        cdw12: (nlb - 1) | (dtype << 20),
        cdw13: dspec << 16,
        ..Default::default()
    }
}

/// Read `nlb` (1..=65536) logical blocks at `slba`.
pub fn read(nsid: u32, slba: u64, nlb: u32) -> PassthruCmd64 {
    assert!((1..=65536).contains(&nlb), "nlb must be 1..=65536");
    PassthruCmd64 {
        opcode: io::READ,
        nsid,
        cdw10: slba as u32,
        cdw11: (slba >> 32) as u32,
        cdw12: nlb - 1,
        ..Default::default()
    }
}

/// Write Zeroes of `nlb` (1..=65536) logical blocks at `slba` (no data buffer).
pub fn write_zeroes(nsid: u32, slba: u64, nlb: u32) -> PassthruCmd64 {
    assert!((1..=65536).contains(&nlb), "nlb must be 1..=65536");
    PassthruCmd64 {
        opcode: io::WRITE_ZEROES,
        nsid,
        cdw10: slba as u32,
        cdw11: (slba >> 32) as u32,
        cdw12: nlb - 1,
        ..Default::default()
    }
}

/// One Dataset Management range: `nlb` blocks at `slba`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DsmRange {
    pub slba: u64,
    pub nlb: u32,
}

/// Dataset Management with the Deallocate attribute over `nr` ranges (1..=256); the range
/// list (16 bytes per range, see [`dsm_ranges`]) is the data buffer.
pub fn dsm_deallocate(nsid: u32, nr: u32) -> PassthruCmd64 {
    assert!((1..=256).contains(&nr), "1..=256 ranges");
    PassthruCmd64 {
        opcode: io::DATASET_MANAGEMENT,
        nsid,
        cdw10: nr - 1,
        cdw11: 1 << 2,
        ..Default::default()
    }
}

/// The DSM range list: context attributes (0), length in blocks, starting LBA.
pub fn dsm_ranges(ranges: &[DsmRange]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ranges.len() * 16);
    for r in ranges {
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&r.nlb.to_le_bytes());
        out.extend_from_slice(&r.slba.to_le_bytes());
    }
    out
}

/// I/O Management Receive, management operation 1 (Reclaim Unit Handle Status).
pub fn io_mgmt_recv_ruh_status(nsid: u32, len: u32) -> PassthruCmd64 {
    assert!(len >= 4 && len.is_multiple_of(4));
    PassthruCmd64 {
        opcode: io::IO_MGMT_RECV,
        nsid,
        cdw10: 1,
        cdw11: len / 4 - 1,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_log_page_splits_numd_and_carries_lsi() {
        let c = get_log_page(lid::SMART, NSID_ALL, 0, 0, 512);
        assert_eq!(c.opcode, 0x02);
        assert_eq!(c.cdw10, 0x02 | (127 << 16));
        assert_eq!(c.cdw11, 0);
        // 1 MiB: numd = 262143 = 0x3FFFF -> NUMDL 0xFFFF, NUMDU 0x3; LSI (endurance group 1).
        let c = get_log_page(lid::FDP_STATS, 0, 1, 0x1_0000_0200, 1 << 20);
        assert_eq!(c.cdw10, 0x22 | (0xFFFF << 16));
        assert_eq!(c.cdw11, 0x3 | (1 << 16));
        assert_eq!(c.cdw12, 0x200);
        assert_eq!(c.cdw13, 1);
    }

    #[test]
    fn write_with_fdp_placement_sets_dtype_and_dspec() {
        let c = write(1, 0x1_2345_6789, 8, Placement::Fdp(3));
        assert_eq!(c.opcode, 0x01);
        assert_eq!(c.cdw10, 0x2345_6789);
        assert_eq!(c.cdw11, 1);
        assert_eq!(c.cdw12, 7 | (2 << 20));
        assert_eq!((c.cdw12 >> 20) & 0xF, 2);
        assert_eq!(c.cdw13 >> 16, 3);
        let c = write(1, 0, 65536, Placement::None);
        assert_eq!(c.cdw12, 0xFFFF);
        assert_eq!(c.cdw13, 0);
    }

    #[test]
    fn format_nvm_encodes_lbaf_and_ses() {
        let c = format_nvm(1, 4, SecureErase::UserData);
        assert_eq!(c.opcode, 0x80);
        assert_eq!(c.cdw10, 4 | (1 << 9));
        let c = format_nvm(1, 0x15, SecureErase::Crypto);
        assert_eq!(c.cdw10, 0x5 | (2 << 9) | (1 << 12));
    }

    #[test]
    fn sanitize_and_dsm_encodings() {
        let c = sanitize(SanitizeAction::BlockErase, false);
        assert_eq!((c.opcode, c.cdw10), (0x84, 2));
        let c = sanitize(SanitizeAction::CryptoErase, true);
        assert_eq!(c.cdw10, 4 | (1 << 9));
        let c = dsm_deallocate(1, 2);
        assert_eq!((c.opcode, c.cdw10, c.cdw11), (0x09, 1, 4));
        let r = dsm_ranges(&[DsmRange { slba: 0x10, nlb: 8 }]);
        assert_eq!(r.len(), 16);
        assert_eq!(&r[4..8], &8u32.to_le_bytes());
        assert_eq!(&r[8..16], &0x10u64.to_le_bytes());
    }

    #[test]
    fn identify_and_ruh_status() {
        let c = identify(1, 0);
        assert_eq!((c.opcode, c.cdw10), (0x06, 1));
        let c = io_mgmt_recv_ruh_status(1, 4096);
        assert_eq!((c.opcode, c.cdw10, c.cdw11), (0x12, 1, 1023));
    }
}
