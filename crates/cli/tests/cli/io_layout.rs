//! `ssdiq io` on a new or sparse file with a job that reads: the holes are laid out (written)
//! first, as fio lays out its files, because reading a hole measures the kernel returning
//! zeros, not the storage. Data the file already holds is never written.

use std::os::unix::fs::MetadataExt;

use crate::common;
use common::{json, ok, s};

#[test]
fn holes_are_laid_out_before_reading_and_data_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("new.img");
    let j = dir.path().join("r.json");
    let read_file = |f: &std::path::Path, size: &str| {
        ok(&[
            "io",
            s(f),
            "--size",
            size,
            "--rw",
            "randread",
            "--qd",
            "8",
            "--time",
            "200ms",
            "--json",
            s(&j),
        ]);
        json(&j)
    };
    let read = |size: &str| read_file(&f, size);
    let r = read("16M");
    assert_eq!(r["fill"]["layout"], true, "{}", r["fill"]);
    assert_eq!(r["fill"]["bytes"], 16 << 20);
    let m = std::fs::metadata(&f).unwrap();
    assert!(
        m.blocks() * 512 >= 16 << 20,
        "allocated {}",
        m.blocks() * 512
    );
    // Laid out once: the next read job finds no holes.
    assert!(read("16M")["fill"].is_null());

    // A sparse file (data in its first half, a hole in the second; an existing file is never
    // grown without --recreate): only the hole is written, the data stays as it was.
    let g = dir.path().join("sparse.img");
    let data: Vec<u8> = (0..16u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&g, &data).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&g)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    let r = read_file(&g, "32M");
    assert_eq!(r["fill"]["bytes"], 16 << 20);
    let after = std::fs::read(&g).unwrap();
    assert_eq!(after.len(), 32 << 20);
    assert!(
        after[..16 << 20] == data[..],
        "data the file held was overwritten"
    );
    assert!(
        after[16 << 20..].iter().any(|&b| b != 0),
        "the hole was not written"
    );
}
