//! Identify Controller (CNS 01h) and Identify Namespace (CNS 00h) decoders.

use serde::{Deserialize, Serialize};

use crate::bytes::{ascii, le, need, u16_, u32_, u64_, u8_};
use crate::NvmeError;

/// The parts of Identify Controller that ssdiq uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentifyController {
    pub vid: u16,
    pub serial: String,
    pub model: String,
    pub firmware: String,
    /// Maximum data transfer size as a power of two in units of the minimum memory page size
    /// (0 = no limit).
    pub mdts: u8,
    pub cntlid: u16,
    /// Version, e.g. 0x00010400 for 1.4.
    pub version: u32,
    /// Controller attributes (bit 19 = flexible data placement supported).
    pub ctratt: u32,
    /// Optional admin command support.
    pub oacs: u16,
    /// Sanitize capabilities.
    pub sanicap: u32,
    /// Optional NVM command support (bit 2 DSM, bit 3 write zeroes).
    pub oncs: u16,
    /// Format NVM attributes.
    pub fna: u8,
    /// Log page attributes.
    pub lpa: u8,
    /// Number of namespaces the controller supports (not how many exist: see
    /// `Device::active_namespaces`).
    pub nn: u32,
    /// Controller multi-path I/O and namespace sharing capabilities.
    pub cmic: u8,
    /// Total NVM capacity in bytes (0 if not reported).
    pub tnvmcap: u128,
    /// Unallocated NVM capacity in bytes.
    pub unvmcap: u128,
    /// Maximum endurance group ID.
    pub endgidmax: u16,
    pub subnqn: String,
}

impl IdentifyController {
    pub fn supports_format(&self) -> bool {
        self.oacs & (1 << 1) != 0
    }
    pub fn supports_ns_management(&self) -> bool {
        self.oacs & (1 << 3) != 0
    }
    pub fn supports_directives(&self) -> bool {
        self.oacs & (1 << 5) != 0
    }
    /// SANICAP.CES
    pub fn sanitize_crypto_erase(&self) -> bool {
        self.sanicap & 1 != 0
    }
    /// SANICAP.BES
    pub fn sanitize_block_erase(&self) -> bool {
        self.sanicap & (1 << 1) != 0
    }
    /// SANICAP.OWS
    pub fn sanitize_overwrite(&self) -> bool {
        self.sanicap & (1 << 2) != 0
    }
    pub fn supports_sanitize(&self) -> bool {
        self.sanicap & 0x7 != 0
    }
    /// CTRATT.FDPS: flexible data placement supported.
    pub fn supports_fdp(&self) -> bool {
        self.ctratt & (1 << 19) != 0
    }
    /// CTRATT.ENDGRPS: endurance groups supported.
    pub fn supports_endurance_groups(&self) -> bool {
        self.ctratt & (1 << 4) != 0
    }
    /// ONCS.DSM: Dataset Management (deallocate).
    pub fn supports_dsm(&self) -> bool {
        self.oncs & (1 << 2) != 0
    }
    /// ONCS.WZS: Write Zeroes.
    pub fn supports_write_zeroes(&self) -> bool {
        self.oncs & (1 << 3) != 0
    }
    /// CMIC bit 1: the NVM subsystem may contain two or more controllers, so subsystem-wide
    /// commands (sanitize) may reach namespaces this controller cannot list.
    pub fn may_share_subsystem(&self) -> bool {
        self.cmic & (1 << 1) != 0
    }
    /// FNA bit 0: Format NVM applies to every namespace of the controller.
    pub fn format_applies_to_all_namespaces(&self) -> bool {
        self.fna & 1 != 0
    }
    /// FNA bit 2: cryptographic erase supported as part of Format NVM.
    pub fn format_crypto_erase(&self) -> bool {
        self.fna & (1 << 2) != 0
    }
    /// LPA bit 0: the SMART log can be read per namespace.
    pub fn smart_per_namespace(&self) -> bool {
        self.lpa & (1 << 0) != 0
    }
    /// The maximum transfer in bytes assuming a 4 KiB minimum page size (None = unlimited).
    pub fn max_transfer_bytes(&self) -> Option<u64> {
        (self.mdts != 0).then(|| 4096u64 << self.mdts.min(40))
    }
    /// "1.4", "2.0.1", ...
    pub fn version_string(&self) -> String {
        let (mj, mn, ter) = (
            self.version >> 16,
            (self.version >> 8) & 0xFF,
            self.version & 0xFF,
        );
        if ter == 0 {
            format!("{mj}.{mn}")
        } else {
            format!("{mj}.{mn}.{ter}")
        }
    }
}

