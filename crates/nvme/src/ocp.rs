//! OCP Datacenter NVMe SSD specification: SMART / Health Information Extended log (LID C0h).
//!
//! Offsets follow the OCP Datacenter NVMe SSD spec v2.0 table (fields up to byte 215; later
//! revisions add fields in what v2.0 reserves, which this decoder ignores). The page is only
//! trusted when its GUID (bytes 496..511) matches.

pub use ssdiq_schema::info::{OcpSmartLog, RawNormalized};

use crate::bytes::{le, need, u128_, u16_, u32_, u64_, u8_};
use crate::NvmeError;

/// The SMART / Health Information Extended log page GUID, as a little-endian 128-bit value.
pub const OCP_SMART_GUID: u128 = 0xAFD5_14C9_7C6F_4F9C_A4F2_BFEA_2810_AFC5;

/// Decodes the 512-byte C0h page; fails with [`NvmeError::GuidMismatch`] if the GUID is wrong
/// (e.g. a vendor-specific C0h page of a drive that does not follow the OCP spec).
pub fn decode_ocp_smart_log(buf: &[u8]) -> Result<OcpSmartLog, NvmeError> {
    need(buf, 512, "OCP SMART extended log")?;
    let guid = u128_(buf, 496);
    if guid != OCP_SMART_GUID {
        return Err(NvmeError::GuidMismatch {
            log: 0xC0,
            found: format!("{guid:032X}"),
        });
    }
    Ok(OcpSmartLog {
        physical_media_bytes_written: u128_(buf, 0),
        physical_media_bytes_read: u128_(buf, 16),
        bad_user_nand_blocks: RawNormalized {
            raw: le(buf, 32, 6) as u64,
            normalized: u16_(buf, 38),
        },
        bad_system_nand_blocks: RawNormalized {
            raw: le(buf, 40, 6) as u64,
            normalized: u16_(buf, 46),
        },
        xor_recovery_count: u64_(buf, 48),
        uncorrectable_read_errors: u64_(buf, 56),
        soft_ecc_errors: u64_(buf, 64),
        end_to_end_detected_errors: u32_(buf, 72),
        end_to_end_corrected_errors: u32_(buf, 76),
        system_data_percent_used: u8_(buf, 80),
        refresh_counts: le(buf, 81, 7) as u64,
        user_data_erase_count_max: u32_(buf, 88),
        user_data_erase_count_min: u32_(buf, 92),
        thermal_throttling_events: u8_(buf, 96),
        thermal_throttling_status: u8_(buf, 97),
        dssd_errata: u8_(buf, 98),
        dssd_point: u16_(buf, 99),
        dssd_minor: u16_(buf, 101),
        dssd_major: u8_(buf, 103),
        pcie_correctable_errors: u64_(buf, 104),
        incomplete_shutdowns: u32_(buf, 112),
        percent_free_blocks: u8_(buf, 120),
        capacitor_health: u16_(buf, 128),
        nvme_base_errata_version: u8_(buf, 130),
        nvme_command_set_errata_version: u8_(buf, 131),
        unaligned_io: u64_(buf, 136),
        security_version: u64_(buf, 144),
        total_nuse: u64_(buf, 152),
        plp_start_count: u128_(buf, 160),
        endurance_estimate: u128_(buf, 176),
        pcie_link_retraining_count: u64_(buf, 192),
        power_state_change_count: u64_(buf, 200),
        log_page_version: u16_(buf, 494),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GUID bytes as QEMU writes them (and as seen in a guest).
    const GUID_BYTES: [u8; 16] = [
        0xc5, 0xaf, 0x10, 0x28, 0xea, 0xbf, 0xf2, 0xa4, 0x9c, 0x4f, 0x6f, 0x7c, 0xc9, 0x14, 0xd5,
        0xaf,
    ];

    fn page() -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[496..512].copy_from_slice(&GUID_BYTES);
        b[494..496].copy_from_slice(&5u16.to_le_bytes());
        b
    }

    #[test]
    fn guid_is_checked() {
        let b = page();
        assert!(decode_ocp_smart_log(&b).is_ok());
        let mut bad = b.clone();
        bad[511] ^= 1;
        assert!(matches!(
            decode_ocp_smart_log(&bad),
            Err(NvmeError::GuidMismatch { log: 0xC0, .. })
        ));
        assert!(decode_ocp_smart_log(&b[..500]).is_err());
    }

    #[test]
    fn qemu_like_page_has_media_counters_and_version() {
        let mut b = page();
        b[0..16].copy_from_slice(&33_554_432u128.to_le_bytes());
        b[16..32].copy_from_slice(&4608u128.to_le_bytes());
        let l = decode_ocp_smart_log(&b).unwrap();
        assert_eq!(l.physical_media_bytes_written, 33_554_432);
        assert_eq!(l.physical_media_bytes_read, 4608);
        assert_eq!(l.log_page_version, 5);
        assert_eq!(l.xor_recovery_count, 0);
    }

    #[test]
    fn every_field_at_its_v2_offset() {
        let mut b = page();
        let mut put = |off: usize, v: &[u8]| b[off..off + v.len()].copy_from_slice(v);
        put(0, &((1u128 << 100) + 1).to_le_bytes());
        put(16, &((1u128 << 90) + 2).to_le_bytes());
        put(32, &[1, 2, 3, 4, 5, 6]);
        put(38, &100u16.to_le_bytes());
        put(40, &[7, 0, 0, 0, 0, 1]);
        put(46, &99u16.to_le_bytes());
        put(48, &11u64.to_le_bytes());
        put(56, &12u64.to_le_bytes());
        put(64, &13u64.to_le_bytes());
        put(72, &14u32.to_le_bytes());
        put(76, &15u32.to_le_bytes());
        put(80, &[16]);
        put(81, &[1, 0, 0, 0, 0, 0, 2]);
        put(88, &18u32.to_le_bytes());
        put(92, &19u32.to_le_bytes());
        put(96, &[20, 1]);
        put(98, &[0x61]);
        put(99, &3u16.to_le_bytes());
        put(101, &1u16.to_le_bytes());
        put(103, &[2]);
        put(104, &21u64.to_le_bytes());
        put(112, &22u32.to_le_bytes());
        put(120, &[23]);
        put(128, &24u16.to_le_bytes());
        put(130, &[0x62, 0x63]);
        put(136, &25u64.to_le_bytes());
        put(144, &26u64.to_le_bytes());
        put(152, &27u64.to_le_bytes());
        put(160, &28u128.to_le_bytes());
        put(176, &29u128.to_le_bytes());
        put(192, &30u64.to_le_bytes());
        put(200, &31u64.to_le_bytes());
        let l = decode_ocp_smart_log(&b).unwrap();
        assert_eq!(l.physical_media_bytes_written, (1u128 << 100) + 1);
        assert_eq!(l.physical_media_bytes_read, (1u128 << 90) + 2);
        assert_eq!(
            l.bad_user_nand_blocks,
            RawNormalized {
                raw: 0x060504030201,
                normalized: 100
            }
        );
        assert_eq!(l.bad_system_nand_blocks.raw, (1u64 << 40) + 7);
        assert_eq!(l.bad_system_nand_blocks.normalized, 99);
        assert_eq!(l.xor_recovery_count, 11);
        assert_eq!(l.uncorrectable_read_errors, 12);
        assert_eq!(l.soft_ecc_errors, 13);
        assert_eq!(l.end_to_end_detected_errors, 14);
        assert_eq!(l.end_to_end_corrected_errors, 15);
        assert_eq!(l.system_data_percent_used, 16);
        assert_eq!(l.refresh_counts, (2u64 << 48) + 1);
        assert_eq!(l.user_data_erase_count_max, 18);
        assert_eq!(l.user_data_erase_count_min, 19);
        assert_eq!(l.thermal_throttling_events, 20);
        assert_eq!(l.thermal_throttling_status, 1);
        assert_eq!(l.dssd_errata, 0x61);
        assert_eq!(l.dssd_version(), "2.1.3");
        assert_eq!(l.pcie_correctable_errors, 21);
        assert_eq!(l.incomplete_shutdowns, 22);
        assert_eq!(l.percent_free_blocks, 23);
        assert_eq!(l.capacitor_health, 24);
        assert_eq!(l.nvme_base_errata_version, 0x62);
        assert_eq!(l.nvme_command_set_errata_version, 0x63);
        assert_eq!(l.unaligned_io, 25);
        assert_eq!(l.security_version, 26);
        assert_eq!(l.total_nuse, 27);
        assert_eq!(l.plp_start_count, 28);
        assert_eq!(l.endurance_estimate, 29);
        assert_eq!(l.pcie_link_retraining_count, 30);
        assert_eq!(l.power_state_change_count, 31);
        assert_eq!(l.log_page_version, 5);
    }
}
