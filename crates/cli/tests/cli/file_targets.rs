//! File targets of `run` and `io` (issue 15): an existing file is never deleted, emptied or
//! grown without --recreate, a bad --size never costs the old file, no file is created
//! under /dev, and --allow-destroy mistakes are usage errors.

use crate::common;

use common::loopdev::{backing, is_root, serial, Loop};
use common::{ok, s, ssdiq, usage_error};

fn sample_file(dir: &std::path::Path, len: usize) -> (std::path::PathBuf, Vec<u8>) {
    let f = dir.join("data.img");
    let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&f, &bytes).unwrap();
    (f, bytes)
}

#[test]
fn run_never_destroys_an_existing_file_without_recreate() {
    let d = tempfile::tempdir().unwrap();
    let (f, bytes) = sample_file(d.path(), 16 << 20);
    let out = d.path().join("out");
    for args in [
        vec!["run", s(&f), "--quick"],
        vec!["run", s(&f), "--size", "32M", "--quick"],
        // Too large for any filesystem: refused before the file is touched.
        vec!["run", s(&f), "--size", "20T", "--quick", "--recreate"],
    ] {
        let mut a = args.clone();
        a.extend(["--out", s(&out)]);
        let o = ssdiq(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {err}");
        assert_eq!(std::fs::read(&f).unwrap(), bytes, "{a:?} changed the file");
        assert!(!out.exists());
    }
    usage_error(
        &["run", s(&f), "--size", "20T", "--quick", "--recreate"],
        "free",
    );
}

#[test]
fn io_never_grows_an_existing_file_without_recreate() {
    let d = tempfile::tempdir().unwrap();
    let (f, bytes) = sample_file(d.path(), 1 << 20);
    usage_error(
        &["io", s(&f), "--rw", "randread", "--size", "4M"],
        "not grown unless --recreate",
    );
    assert_eq!(std::fs::read(&f).unwrap(), bytes);
    // In place within its length: reads leave it as it was.
    ok(&[
        "io",
        s(&f),
        "--rw",
        "randread",
        "--size",
        "512k",
        "--buffered",
    ]);
    assert_eq!(std::fs::read(&f).unwrap(), bytes);
    // --recreate empties it and sizes it.
    ok(&[
        "io",
        s(&f),
        "--rw",
        "randread",
        "--size",
        "4M",
        "--recreate",
        "--buffered",
    ]);
    let now = std::fs::read(&f).unwrap();
    assert_eq!(now.len(), 4 << 20);
    // Emptied: the old content is gone (a read job then lays the new holes out with its own
    // data, as fio does, so the file is not all zeros).
    assert!(now[..bytes.len()] != bytes[..]);
    usage_error(
        &[
            "io",
            s(&f),
            "--rw",
            "randread",
            "--size",
            "20T",
            "--recreate",
        ],
        "free",
    );
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 4 << 20);
}

#[test]
fn a_mistyped_device_path_never_creates_a_file_under_dev() {
    let typo = "/dev/ssdiq-no-such-nvme0n1";
    usage_error(
        &["io", typo, "--rw", "write", "--size", "1M"],
        "never creates files under /dev",
    );
    usage_error(
        &["io", typo, "--rw", "write"],
        "never creates files under /dev",
    );
    usage_error(
        &["run", typo, "--size", "16M", "--quick"],
        "never creates files under /dev",
    );
    assert!(!std::path::Path::new(typo).exists());
}

#[test]
fn allow_destroy_mistakes_are_usage_errors() {
    usage_error(
        &["run", "--quick", "--allow-destroy", "X"],
        "is an emulated drive",
    );
    usage_error(
        &[
            "io",
            "emu:default",
            "--rw",
            "randwrite",
            "--allow-destroy",
            "X",
        ],
        "is an emulated drive",
    );
    let _serial = serial();
    let d = tempfile::tempdir().unwrap();
    let Some(lo) = Loop::attach(&backing(d.path(), "b.img", 16 << 20)) else {
        return;
    };
    let Some(other) = Loop::attach(&backing(d.path(), "c.img", 16 << 20)) else {
        return;
    };
    for cmd in [
        vec!["io", &lo.dev, "--rw", "write", "--size", "1M"],
        vec!["io", &lo.dev, "--rw", "read", "--size", "1M"],
        vec!["run", &lo.dev, "--quick"],
    ] {
        let mut a = cmd.clone();
        a.extend(["--allow-destroy", "/nonexistent"]);
        usage_error(&a, "/nonexistent");
        let mut a = cmd.clone();
        a.extend(["--allow-destroy", &other.dev]);
        usage_error(&a, "another device");
    }
    usage_error(
        &["io", &lo.dev, "--rw", "read", "--bs", "512M"],
        "larger than",
    );
}

#[test]
fn an_empty_block_device_is_described_as_such() {
    if !is_root() {
        eprintln!("skipped: needs root");
        return;
    }
    let _serial = serial();
    // A free loop device has no backing file: 0 bytes.
    let free = std::process::Command::new("losetup").arg("-f").output();
    let Ok(free) = free else {
        eprintln!("skipped: losetup not runnable");
        return;
    };
    let dev = String::from_utf8_lossy(&free.stdout).trim().to_string();
    if !std::path::Path::new(&dev).exists() {
        eprintln!("skipped: {dev} has no device node");
        return;
    }
    let o = ssdiq(&["io", &dev, "--bs", "512M"]);
    let err = String::from_utf8_lossy(&o.stderr);
    let name = dev.trim_start_matches("/dev/");
    if std::path::Path::new(&format!("/sys/block/{name}/loop/backing_file")).exists() {
        eprintln!("skipped: {dev} was attached by someone else meanwhile");
        return;
    }
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("has no capacity (0 bytes)"), "{err}");
}

#[test]
fn report_reads_with_a_size_limit() {
    usage_error(&["report", "/dev/zero"], "larger than");
    usage_error(&["run", "--quick", "--spec", "/dev/zero"], "larger than");
    usage_error(&["io", "emu:/dev/zero", "--rw", "read"], "larger than");
}
