//! `ssdiq info` on things that are not NVMe drives: every case is a one-line usage error
//! (exit 2) and writes nothing. The real-drive path is tested in the QEMU guest
//! (.ci/extra/qemu-nvme.sh).

use crate::common;

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

#[test]
fn emulated_info_says_how_gc_is_timed() {
    let text = |target: &str| {
        let out = common::ok(&["info", target]);
        String::from_utf8(out.stdout).unwrap()
    };
    let default = text("emu:default");
    assert!(
        default.contains("idle-time GC after 10 ms idle at 200 MB/s"),
        "{default}"
    );
    assert!(default.contains("zipf             drawn over the full-size drive's pages"));
    assert!(
        default.contains(
            "static wear levelling once a superblock lags the mean by more than 18 erases"
        ),
        "{default}"
    );
    let unlevelled = text("emu:default,wear_level_gap=0");
    assert!(!unlevelled.contains("wear levelling"), "{unlevelled}");

    let shipped =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../emu/profiles/default.toml");
    let toml = std::fs::read_to_string(shipped).unwrap();
    let line = toml.lines().find(|l| l.starts_with("idle_mb_s")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let no_idle = dir.path().join("no-idle.toml");
    std::fs::write(&no_idle, toml.replace(line, "idle_mb_s = 0")).unwrap();
    let text = text(&format!("emu:{}", no_idle.display()));
    assert!(
        text.contains("GC paced against host writes; no idle-time GC"),
        "{text}"
    );
}
