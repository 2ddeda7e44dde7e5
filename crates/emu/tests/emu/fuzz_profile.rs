//! Fuzzing emulator profiles (TOML text and `key=value` overrides) and GC policy names with
//! proptest. Properties: no panic; errors are one line; a profile that parses has a memory
//! estimate, and a drive that fits in a modest budget builds (or is refused) without a panic.
//!
//! Bounded for CI: 256 cases per property by default; set PROPTEST_CASES to search longer.

use proptest::prelude::*;
use ssdiq_emu::memory::drive_bytes;
use ssdiq_emu::{builtin, Drive, Profile, BUILTIN};
use ssdiq_flash::GcPolicy;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

const KEYS: [&str; 24] = [
    "capacity",
    "op",
    "policy",
    "gc_frontier",
    "seed",
    "channels",
    "dies_per_channel",
    "planes",
    "page_kib",
    "bits_per_cell",
    "units_per_block",
    "read_us",
    "program_us",
    "erase_us",
    "channel_mb_s",
    "suspend",
    "suspend_us",
    "max_suspends",
    "link_mb_s",
    "buffer_kib",
    "low_watermark",
    "critical_watermark",
    "rand_write_kiops",
    "nand.nosuch",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..5000).prop_map(|v| v.to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
        (-5.0f64..5.0).prop_map(|v| v.to_string()),
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("1e308".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("on".to_string()),
        Just("off".to_string()),
        Just("true".to_string()),
        Just("64MiB".to_string()),
        Just("1GiB".to_string()),
        Just("16TiB".to_string()),
        Just("dchoices:99999999".to_string()),
        Just("2r-fifo".to_string()),
        Just("\"".to_string()),
        "\\PC{0,12}",
    ]
}

fn overrides() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec(
        (
            prop_oneof![
                prop::sample::select(KEYS.to_vec()).prop_map(String::from),
                "\\PC{0,8}"
            ],
            value(),
        ),
        0..5,
    )
}

/// A built-in profile with lines dropped or a value replaced.
fn mutated_text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>()),
        prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, value()), 0..4),
    )
        .prop_map(|(name, edits)| {
            let mut lines: Vec<String> = builtin(name).unwrap().lines().map(String::from).collect();
            for (at, kind, v) in edits {
                if lines.is_empty() {
                    break;
                }
                let i = at.index(lines.len());
                match kind {
                    0 => {
                        lines.remove(i);
                    }
                    1 => {
                        if let Some((k, _)) = lines[i].clone().split_once('=') {
                            lines[i] = format!("{k}= {v}");
                        }
                    }
                    _ => lines.insert(i, v),
                }
            }
            lines.join("\n")
        })
}

fn check(text: &str, ov: &[(String, String)]) {
    let ov: Vec<(&str, &str)> = ov.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    match Profile::parse(text, &ov) {
        Err(e) => assert!(!e.to_string().contains('\n'), "multi-line: {e}"),
        Ok(p) => match drive_bytes(&p) {
            Err(e) => assert!(!e.to_string().contains('\n')),
            Ok(m) if m.total() < 64 << 20 => {
                if let Err(e) = Drive::new(&p) {
                    assert!(!e.to_string().contains('\n'), "multi-line: {e}");
                }
            }
            Ok(_) => {}
        },
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn overrides_never_panic(ov in overrides()) {
        // Small drives, so that most cases get as far as building one.
        let mut all = vec![("capacity".to_string(), "64MiB".to_string())];
        all.extend(ov);
        check(builtin("default").unwrap(), &all);
    }

    #[test]
    fn mutated_profiles_never_panic(text in mutated_text(), ov in overrides()) {
        let mut all = vec![("capacity".to_string(), "128MiB".to_string())];
        all.extend(ov);
        check(&text, &all);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        check(&text, &[]);
    }

    #[test]
    fn policy_names_round_trip(s in prop_oneof![
        "\\PC{0,16}",
        (0u64..u64::MAX).prop_map(|d| format!("dchoices:{d}")),
        Just("2R-Greedy ".to_string()),
    ]) {
        if let Ok(p) = s.parse::<GcPolicy>() {
            prop_assert_eq!(p.to_string().parse::<GcPolicy>().unwrap(), p);
        }
    }
}
