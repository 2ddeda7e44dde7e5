//! Fuzzing datasheet specs (`--spec FILE.toml`) with proptest: arbitrary text and near-miss
//! TOML never panics, errors are one line, and what parses holds only plausible values.
//!
//! Bounded for CI: 512 cases per property by default; set PROPTEST_CASES to search longer.

use proptest::prelude::*;
use ssdiq_suite::spec::{parse_spec, PLAUSIBLE};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(512),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

const FIELDS: [&str; 9] = [
    "name",
    "capacity_gb",
    "seq_read_mb_s",
    "seq_write_mb_s",
    "rand_read_kiops",
    "rand_write_kiops",
    "read_lat_us",
    "write_lat_us",
    "rnd_write",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<f64>().prop_map(|v| format!("{v:?}")),
        any::<i64>().prop_map(|v| v.to_string()),
        Just("1e-300".to_string()),
        Just("1e300".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("-inf".to_string()),
        Just("\"x\"".to_string()),
        Just("[1, 2]".to_string()),
        Just("{}".to_string()),
        "\\PC{0,10}",
    ]
}

fn near_miss() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(FIELDS.to_vec()), value()), 0..10).prop_map(|kv| {
        kv.iter()
            .map(|(k, v)| format!("{k} = {v}\n"))
            .collect::<String>()
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn specs_parse_plausibly_or_fail_in_one_line(text in prop_oneof![near_miss(), "\\PC{0,120}"]) {
        match parse_spec(&text, "s.toml") {
            Err(e) => {
                let e = e.to_string();
                prop_assert!(!e.contains('\n'), "multi-line: {}", e);
                prop_assert!(e.starts_with("invalid spec \"s.toml\": "), "{}", e);
            }
            Ok(s) => {
                for v in [
                    s.capacity_gb, s.seq_read_mb_s, s.seq_write_mb_s, s.rand_read_kiops,
                    s.rand_write_kiops, s.read_lat_us, s.write_lat_us,
                ].into_iter().flatten() {
                    prop_assert!((PLAUSIBLE.0..=PLAUSIBLE.1).contains(&v), "{}", v);
                }
            }
        }
    }
}