/// Decodes a 4096-byte Identify Controller data structure.
pub fn decode_identify_controller(buf: &[u8]) -> Result<IdentifyController, NvmeError> {
    need(buf, 4096, "identify controller")?;
    Ok(IdentifyController {
        vid: u16_(buf, 0),
        serial: ascii(buf, 4, 20),
        model: ascii(buf, 24, 40),
        firmware: ascii(buf, 64, 8),
        cmic: u8_(buf, 76),
        mdts: u8_(buf, 77),
        cntlid: u16_(buf, 78),
        version: u32_(buf, 80),
        ctratt: u32_(buf, 96),
        oacs: u16_(buf, 256),
        lpa: u8_(buf, 261),
        tnvmcap: le(buf, 280, 16),
        unvmcap: le(buf, 296, 16),
        sanicap: u32_(buf, 328),
        endgidmax: u16_(buf, 340),
        nn: u32_(buf, 516),
        oncs: u16_(buf, 520),
        fna: u8_(buf, 524),
        subnqn: ascii(buf, 768, 256),
    })
}

/// One LBA format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LbaFormat {
    /// Metadata bytes per block.
    pub ms: u16,
    /// Block size in bytes (2^LBADS).
    pub block_size: u64,
    /// Relative performance, 0 = best .. 3 = degraded.
    pub rp: u8,
}

/// The parts of Identify Namespace that ssdiq uses. Sizes are in logical blocks unless said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentifyNamespace {
    pub nsze: u64,
    pub ncap: u64,
    pub nuse: u64,
    pub nsfeat: u8,
    pub flbas: u8,
    /// Index of the LBA format in use.
    pub lbaf_index: u8,
    pub lba_formats: Vec<LbaFormat>,
    /// Deallocate logical block features (bits 2:0: what deallocated blocks read as).
    pub dlfeat: u8,
    /// Namespace optimal I/O boundary in blocks (0 = not reported).
    pub noiob: u16,
    /// Namespace preferred write granularity in blocks (1-based; None unless NSFEAT.OPTPERF).
    pub npwg: Option<u32>,
    /// Namespace preferred write alignment in blocks.
    pub npwa: Option<u32>,
    /// Namespace preferred deallocate granularity in blocks.
    pub npdg: Option<u32>,
    /// Namespace preferred deallocate alignment in blocks.
    pub npda: Option<u32>,
    /// Namespace optimal write size in blocks.
    pub nows: Option<u32>,
    /// Namespace atomic write unit power fail in blocks (1-based; None unless NSFEAT.NSABP).
    pub nawupf: Option<u32>,
    /// NVM capacity in bytes (0 if not reported).
    pub nvmcap: u128,
    /// Endurance group of this namespace (0 if none).
    pub endgid: u16,
    pub nguid: [u8; 16],
    pub eui64: [u8; 8],
}

impl IdentifyNamespace {
    pub fn block_size(&self) -> u64 {
        self.lba_formats
            .get(self.lbaf_index as usize)
            .map(|f| f.block_size)
            .unwrap_or(512)
    }
    pub fn metadata_size(&self) -> u16 {
        self.lba_formats
            .get(self.lbaf_index as usize)
            .map(|f| f.ms)
            .unwrap_or(0)
    }
    pub fn capacity_bytes(&self) -> u128 {
        self.nsze as u128 * self.block_size() as u128
    }
    /// DLFEAT bits 2:0 == 1: deallocated blocks read back as zeroes.
    pub fn deallocate_reads_zeroes(&self) -> bool {
        self.dlfeat & 0x7 == 1
    }
}

/// Decodes a 4096-byte Identify Namespace data structure.
/// An Identify namespace list (CNS 0x02): ascending NSIDs, ended by the first zero.
pub fn decode_namespace_list(buf: &[u8]) -> Vec<u32> {
    buf.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .take_while(|&id| id != 0)
        .collect()
}

