//! `ssdiq info` on things that are not NVMe drives: every case is a one-line usage error
//! (exit 2) and writes nothing. The real-drive path is tested in the QEMU guest
//! (.ci/extra/qemu-nvme.sh).

mod common;

use common::usage_error;

#[test]
fn bad_emulated_targets_are_usage_errors() {
    usage_error(&["info", "emu:nope"], "unknown emu profile");
    usage_error(&["info", "emu:default,op=x"], "invalid emu value op=x");
}

#[test]
fn missing_and_non_nvme_targets() {
    usage_error(&["info", "/nonexistent/nvme9n9"], "no such device");
    usage_error(&["info", "/proc/self/status"], "is not an NVMe device");
    usage_error(&["info", "/dev/null"], "is not an NVMe device");
}

#[test]
fn json_into_a_missing_directory_is_refused_first() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("no/such/dir/info.json");
    usage_error(
        &["info", "/dev/null", "--json", bad.to_str().unwrap()],
        "does not exist",
    );
    assert!(!bad.exists());
}
