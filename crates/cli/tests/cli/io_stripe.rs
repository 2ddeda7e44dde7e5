//! `ssdiq io A,B --stripe CHUNK` (RAID0) on two loop devices: every engine deals the chunks
//! round-robin (what each device holds afterwards is checked sector by sector against the
//! logical address stamped in it), each device's share is reported, `--verify` holds across
//! the members and names a block changed on one of them by its offset in the whole, and bad
//! input is refused in one line with nothing written. Root and losetup are needed; otherwise
//! each test says why and passes.

use crate::common;
use common::loopdev::{backing, checksum, ext4_on_loop, serial, Loop};
use common::{json, ok, ssdiq};

const MIB: u64 = 1 << 20;
const CHUNK: u64 = 64 << 10;

/// The logical byte offset that member `member` of two holds at byte `at`.
fn logical(member: u64, at: u64) -> u64 {
    (at / CHUNK * 2 + member) * CHUNK + at % CHUNK
}

/// Two loop devices over 8 MiB files in `dir`: their backing files, the devices (detached
/// when dropped) and the target naming both; `None` where loop devices cannot be had.
fn two_loops(dir: &std::path::Path) -> Option<([std::path::PathBuf; 2], [Loop; 2], String)> {
    let imgs = [
        backing(dir, "a.img", 8 * MIB),
        backing(dir, "b.img", 8 * MIB),
    ];
    let a = Loop::attach(&imgs[0])?;
    let b = Loop::attach(&imgs[1])?;
    let both = format!("{},{}", a.dev, b.dev);
    Some((imgs, [a, b], both))
}

#[test]
fn every_engine_deals_the_chunks_round_robin_and_reports_each_device() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let Some((imgs, loops, both)) = two_loops(dir.path()) else {
        return;
    };
    let j = dir.path().join("r.json");
    let js = j.to_str().unwrap();
    for engine in ["io_uring", "libaio", "psync"] {
        let qd = if engine == "psync" { "1" } else { "8" };
        ok(&[
            "io",
            &both,
            "--stripe",
            "64k",
            "--rw",
            "randwrite",
            "--pattern",
            "seq",
            "--bs",
            "16k",
            "--qd",
            qd,
            "--engine",
            engine,
            "--data",
            "lba",
            "--json",
            js,
        ]);
        let r = json(&j);
        assert_eq!(r["ops"]["write"]["bytes"], 16 * MIB, "{engine}");
        assert_eq!(r["job"]["stripe_bytes"], CHUNK);
        let targets = r["targets"].as_array().unwrap();
        assert_eq!(targets.len(), 2);
        for (t, l) in targets.iter().zip(&loops) {
            assert_eq!(t["path"], l.dev.as_str());
            assert_eq!(t["ops"]["write"]["bytes"], 8 * MIB, "{engine}: {t}");
        }
        for (m, img) in imgs.iter().enumerate() {
            let data = std::fs::read(img).unwrap();
            for at in (0..8 * MIB).step_by(4096) {
                let lba =
                    u64::from_le_bytes(data[at as usize..at as usize + 8].try_into().unwrap());
                assert_eq!(
                    lba * 512,
                    logical(m as u64, at),
                    "{engine}: member {m} at {at}"
                );
            }
        }
    }
}

#[test]
fn verify_holds_across_the_members_and_names_a_changed_block_in_the_whole() {
    use std::os::unix::fs::FileExt;
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let Some((imgs, _loops, both)) = two_loops(dir.path()) else {
        return;
    };
    let j = dir.path().join("r.json");
    let js = j.to_str().unwrap();
    ok(&[
        "io", &both, "--stripe", "64k", "--rw", "write", "--bs", "16k", "--qd", "8", "--verify",
        "--json", js,
    ]);
    let r = json(&j);
    assert_eq!(r["verify"]["read_back"], 1024, "{}", r["verify"]);
    assert_eq!(r["verify"]["mismatches"], 0);
    // One byte of the second device's second chunk: the whole's fourth chunk.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&imgs[1])
        .unwrap()
        .write_all_at(&[0xee], CHUNK + 100)
        .unwrap();
    let out = ssdiq(&[
        "io", &both, "--stripe", "64k", "--rw", "read", "--bs", "16k", "--qd", "8", "--verify",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The offset in the whole, and the device and offset the block lies on.
    let second = both.split(',').nth(1).unwrap();
    assert!(
        err.contains(&format!(
            "offset {} (on {second} at offset {CHUNK}): checksum mismatch",
            logical(1, CHUNK)
        )),
        "{err}"
    );
}

#[test]
fn bad_stripes_are_refused_in_one_line_and_write_nothing() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let img = backing(dir.path(), "a.img", 8 * MIB);
    let Some(a) = Loop::attach(&img) else { return };
    let Some((ext4_img, e)) = ext4_on_loop(dir.path(), 16 * MIB) else {
        return;
    };
    let file = dir.path().join("f.img");
    std::fs::write(&file, vec![0u8; MIB as usize]).unwrap();
    let (before, ext4_before) = (checksum(&img), checksum(&ext4_img));
    let with_ext4 = format!("{},{}", a.dev, e.dev);
    let with_file = format!("{},{}", a.dev, file.display());
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![&with_ext4, "--stripe", "64k"],
            format!("holds an ext2/3/4 filesystem (magic 0xEF53 at byte 1080); pass --allow-destroy {with_ext4} (every device"),
        ),
        (
            vec![&with_file, "--stripe", "64k"],
            "not a block device".into(),
        ),
        (
            vec![&a.dev, "--stripe", "64k"],
            "expected two or more block devices".into(),
        ),
        (
            vec![&with_ext4, "--stripe", "6k", "--allow-destroy", &with_ext4],
            "invalid --stripe \"6144\": not a whole number of --bs blocks".into(),
        ),
        (
            vec![&with_ext4, "--stripe", "64k", "--allow-destroy", &a.dev],
            "name each device".into(),
        ),
        (
            vec![&with_ext4, "--stripe", "0"],
            "invalid --stripe \"0\"".into(),
        ),
        (
            vec!["emu:default", "--stripe", "64k"],
            "invalid --stripe for emu:default".into(),
        ),
        // Each member is asked for poll queues, by its own name (a new user got "cannot stat
        // it" for the comma-joined list).
        (
            vec![&with_ext4, "--stripe", "64k", "--hipri", "--allow-destroy", &with_ext4],
            format!("invalid --hipri for {}: {} has no poll queues", a.dev, a.dev),
        ),
        // A comma-separated TARGET without --stripe.
        (
            vec![&with_ext4],
            "a TARGET of paths separated by commas is a RAID0 of block devices, which takes --stripe CHUNK".into(),
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["io", "--rw", "randwrite", "--bs", "4k", "--time", "1s"];
        all.splice(1..1, args.iter().copied());
        let out = ssdiq(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&want), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    drop((a, e));
    assert_eq!(checksum(&img), before);
    assert_eq!(checksum(&ext4_img), ext4_before);
}
