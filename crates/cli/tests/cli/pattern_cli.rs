//! End-to-end tests of `ssdiq pattern`.

use crate::common;
use common::ssdiq;

#[test]
fn bad_input_is_one_line_exit_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("h.csv");
    let csv_s = csv.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["pattern", "zipf:-1", "--csv", csv_s],
            "invalid pattern \"zipf:-1\": THETA must be > 0",
        ),
        (
            &["pattern", "uniform", "--pages", "0", "--csv", csv_s],
            "invalid --pages \"0\": must be > 0",
        ),
        (
            &["pattern", "uniform", "--pages", "lots"],
            "invalid --pages \"lots\"",
        ),
        (
            &["pattern", "uniform", "--draws=-3x"],
            "invalid --draws \"-3x\"",
        ),
        (
            &["pattern", "twozone:80/10", "--pages", "3"],
            "holds no page",
        ),
        (
            &["pattern", "uniform", "--csv", "/nonexistent/dir/h.csv"],
            "directory \"/nonexistent/dir\" does not exist",
        ),
    ];
    for (args, msg) in cases {
        let out = ssdiq(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed a report");
    }
    assert!(!csv.exists(), "a file was written despite bad input");
}

#[test]
fn reports_coverage_and_writes_csv_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("counts.csv");
    let lba = dir.path().join("lba.csv");
    let json = dir.path().join("p.json");
    let out = ssdiq(&[
        "pattern",
        "uniform",
        "--pages",
        "10000",
        "--draws",
        "1x",
        "--seed",
        "3",
        "--csv",
        csv.to_str().unwrap(),
        "--lba-csv",
        lba.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // 1 - (1 - 1/n)^n = 63.2139% for n = 10^4
    assert!(text.contains("expected 63.214%"), "{text}");
    let counts = std::fs::read_to_string(&csv).unwrap();
    assert!(counts.starts_with("accesses_per_page,pages\n0,"));
    let pages: u64 = counts
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(pages, 10_000);
    let lba_rows = std::fs::read_to_string(&lba).unwrap().lines().count();
    assert_eq!(lba_rows, 101);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schema"], ssdiq_schema::SCHEMA);
    assert_eq!(doc["kind"], "pattern");
    assert_eq!(doc["report"]["draws"], 10_000);
    // Same seed, same report.
    let again = ssdiq(&[
        "pattern", "uniform", "--pages", "10000", "--draws", "1x", "--seed", "3",
    ]);
    assert_eq!(String::from_utf8(again.stdout).unwrap(), text);
}
