//! Hardware tests: they need a real NVMe stack and write to the device, so they are ignored by
//! default. `.ci/extra/qemu-nvme.sh` runs them inside a throw-away QEMU guest with
//!   SSDIQ_NVME_DEV=/dev/nvme0n1   namespace on an OCP + FDP controller (QEMU `ocp=on`, `fdp=on`)
//!   SSDIQ_NVME_ZNS=/dev/nvmeXn1   zoned namespace on a second controller
//! and `--ignored --test-threads=1`. Never point them at a drive with data on it.

use std::path::PathBuf;

use ssdiq_nvme::reset::{self, ResetMethod};
use ssdiq_nvme::SanitizeAction;
use ssdiq_nvme::{write_counters, Device, DsmRange, NodeKind, NvmeError, Placement, SecureErase};

fn dev_path(var: &str) -> PathBuf {
    PathBuf::from(std::env::var(var).unwrap_or_else(|_| {
        panic!("{var} is not set: these tests run in the QEMU guest (.ci/extra/qemu-nvme.sh)")
    }))
}

fn open() -> Device {
    let p = dev_path("SSDIQ_NVME_DEV");
    Device::open(&p).unwrap_or_else(|e| panic!("open {}: {e}", p.display()))
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3] ^ seed | 1)
        .collect()
}

const MIB: usize = 1 << 20;

#[test]
#[ignore = "needs an NVMe device; runs in the QEMU guest"]
fn identify_and_mapping() {
    let d = open();
    assert_eq!(d.map().kind, NodeKind::NamespaceBlock);
    assert_eq!(d.nsid(), Some(1));
    let c = d.identify_controller().unwrap();
    println!(
        "controller {:?}: model {:?} serial {:?} fw {:?} oacs {:#x} oncs {:#x} ctratt {:#x} sanicap {:#x} mdts {}",
        d.map().controller, c.model, c.serial, c.firmware, c.oacs, c.oncs, c.ctratt, c.sanicap, c.mdts
    );
    assert_eq!(c.model, "QEMU NVMe Ctrl");
    assert_eq!(c.serial, "fdpocp");
    assert!(c.supports_format() && c.supports_dsm() && c.supports_fdp());
    let n = d.identify_namespace().unwrap();
    println!(
        "namespace: nsze {} block {} formats {} endgid {}",
        n.nsze,
        n.block_size(),
        n.lba_formats.len(),
        n.endgid
    );
    assert_eq!(n.capacity_bytes(), 1 << 30);
    // The generic char node reaches the same namespace.
    let ng = d.map().name.replacen("nvme", "ng", 1);
    let g = Device::open(&PathBuf::from(format!("/dev/{ng}"))).unwrap();
    assert_eq!(g.map().kind, NodeKind::NamespaceGeneric);
    assert_eq!(g.nsid(), Some(1));
    assert_eq!(g.identify_namespace().unwrap().nsze, n.nsze);
}

#[test]
#[ignore = "needs an NVMe device; runs in the QEMU guest"]
fn smart_and_ocp_grow_by_what_was_written() {
    let path = dev_path("SSDIQ_NVME_DEV");
    let d = open();
    let bs = d.block_size().unwrap() as usize;
    let before = write_counters(&path).unwrap();
    let ocp_before = d.ocp_smart_log().unwrap().expect("QEMU ocp=on has log C0h");
    let len = 8 * MIB;
    d.write((64 * MIB / bs) as u64, &pattern(len, 7), Placement::None)
        .unwrap();
    let after = write_counters(&path).unwrap();
    let host = after.host_bytes_written - before.host_bytes_written;
    let media = after.media_bytes_written.unwrap() - before.media_bytes_written.unwrap();
    println!(
        "wrote {len} bytes: SMART host bytes +{host}, OCP media bytes +{media}, WAF {:?}, before {before:?} after {after:?}",
        after.waf_since(&before)
    );
    // SMART counts in 512,000-byte units, rounded up: within one unit of the truth.
    assert!(
        host + 512_000 > len as u128 && host < len as u128 + 512_000,
        "SMART host bytes +{host} for {len} written"
    );
    assert_eq!(media, len as u128, "OCP physical media bytes written");
    let ocp_after = d.ocp_smart_log().unwrap().unwrap();
    assert_eq!(ocp_after.log_page_version, ocp_before.log_page_version);
    assert!(after.waf_since(&before).unwrap() > 0.9);
    // Reading moves the read counters, not the write ones.
    let mut buf = vec![0u8; MIB];
    d.read((64 * MIB / bs) as u64, &mut buf).unwrap();
    assert_eq!(buf, pattern(len, 7)[..MIB]);
    let again = write_counters(&path).unwrap();
    assert_eq!(again, after);
}