pub fn decode_identify_namespace(buf: &[u8]) -> Result<IdentifyNamespace, NvmeError> {
    need(buf, 4096, "identify namespace")?;
    let nsfeat = u8_(buf, 24);
    let nlbaf = u8_(buf, 25) as usize + 1;
    let flbas = u8_(buf, 26);
    // FLBAS bits 3:0 are the low index bits, bits 6:5 the high ones (more than 16 formats).
    let lbaf_index = (flbas & 0xF) | (((flbas >> 5) & 0x3) << 4);
    let lba_formats = (0..nlbaf.min(64))
        .map(|i| {
            let d = u32_(buf, 128 + 4 * i);
            let lbads = (d >> 16) & 0xFF;
            LbaFormat {
                ms: (d & 0xFFFF) as u16,
                block_size: if (9..=40).contains(&lbads) {
                    1u64 << lbads
                } else {
                    0
                },
                rp: ((d >> 24) & 0x3) as u8,
            }
        })
        .collect();
    let optperf = nsfeat & (1 << 4) != 0;
    let nsabp = nsfeat & (1 << 1) != 0;
    let opt = |off: usize| optperf.then(|| u16_(buf, off) as u32 + 1);
    let mut nguid = [0u8; 16];
    nguid.copy_from_slice(&buf[104..120]);
    let mut eui64 = [0u8; 8];
    eui64.copy_from_slice(&buf[120..128]);
    Ok(IdentifyNamespace {
        nsze: u64_(buf, 0),
        ncap: u64_(buf, 8),
        nuse: u64_(buf, 16),
        nsfeat,
        flbas,
        lbaf_index,
        lba_formats,
        dlfeat: u8_(buf, 33),
        nawupf: nsabp.then(|| u16_(buf, 36) as u32 + 1),
        noiob: u16_(buf, 46),
        nvmcap: le(buf, 48, 16),
        npwg: opt(64),
        npwa: opt(66),
        npdg: opt(68),
        npda: opt(70),
        nows: opt(72),
        endgid: u16_(buf, 102),
        nguid,
        eui64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(buf: &mut [u8], off: usize, bytes: &[u8]) {
        buf[off..off + bytes.len()].copy_from_slice(bytes);
    }

    fn qemu_like_controller() -> Vec<u8> {
        let mut b = vec![0u8; 4096];
        put(&mut b, 0, &0x1b36u16.to_le_bytes());
        put(&mut b, 4, b"fdpocp              ");
        put(&mut b, 24, format!("{:<40}", "QEMU NVMe Ctrl").as_bytes());
        put(&mut b, 64, b"10.0.2  ");
        b[77] = 7;
        put(&mut b, 80, &0x0001_0400u32.to_le_bytes());
        put(&mut b, 96, &0x88010u32.to_le_bytes());
        put(&mut b, 256, &0x012au16.to_le_bytes());
        b[261] = 0x0f;
        put(&mut b, 280, &(1u128 << 40).to_le_bytes());
        put(&mut b, 328, &0u32.to_le_bytes());
        put(&mut b, 340, &1u16.to_le_bytes());
        put(&mut b, 516, &256u32.to_le_bytes());
        put(&mut b, 520, &0x075du16.to_le_bytes());
        b[524] = 0;
        put(&mut b, 768, b"nqn.2019-08.org.qemu:subsys0");
        b
    }

    #[test]
    fn controller_fields_and_bits() {
        let c = decode_identify_controller(&qemu_like_controller()).unwrap();
        assert_eq!(c.vid, 0x1b36);
        assert_eq!(c.serial, "fdpocp");
        assert_eq!(c.model, "QEMU NVMe Ctrl");
        assert_eq!(c.firmware, "10.0.2");
        assert_eq!(c.version_string(), "1.4");
        assert_eq!(c.max_transfer_bytes(), Some(512 * 1024));
        assert!(c.supports_format());
        assert!(c.supports_directives());
        assert!(c.supports_fdp());
        assert!(c.supports_endurance_groups());
        assert!(c.supports_dsm());
        assert!(c.supports_write_zeroes());
        assert!(!c.supports_sanitize());
        assert!(!c.sanitize_block_erase());
        assert_eq!(c.tnvmcap, 1 << 40);
        assert_eq!(c.nn, 256);
        assert_eq!(c.endgidmax, 1);
        assert_eq!(c.subnqn, "nqn.2019-08.org.qemu:subsys0");
    }

    #[test]
    fn sanicap_and_oncs_bits() {
        let mut b = qemu_like_controller();
        put(&mut b, 328, &0b110u32.to_le_bytes());
        put(&mut b, 520, &0u16.to_le_bytes());
        put(&mut b, 96, &0u32.to_le_bytes());
        b[524] = 0b100;
        let c = decode_identify_controller(&b).unwrap();
        assert!(c.supports_sanitize());
        assert!(c.sanitize_block_erase() && c.sanitize_overwrite());
        assert!(!c.sanitize_crypto_erase());
        assert!(!c.supports_dsm() && !c.supports_write_zeroes() && !c.supports_fdp());
        assert!(c.format_crypto_erase());
        assert!(decode_identify_controller(&b[..4095]).is_err());
    }

    #[test]
    fn namespace_list_ends_at_the_first_zero() {
        let mut b = vec![0u8; 4096];
        for (i, id) in [1u32, 2, 7].iter().enumerate() {
            put(&mut b, i * 4, &id.to_le_bytes());
        }
        put(&mut b, 16, &9u32.to_le_bytes()); // after the terminator: not a namespace
        assert_eq!(decode_namespace_list(&b), [1, 2, 7]);
        assert!(decode_namespace_list(&[0u8; 4096]).is_empty());
        let full: Vec<u8> = (1..=1024u32).flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(decode_namespace_list(&full).len(), 1024);
    }

    #[test]
    fn format_scope_bit() {
        let mut b = qemu_like_controller();
        b[524] = 0;
        assert!(!decode_identify_controller(&b)
            .unwrap()
            .format_applies_to_all_namespaces());
        b[524] = 1;
        assert!(decode_identify_controller(&b)
            .unwrap()
            .format_applies_to_all_namespaces());
    }

    fn namespace() -> Vec<u8> {
        let mut b = vec![0u8; 4096];
        put(&mut b, 0, &2_097_152u64.to_le_bytes());
        put(&mut b, 8, &2_097_152u64.to_le_bytes());
        put(&mut b, 16, &1000u64.to_le_bytes());
        b[24] = (1 << 4) | (1 << 1); // OPTPERF, NSABP
        b[25] = 7; // 8 formats
        b[26] = 4; // format 4 in use
        b[33] = 0x09; // reads zeroes after deallocate, + bit 3
        put(&mut b, 36, &7u16.to_le_bytes()); // NAWUPF 8 blocks
        put(&mut b, 46, &256u16.to_le_bytes()); // NOIOB
        put(&mut b, 64, &7u16.to_le_bytes()); // NPWG 8
        put(&mut b, 66, &7u16.to_le_bytes()); // NPWA 8
        put(&mut b, 68, &255u16.to_le_bytes()); // NPDG 256
        put(&mut b, 70, &255u16.to_le_bytes()); // NPDA
        put(&mut b, 72, &31u16.to_le_bytes()); // NOWS 32
        put(&mut b, 102, &1u16.to_le_bytes());
        // LBA formats: 0 = 512+0, 1 = 512+8, 4 = 4096+0 (rp 0)
        let f = |ms: u32, lbads: u32, rp: u32| (ms | (lbads << 16) | (rp << 24)).to_le_bytes();
        put(&mut b, 128, &f(0, 9, 2));
        put(&mut b, 132, &f(8, 9, 2));
        put(&mut b, 144, &f(0, 12, 0));
        b
    }

    #[test]
    fn namespace_fields() {
        let n = decode_identify_namespace(&namespace()).unwrap();
        assert_eq!(n.lba_formats.len(), 8);
        assert_eq!(n.lbaf_index, 4);
        assert_eq!(n.block_size(), 4096);
        assert_eq!(n.capacity_bytes(), 2_097_152 * 4096);
        assert_eq!(n.nuse, 1000);
        assert_eq!(n.lba_formats[1].ms, 8);
        assert_eq!(n.lba_formats[0].rp, 2);
        assert_eq!(n.noiob, 256);
        assert_eq!(n.npwg, Some(8));
        assert_eq!(n.npwa, Some(8));
        assert_eq!(n.npdg, Some(256));
        assert_eq!(n.nows, Some(32));
        assert_eq!(n.nawupf, Some(8));
        assert_eq!(n.endgid, 1);
        assert!(n.deallocate_reads_zeroes());
    }

    #[test]
    fn namespace_without_optperf_has_no_preferred_sizes() {
        let mut b = namespace();
        b[24] = 0;
        b[26] = 0x21; // high bits: index 0x11 -> out of range, falls back to 512
        let n = decode_identify_namespace(&b).unwrap();
        assert_eq!(n.npwg, None);
        assert_eq!(n.nows, None);
        assert_eq!(n.nawupf, None);
        assert_eq!(n.lbaf_index, 0x11);
        assert_eq!(n.block_size(), 512);
    }
}
