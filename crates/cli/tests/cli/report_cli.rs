//! End-to-end tests of `ssdiq report`: comparisons, `--against ssd-iq`, run directories as
//! input, bad input.

use crate::common;
use common::{ok, s, usage_error};

fn sample() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/golden/sample-run.json")
}

#[test]
fn compares_drives_from_files_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("b");
    std::fs::create_dir(&run_dir).unwrap();
    let mut b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sample()).unwrap()).unwrap();
    b["target"]["model"] = "slow drive".into();
    b["steps"][6]["probes"]["write"]["lat_ns"]["p99.9"] = 1_700_000.into();
    std::fs::write(run_dir.join("run.json"), b.to_string()).unwrap();
    let (html, md) = (dir.path().join("c.html"), dir.path().join("c.md"));
    let out = ok(&[
        "report",
        s(&sample()),
        s(&run_dir),
        "--html",
        s(&html),
        "--markdown",
        s(&md),
        "--color",
        "never",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("slow drive") && stdout.contains("×100"),
        "{stdout}"
    );
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("| 1700 🔴 (×100) |"), "{md}");
    let html = std::fs::read_to_string(html).unwrap();
    assert!(html.contains("SSD-iq comparison: PM9A3-like, slow drive"));
    assert!(html.contains("Drives compared") && html.matches("<svg").count() >= 10);
}

#[test]
fn against_the_paper_puts_its_nine_drives_beside() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("p.html");
    let out = ok(&[
        "report",
        s(&sample()),
        "--against",
        "ssd-iq",
        "--html",
        s(&html),
        "--color",
        "never",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Micron 7450 PRO*") && stdout.contains("10790"));
    assert!(stdout.contains("Published figures (marked *): SSD-iq paper"));
    let html = std::fs::read_to_string(html).unwrap();
    assert!(html.contains("against the SSD-iq paper") && html.contains("Kioxia CM7-R"));
    // The paper alone is a table too.
    let out = ok(&["report", "--against", "ssd-iq", "--color", "never"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("AWS EC2 i4i.4xlarge*"));
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("x.html");
    usage_error(
        &[
            "report",
            s(&sample()),
            "--against",
            "fio",
            "--html",
            s(&html),
        ],
        "invalid --against \"fio\": expected one of ssd-iq",
    );
    usage_error(
        &["report", s(dir.path()), "--html", s(&html)],
        "cannot read result",
    );
    assert!(!html.exists());
    let out = common::ssdiq(&["report"]);
    assert_eq!(out.status.code(), Some(2));
}
