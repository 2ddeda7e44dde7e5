//! Helpers shared by the CLI test binaries: running the binary, success and one-line usage
//! errors, reading result documents, and the golden JSON key structure.

#![allow(dead_code)]

pub mod loopdev;
pub mod tmpfs;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// The binary under test: this build, or `SSDIQ_TEST_BIN` (to show a test failing against
/// an older build).
pub fn bin() -> std::path::PathBuf {
    std::env::var_os("SSDIQ_TEST_BIN")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_ssdiq").into())
}

pub fn ssdiq(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("run ssdiq")
}

/// Runs ssdiq with extra environment, killing it (and failing) if it runs past `secs`:
/// for inputs that used to run for ever.
#[track_caller]
pub fn ssdiq_within(args: &[&str], env: &[(&str, &str)], secs: u64) -> Output {
    use std::process::Stdio;
    let mut child = Command::new(bin())
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ssdiq");
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed().as_secs() >= secs {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ssdiq {args:?} still running after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Exit 2 within `secs`, one line on stderr containing every one of `needles`, nothing on
/// stdout.
#[track_caller]
pub fn refused_within(args: &[&str], env: &[(&str, &str)], secs: u64, needles: &[&str]) {
    let out = ssdiq_within(args, env, secs);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: wanted \"{n}\" in: {err}");
    }
    assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
}

/// Runs ssdiq and asserts it succeeded, showing its stderr if not.
#[track_caller]
pub fn ok(args: &[&str]) -> Output {
    let out = ssdiq(args);
    assert!(
        out.status.success(),
        "ssdiq {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A JSON document written by ssdiq.
pub fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Exit 2 with one line on stderr containing `needle`.
pub fn usage_error(args: &[&str], needle: &str) {
    let out = ssdiq(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(out.stdout.is_empty());
}

/// The key structure of a JSON value: objects keep their keys (values replaced by their
/// structure), arrays keep the structure of their first element, scalars become their type.
pub fn shape(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(a) => Value::Array(a.first().map(shape).into_iter().collect()),
        Value::Null => Value::String("null".into()),
        Value::Bool(_) => Value::String("bool".into()),
        Value::Number(_) => Value::String("number".into()),
        Value::String(_) => Value::String("string".into()),
    }
}

/// Compares `v`'s key structure with `tests/golden/NAME` (rewritten under UPDATE_GOLDEN=1).
pub fn assert_golden_shape(v: &Value, name: &str) {
    let got = shape(v);
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let want: Value = serde_json::from_str(&std::fs::read_to_string(&golden).unwrap()).unwrap();
    assert_eq!(
        got,
        want,
        "JSON keys changed; if intended, rerun with UPDATE_GOLDEN=1 and review the diff:\n{}",
        serde_json::to_string_pretty(&got).unwrap()
    );
}

/// A sweep of two points on a small simulated drive (shards, Slurm scripts).
pub const TWO_POINT_SIM: &[&str] = &[
    "sim",
    "--pattern",
    "uniform",
    "--gc",
    "greedy,fifo",
    "--capacity",
    "64MiB",
];