#[test]
#[ignore = "needs an NVMe device; runs in the QEMU guest"]
fn fdp_placement_moves_only_the_chosen_handle() {
    let d = open();
    let bs = d.block_size().unwrap() as usize;
    let g = d.endurance_group().unwrap();
    assert!(
        d.fdp_enabled(g).unwrap(),
        "FDP enabled in endurance group {g}"
    );
    let cfg = d.fdp_configs(g).unwrap();
    println!("FDP configs (endurance group {g}): {cfg:?}");
    assert_eq!(cfg.len(), 1);
    assert!(cfg[0].valid);
    assert_eq!(cfg[0].nruh, 8);
    assert_eq!(cfg[0].runs, 8 << 20);
    let usage = d.fdp_ruh_usage(g).unwrap();
    println!("RUH usage: {usage:?}");
    assert_eq!(usage.len(), 8);
    let stats0 = d.fdp_stats(g).unwrap();
    let before = d.ruh_status().unwrap();
    let len = 2 * MIB;
    d.write((256 * MIB / bs) as u64, &pattern(len, 3), Placement::Fdp(3))
        .unwrap();
    let after = d.ruh_status().unwrap();
    let stats1 = d.fdp_stats(g).unwrap();
    for (b, a) in before.iter().zip(&after) {
        println!(
            "  pid {} ruhid {}: ruamw {} -> {}",
            b.pid, b.ruhid, b.ruamw, a.ruamw
        );
        assert_eq!(a.pid, b.pid);
        if b.pid == 3 {
            assert_ne!(a.ruamw, b.ruamw, "the chosen handle's usage changed");
            if b.ruamw > (len / bs) as u64 {
                assert_eq!(b.ruamw - a.ruamw, (len / bs) as u64);
            }
        } else {
            assert_eq!(a.ruamw, b.ruamw, "handle {} untouched", b.pid);
        }
    }
    assert_eq!(after.len(), 8);
    let host = stats1.host_bytes_written - stats0.host_bytes_written;
    let media = stats1.media_bytes_written - stats0.media_bytes_written;
    println!("FDP stats: host bytes +{host}, media bytes +{media}, {stats1:?}");
    assert_eq!(host, len as u128);
    assert!(media >= len as u128);
}

#[test]
#[ignore = "needs an NVMe device; runs in the QEMU guest"]
fn deallocate_reads_back_zeroes() {
    let d = open();
    let bs = d.block_size().unwrap() as usize;
    let slba = (512 * MIB / bs) as u64;
    let data = pattern(MIB, 9);
    d.write(slba, &data, Placement::None).unwrap();
    let mut buf = vec![0u8; MIB];
    d.read(slba, &mut buf).unwrap();
    assert_eq!(buf, data);
    d.deallocate(&[DsmRange {
        slba,
        nlb: (MIB / bs) as u32,
    }])
    .unwrap();
    d.read(slba, &mut buf).unwrap();
    assert!(
        buf.iter().all(|&b| b == 0),
        "deallocated blocks read as zeroes"
    );
    println!("deallocate: 1 MiB at LBA {slba} reads back as zeroes");
}

