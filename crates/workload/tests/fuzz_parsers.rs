//! Fuzzing the user-facing grammars with proptest: patterns, mixes, data patterns, sizes,
//! rates, durations and fractions. Inputs are arbitrary strings and near-misses built from
//! the grammar's own pieces. Properties: no panic; an error is one line naming the input;
//! what parses prints back to something that parses to the same value.
//!
//! Bounded for CI: 512 cases per property by default (about a second in all); set
//! PROPTEST_CASES to search longer.

use proptest::prelude::*;
use ssdiq_workload::units::{
    format_size, parse_duration_ns, parse_fraction, parse_rate, parse_size, Rate,
};
use ssdiq_workload::{DataPattern, Pattern, RwMix};

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

/// Near-misses: names, separators and numbers of the grammars, glued at random.
fn grammar_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("seq".to_string()),
        Just("uniform".to_string()),
        Just("randperm".to_string()),
        Just("zipf".to_string()),
        Just("twozone".to_string()),
        Just("zones".to_string()),
        Just("readonly".to_string()),
        Just("skipseq".to_string()),
        Just("window".to_string()),
        Just("zns".to_string()),
        Just(":".to_string()),
        Just("/".to_string()),
        Just(",".to_string()),
        Just("@".to_string()),
        Just("x".to_string()),
        Just("%".to_string()),
        Just("k".to_string()),
        Just("MiB".to_string()),
        Just("GB".to_string()),
        Just("/s".to_string()),
        Just("e".to_string()),
        Just("-".to_string()),
        Just(".".to_string()),
        Just(" ".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
        (0u32..200).prop_map(|v| v.to_string()),
        "[0-9]{1,30}",
    ];
    prop::collection::vec(piece, 1..8).prop_map(|v| v.concat())
}

fn any_input() -> impl Strategy<Value = String> {
    prop_oneof![grammar_soup(), any::<String>(), "\\PC{0,40}"]
}

#[track_caller]
fn one_line(e: &impl std::fmt::Display) {
    let s = e.to_string();
    assert!(!s.contains('\n'), "multi-line error: {s}");
    assert!(!s.is_empty());
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn patterns_parse_or_fail_in_one_line(input in any_input()) {
        match Pattern::parse(&input) {
            Ok(p) => {
                let shown = p.to_string();
                let again = Pattern::parse(&shown)
                    .unwrap_or_else(|e| panic!("{input:?} printed as {shown:?}, which fails: {e}"));
                prop_assert_eq!(again.to_string(), shown);
            }
            Err(e) => one_line(&e),
        }
    }

    #[test]
    fn mixes_and_data_patterns_never_panic(input in any_input()) {
        match RwMix::parse(&input) {
            Ok(m) => {
                let again = RwMix::parse(&m.to_string()).unwrap();
                prop_assert_eq!(again, m);
            }
            Err(e) => one_line(&e),
        }
        match DataPattern::parse(&input) {
            Ok(d) => {
                DataPattern::parse(&d.to_string()).unwrap();
            }
            Err(e) => one_line(&e),
        }
    }

    #[test]
    fn sizes_rates_durations_fractions_never_panic(input in any_input()) {
        if let Err(e) = parse_size(&input) {
            one_line(&e);
        }
        match parse_rate(&input) {
            Ok(Rate::IoPerSec(v)) | Ok(Rate::BytesPerSec(v)) => {
                prop_assert!(v.is_finite() && v > 0.0, "{input:?} gave rate {v}");
            }
            Err(e) => one_line(&e),
        }
        match parse_duration_ns(&input) {
            Ok(ns) => prop_assert!(ns >= 1),
            Err(e) => one_line(&e),
        }
        match parse_fraction(&input, "fill") {
            Ok(f) => prop_assert!((0.0..=1.0).contains(&f)),
            Err(e) => one_line(&e),
        }
    }

    #[test]
    fn sizes_print_back_exactly(bytes in any::<u64>()) {
        let bytes = bytes >> (bytes % 64);
        if (bytes as f64) < u64::MAX as f64 {
            let shown = format_size(bytes);
            prop_assert_eq!(parse_size(&shown).unwrap(), bytes, "{}", shown);
        }
    }
}
