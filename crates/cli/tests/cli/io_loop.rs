//! End-to-end tests of `ssdiq io` on loop devices (block devices without hardware): safety
//! refusals change zero bytes, `--allow-destroy` overrides, trim reads back as zeros,
//! device validation. They need root and losetup; otherwise each test says why and passes.

use std::process::Command;

use serde_json::Value;

use crate::common;
use common::loopdev::{backing, checksum, ext4_on_loop, is_root, serial, Loop};
use common::{json, ok, ssdiq};

#[test]
fn refuses_ext4_device_and_changes_zero_bytes() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let Some((img, lo)) = ext4_on_loop(dir.path(), 32 << 20) else {
        return;
    };
    let before = checksum(&img);
    let j = dir.path().join("r.json");
    for rw in ["randwrite", "trim", "write-zeroes", "randrw:50"] {
        let out = ssdiq(&[
            "io",
            &lo.dev,
            "--rw",
            rw,
            "--time",
            "1s",
            "--json",
            j.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{rw}: {err}");
        assert!(err.contains("ext2/3/4 filesystem"), "{rw}: {err}");
        assert!(err.contains("--allow-destroy"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    // --fill is a write too.
    let out = ssdiq(&["io", &lo.dev, "--rw", "randread", "--fill", "seq"]);
    assert_eq!(out.status.code(), Some(2));
    // Naming a different device does not count.
    let out = ssdiq(&[
        "io",
        &lo.dev,
        "--rw",
        "randwrite",
        "--allow-destroy",
        "/dev/null",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!j.exists());
    // Reads are fine on a device with data.
    let out = ssdiq(&["io", &lo.dev, "--rw", "randread", "--io-size", "1M"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(lo);
    assert_eq!(checksum(&img), before, "the refused jobs changed bytes");
}

#[test]
fn allow_destroy_naming_the_device_overwrites_it() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let Some((img, lo)) = ext4_on_loop(dir.path(), 16 << 20) else {
        return;
    };
    let before = checksum(&img);
    let j = dir.path().join("r.json");
    let out = ssdiq(&[
        "io",
        &lo.dev,
        "--rw",
        "write",
        "--bs",
        "64k",
        "--qd",
        "4",
        "--allow-destroy",
        &lo.dev,
        "--json",
        j.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(r["ops"]["write"]["bytes"], 16 << 20);
    drop(lo);
    assert_ne!(checksum(&img), before);
}

#[test]
#[ignore = "slow, about 5 s: .ci/extra/slow-tests.sh runs it"]
fn refuses_mounted_device_even_with_allow_destroy() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let Some((_img, mut lo)) = ext4_on_loop(dir.path(), 16 << 20) else {
        return;
    };
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    match Command::new("mount").arg(&lo.dev).arg(&mnt).output() {
        Ok(o) if o.status.success() => lo.mount = Some(mnt.clone()),
        _ => {
            eprintln!("skipped: cannot mount in this environment");
            return;
        }
    }
    let out = ssdiq(&["io", &lo.dev, "--rw", "randwrite", "--time", "1s"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is mounted at"), "{err}");
    // The override skips our checks, but the kernel's O_EXCL still refuses a mounted device.
    let out = ssdiq(&[
        "io",
        &lo.dev,
        "--rw",
        "randwrite",
        "--time",
        "1s",
        "--allow-destroy",
        &lo.dev,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("busy"), "{err}");
}

#[test]
fn trim_on_a_device_reads_back_as_zeros() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let img = backing(dir.path(), "blank.img", 8 << 20);
    let Some(lo) = Loop::attach(&img) else { return };
    let out = ssdiq(&[
        "io", &lo.dev, "--rw", "write", "--bs", "128k", "--data", "0x5a",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 0x5a data everywhere: the device is blank of signatures, so this needs no override.
    let out = ssdiq(&["io", &lo.dev, "--rw", "trim", "--bs", "1M", "--size", "4M"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = std::fs::read(&lo.dev).unwrap();
    assert_eq!(data.len(), 8 << 20);
    assert!(
        data[..4 << 20].iter().all(|&b| b == 0),
        "trimmed range reads zeros"
    );
    assert!(data[4 << 20..].iter().all(|&b| b == 0x5a));
}

/// Every engine and io_uring option writes the device in full with its data and reads it
/// back: what the device holds afterwards is the job's (`--data 0xNN`), every byte.
#[test]
fn every_engine_and_option_writes_and_reads_a_device() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let img = backing(dir.path(), "blank.img", 8 << 20);
    let Some(lo) = Loop::attach(&img) else { return };
    let j = dir.path().join("r.json");
    let js = j.to_str().unwrap();
    // Engine, options, how many options the result names.
    let cases: [(&str, &[&str], usize); 6] = [
        ("io_uring", &[], 0),
        ("io_uring", &["--fixedbufs", "--registerfiles"], 2),
        ("io_uring", &["--sqpoll", "--sqpoll-idle", "10ms"], 1),
        (
            "io_uring",
            &["--sqpoll", "--fixedbufs", "--registerfiles"],
            3,
        ),
        ("libaio", &[], 0),
        ("psync", &[], 0),
    ];
    for (i, (engine, opts, named)) in cases.iter().enumerate() {
        let byte = format!("0x{:02x}", 0x11 * (i + 1));
        let qd = if *engine == "psync" { "1" } else { "8" };
        for rw in ["randwrite", "randread"] {
            let mut args = vec![
                "io",
                &lo.dev,
                "--rw",
                rw,
                "--bs",
                "64k",
                "--qd",
                qd,
                "--engine",
                engine,
                "--data",
                &byte,
                "--pattern",
                "seq",
                "--json",
                js,
            ];
            args.extend_from_slice(opts);
            ok(&args);
            let r = json(&j);
            let op = if rw == "randwrite" { "write" } else { "read" };
            assert_eq!(r["ops"][op]["bytes"], 8 << 20, "{engine} {opts:?} {rw}");
            assert_eq!(r["job"]["engine"], *engine);
            let names = r["job"]["engine_options"].as_array().map_or(0, |a| a.len());
            assert_eq!(names, *named, "{}", r["job"]);
        }
        let data = std::fs::read(&lo.dev).unwrap();
        let want = u8::from_str_radix(&byte[2..], 16).unwrap();
        assert!(data.iter().all(|&b| b == want), "{engine} {opts:?}");
    }
}

/// A device without poll queues (a loop device) refuses `--hipri` in one line that says how
/// to get them, and nothing is written.
#[test]
fn hipri_without_poll_queues_is_refused_with_how_to_get_them() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let img = backing(dir.path(), "blank.img", 8 << 20);
    let Some(lo) = Loop::attach(&img) else { return };
    let before = checksum(&img);
    let out = ssdiq(&[
        "io",
        &lo.dev,
        "--rw",
        "randwrite",
        "--time",
        "1s",
        "--hipri",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no poll queues") && err.contains("poll_queues="),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    drop(lo);
    assert_eq!(checksum(&img), before);
}

/// `--verify` on a device: a clean write job reads back every block it wrote with no
/// mismatch; a block changed behind the engine's back (a raw write to the loop device's
/// backing file) is caught by a verifying read on every engine, named by its offset, exit 1.
#[test]
fn verify_catches_a_block_changed_behind_the_engines_back() {
    use std::os::unix::fs::FileExt;
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let img = backing(dir.path(), "blank.img", 8 << 20);
    let Some(lo) = Loop::attach(&img) else { return };
    let j = dir.path().join("r.json");
    let js = j.to_str().unwrap();
    ok(&[
        "io", &lo.dev, "--rw", "write", "--bs", "16k", "--qd", "8", "--verify", "--json", js,
    ]);
    let r = json(&j);
    assert_eq!(r["verify"]["checked"], 512, "{}", r["verify"]);
    assert_eq!(r["verify"]["read_back"], 512);
    assert_eq!(r["verify"]["mismatches"], 0);
    // One byte in the middle of block 77.
    let at = 77 * 16384 + 9000;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&img)
        .unwrap()
        .write_all_at(&[0xee], at)
        .unwrap();
    for engine in ["io_uring", "libaio", "psync"] {
        let qd = if engine == "psync" { "1" } else { "8" };
        let out = ssdiq(&[
            "io", &lo.dev, "--rw", "read", "--bs", "16k", "--qd", qd, "--engine", engine,
            "--verify", "--json", js,
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{engine}: {err}");
        assert!(
            err.contains("offset 1261568: checksum mismatch"),
            "{engine}: {err}"
        );
        let r = json(&j);
        assert_eq!(r["verify"]["checked"], 512, "{engine}");
        assert_eq!(r["verify"]["mismatches"], 1, "{engine}");
        assert_eq!(r["verify"]["first"][0]["offset"], 77 * 16384);
    }
}

#[test]
fn device_facts_are_validated() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let img = backing(dir.path(), "blank.img", 4 << 20);
    let Some(lo) = Loop::attach(&img) else { return };
    let out = ssdiq(&["io", &lo.dev, "--rw", "randread", "--size", "8M"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("beyond the end"), "{err}");
    let out = ssdiq(&[
        "io", &lo.dev, "--rw", "randread", "--bs", "256", "--size", "1M",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("logical block size"), "{err}");
    let out = ssdiq(&[
        "io",
        &lo.dev,
        "--rw",
        "randread",
        "--io-size",
        "1M",
        "--qd",
        "16",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A device-mapper device, removed on drop.
struct Dm(String);

impl Dm {
    fn create(name: &str, table: &str) -> Option<Dm> {
        if !is_root() {
            eprintln!("skipped: device-mapper tests need root");
            return None;
        }
        match Command::new("dmsetup")
            .args(["create", name, "--table", table])
            .output()
        {
            Ok(o) if o.status.success() => Some(Dm(name.to_string())),
            _ => {
                eprintln!("skipped: dmsetup create failed");
                None
            }
        }
    }

    fn path(&self) -> String {
        format!("/dev/mapper/{}", self.0)
    }
}

impl Drop for Dm {
    fn drop(&mut self) {
        let _ = Command::new("dmsetup").args(["remove", &self.0]).status();
    }
}

#[test]
fn io_errors_are_counted_with_first_offset_and_errno() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    // 4 MiB that read as zeros, then 4 MiB that fail with EIO.
    let name = format!("ssdiq-err-{}", std::process::id());
    let Some(dm) = Dm::create(&name, "0 8192 zero\n8192 8192 error") else {
        return;
    };
    let dev = dm.path();
    let j = dir.path().join("r.json");
    let js = j.to_str().unwrap();
    for engine in ["io_uring", "libaio", "psync"] {
        let out = ssdiq(&[
            "io", &dev, "--rw", "read", "--bs", "64k", "--engine", engine, "--json", js,
        ]);
        assert_eq!(out.status.code(), Some(1), "{engine}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("offset 4194304"), "{engine}: {err}");
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
        assert_eq!(r["errors"]["count"], 1, "{engine}: --on-error stop");
        assert_eq!(r["errors"]["first"]["offset"], 4 << 20);
        assert_eq!(r["errors"]["first"]["errno"], EIO);
        assert_eq!(r["partial"], true);
        assert_eq!(r["ops"]["read"]["bytes"], 4 << 20, "{engine}");
    }
    let out = ssdiq(&[
        "io",
        &dev,
        "--rw",
        "read",
        "--bs",
        "64k",
        "--qd",
        "4",
        "--on-error",
        "continue",
        "--json",
        js,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(
        r["errors"]["count"], 64,
        "every failing 64 KiB read counted"
    );
    assert_eq!(r["errors"]["first"]["offset"], 4 << 20);
    assert_eq!(r["partial"], false);
}

const EIO: i32 = 5;