#[test]
#[ignore = "needs an NVMe device; runs in the QEMU guest"]
fn format_erases_and_switches_block_size() {
    let d = open();
    let n = d.identify_namespace().unwrap();
    let orig = n.lbaf_index;
    let k4 = n
        .lba_formats
        .iter()
        .position(|f| f.block_size == 4096 && f.ms == 0)
        .expect("a 4 KiB LBA format") as u8;
    let data = pattern(64 * 1024, 5);
    d.write(8, &data, Placement::None).unwrap();
    d.format(orig, SecureErase::UserData).unwrap();
    let mut buf = vec![0u8; 64 * 1024];
    d.read(8, &mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0), "format with SES=1 erased data");
    d.format(k4, SecureErase::None).unwrap();
    assert_eq!(d.identify_namespace().unwrap().block_size(), 4096);
    assert_eq!(d.block_size().unwrap(), 4096);
    d.write(1, &data, Placement::None).unwrap();
    d.format(orig, SecureErase::None).unwrap();
    assert_eq!(d.block_size().unwrap(), 512);
    let bad = d.format(200, SecureErase::None).unwrap_err();
    assert!(matches!(bad, NvmeError::InvalidArgument(_)), "{bad}");
    if !d.identify_controller().unwrap().format_crypto_erase() {
        let e = d.format(orig, SecureErase::Crypto).unwrap_err();
        assert!(matches!(e, NvmeError::Unsupported(_)), "{e}");
    }
    println!("format: SES=1 erased; LBA format {orig} -> {k4} (4096) -> {orig} (512)");
}

#[test]
#[ignore = "needs an NVMe device; runs in the QEMU guest"]
fn erase_namespace_does_what_it_reports() {
    let d = open();
    let c = d.identify_controller().unwrap();
    let active = d.active_namespaces().unwrap();
    assert_eq!(active, [1], "one namespace on the FDP controller");
    let data = pattern(64 * 1024, 9);
    d.write(16, &data, Placement::None).unwrap();
    let method = d
        .erase_namespace(std::time::Duration::from_secs(60))
        .unwrap();
    println!(
        "erase: cmic {:#x} fna {:#x} active {active:?} sanicap {:#x} -> {method:?}",
        c.cmic, c.fna, c.sanicap
    );
    assert_eq!(method, reset::choose_reset(&c, &active, 1));
    let mut buf = vec![0u8; data.len()];
    d.read(16, &mut buf).unwrap();
    match method {
        ResetMethod::DeallocateOnly(why) => {
            // Nothing was sent: the data is still there, and the reason names the risk.
            assert_eq!(buf, data);
            assert!(why.contains("other"), "{why}");
        }
        ResetMethod::Format => assert!(buf.iter().all(|&b| b == 0), "format erased"),
        ResetMethod::SanitizeBlockErase => panic!("QEMU has no sanitize"),
    }
}

#[test]
#[ignore = "needs an NVMe device; runs in the QEMU guest"]
fn sanitize_is_reported_unsupported() {
    let d = open();
    let c = d.identify_controller().unwrap();
    assert!(!c.supports_sanitize(), "QEMU reports SANICAP = 0");
    let e = d.sanitize_block_erase().unwrap_err();
    println!("sanitize: {e}");
    assert!(matches!(e, NvmeError::Unsupported(_)), "{e}");
    // Sent anyway, the controller rejects the opcode.
    let e = d.sanitize_raw(SanitizeAction::BlockErase).unwrap_err();
    println!("raw sanitize: {e}");
    assert!(e.status().is_some(), "{e}");
}

#[test]
#[ignore = "needs an NVMe device; runs in the QEMU guest"]
fn zoned_namespace_on_a_plain_controller() {
    let p = dev_path("SSDIQ_NVME_ZNS");
    let d = Device::open(&p).unwrap();
    assert_eq!(d.block_size().unwrap(), 4096);
    assert!(d.ocp_smart_log().unwrap().is_none(), "no ocp=on here");
    let wc = d.write_counters().unwrap();
    assert_eq!(wc.media_bytes_written, None);
    let r = ssdiq_nvme::info::from_device(&p.display().to_string(), &p).unwrap();
    println!(
        "zoned namespace {}: zoned {:?}, serial {:?}, fdp {:?}",
        p.display(),
        r.zoned,
        r.serial,
        r.fdp.as_ref().map(|f| f.supported)
    );
    assert_eq!(r.zoned.as_deref(), Some("host-managed"));
    assert_eq!(r.serial.as_deref(), Some("zns"));
    assert!(r.ocp.is_none());
    // Zone 0 is empty after boot: a sequential write at its start is accepted.
    d.write(0, &pattern(64 * 1024, 1), Placement::None).unwrap();
    let after = d.write_counters().unwrap();
    assert!(after.host_bytes_written > wc.host_bytes_written);
}
