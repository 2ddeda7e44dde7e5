//! Fuzzing result documents: `ssdiq report` on mutated copies of a real run.json (values
//! replaced by other types, huge or negative numbers, keys deleted, arrays emptied) must
//! render (exit 0) or refuse in one line (exit 2): never panic, never crash.
//!
//! Bounded for CI: 96 mutated documents by default (a few seconds of processes); set
//! PROPTEST_CASES to search longer.

use crate::common;

use std::path::Path;

use proptest::prelude::*;
use serde_json::{json, Value};

use common::{s, ssdiq};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(96),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn replacement() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        Just(Some(Value::Null)),
        Just(Some(json!(true))),
        Just(Some(json!(-1))),
        Just(Some(json!(0))),
        Just(Some(json!(1e308))),
        Just(Some(json!(u64::MAX))),
        Just(Some(json!(i64::MIN))),
        Just(Some(json!(""))),
        Just(Some(json!("x"))),
        Just(Some(json!([]))),
        Just(Some(json!({}))),
        any::<f64>().prop_map(|v| Some(json!(v))),
    ]
}

/// Walks `doc` by `steps` (each picks a child) and replaces (or, for None, removes) it.
fn mutate(doc: &mut Value, steps: &[prop::sample::Index], with: Option<Value>) {
    let mut cur = doc;
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        let next = match cur {
            Value::Object(m) if !m.is_empty() => {
                let k = m.keys().nth(step.index(m.len())).unwrap().clone();
                if last {
                    match &with {
                        None => {
                            m.remove(&k);
                        }
                        Some(v) => {
                            m.insert(k, v.clone());
                        }
                    }
                    return;
                }
                m.get_mut(&k).unwrap()
            }
            Value::Array(a) if !a.is_empty() => {
                let j = step.index(a.len());
                if last {
                    match &with {
                        None => {
                            a.remove(j);
                        }
                        Some(v) => a[j] = v.clone(),
                    }
                    return;
                }
                &mut a[j]
            }
            _ => return,
        };
        cur = next;
    }
}

fn sample() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/golden/sample-run.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_results_render_or_are_refused(
        edits in prop::collection::vec(
            (prop::collection::vec(any::<prop::sample::Index>(), 1..7), replacement()),
            1..4,
        )
    ) {
        let mut doc = sample();
        for (steps, with) in edits {
            mutate(&mut doc, &steps, with);
        }
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("r.json");
        std::fs::write(&f, serde_json::to_string(&doc).unwrap()).unwrap();
        let md = d.path().join("r.md");
        let html = d.path().join("r.html");
        let o = ssdiq(&["report", s(&f), "--markdown", s(&md), "--html", s(&html)]);
        let err = String::from_utf8_lossy(&o.stderr);
        match o.status.code() {
            Some(0) => prop_assert!(md.exists() && html.exists()),
            Some(2) => {
                prop_assert_eq!(err.trim_end().lines().count(), 1, "{}", err);
                prop_assert!(!md.exists() && !html.exists());
            }
            other => prop_assert!(false, "exit {:?}: {}", other, err),
        }
    }
}
