//! End-to-end tests of `ssdiq run`: a quick run's result document (every Table 2/3 field),
//! bad input (exit 2, nothing written), and Ctrl-C (partial results, exit 130).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

mod common;
use common::loopdev::{checksum, ext4_on_loop, serial};
use common::{assert_golden_shape, json, s, ssdiq};

#[track_caller]
fn num(v: &Value) -> f64 {
    match v.as_f64() {
        Some(x) => x,
        None => panic!("not a number: {v}"),
    }
}

/// Every step's throughput, the derived metrics and the files beside the JSON.
fn check_complete(out: &Path) -> Value {
    let r = json(&out.join("run.json"));
    assert_eq!(r["schema"], "ssdiq/1");
    assert_eq!(r["kind"], "run");
    assert_eq!(r["partial"], false);
    let names: Vec<&str> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "seq_read",
            "rand_read",
            "seq_write",
            "rand_write_uniform",
            "rand_write_twozone",
            "rand_write_zipf",
            "latency_under_load"
        ]
    );
    for st in r["steps"].as_array().unwrap() {
        let op = st["ops"].as_object().unwrap().values().next().unwrap();
        assert!(num(&op["mb_s"]) > 0.0, "{}", st["name"]);
        assert!(!st["series"].as_array().unwrap().is_empty());
        assert!(!st["seconds"].as_array().unwrap().is_empty());
        if st["name"].as_str().unwrap().starts_with("rand_write") {
            assert!(num(&st["waf_implied"]) > 0.0);
            let c = &st["convergence"];
            assert!(c["rounds"].as_u64().unwrap() >= 1);
            assert!(num(&c["drive_writes"]) > 0.0);
        }
    }
    let lat = &r["steps"][6];
    for p in ["read", "write"] {
        let probe = &lat["probes"][p];
        assert!(probe["ios"].as_u64().unwrap() > 0, "probe {p}");
        assert!(num(&probe["lat_ns"]["mean"]) > 0.0);
        assert!(probe["lat_ns"]["p99.9"].as_u64().unwrap() > 0);
    }
    assert!(num(&lat["rate_mb_s"]) > 0.0);
    assert!(r["derived"]["load_basis"].as_str().unwrap().contains("25%"));
    assert!(num(&r["derived"]["op_estimate_formula"]) > 0.0);
    assert!(num(&r["derived"]["op_estimate_greedy"]) > 0.0);
    let csv = std::fs::read_to_string(out.join("series.csv")).unwrap();
    assert!(csv.starts_with("step,t_s,stream,"));
    assert!(csv.contains("\nlatency_under_load,") && csv.contains(",probe_write,"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for row in [
        "| Seq. Read [MB/s] |",
        "| WA (implied) |",
        "| Estimated OP [%] |",
    ] {
        assert!(md.contains(row), "{row}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<svg"));
    r
}

#[test]
fn quick_run_on_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.img");
    let out = dir.path().join("out");
    let o = ssdiq(&["run", s(&f), "--size", "32M", "--quick", "--out", s(&out)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("Table 2") && stdout.contains("Table 3"));
    let r = check_complete(&out);
    assert_eq!(r["clock"], "wall");
    assert_eq!(r["target"]["emulated"], false);
    assert!(r["derived"]["load_basis"]
        .as_str()
        .unwrap()
        .contains("measured"));
    // A spec given by flag sets the load; the file exists now, so it is recreated only when
    // asked to.
    let out2 = dir.path().join("out2");
    let o = ssdiq(&["run", s(&f), "--quick", "--out", s(&out2)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--recreate"));
    assert!(!out2.exists());
    let o = ssdiq(&[
        "run",
        s(&f),
        "--recreate",
        "--size",
        "32M",
        "--quick",
        "--quiet",
        "--spec-rand-write",
        "2",
        "--out",
        s(&out2),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), s(&out2));
    let r = json(&out2.join("run.json"));
    assert_eq!(r["spec"]["rand_write_kiops"], 2.0);
    let rate = num(&r["steps"][6]["rate_mb_s"]);
    assert!((rate - 0.25 * 2e3 * 4096.0 / 1e6).abs() < 1e-9, "{rate}");
}

#[test]
fn bad_input_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.img");
    let out = dir.path().join("out");
    let spec = dir.path().join("bad.toml");
    std::fs::write(&spec, "rand_write_kiops = -1\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", s(&f)], "give --size"),
        (vec!["run", s(&f), "--size", "12Q"], "12Q"),
        (vec!["run", s(&f), "--size", "1M"], "at least 8 MiB"),
        (
            vec!["run", s(&f), "--size", "32M", "--spec-seq-read", "fast"],
            "--spec-seq-read \"fast\"",
        ),
        (
            vec!["run", s(&f), "--size", "32M", "--spec", s(&spec)],
            "rand_write_kiops must be a positive number",
        ),
        (
            vec!["run", s(&f), "--size", "32M", "--threads", "0"],
            "--threads \"0\"",
        ),
        (
            vec!["run", s(&f), "--size", "32M", "--allow-destroy", s(&f)],
            "not a block device",
        ),
        (vec!["run", "emu:nosuchprofile"], "nosuchprofile"),
    ];
    for (mut args, want) in cases {
        args.extend(["--out", s(&out)]);
        let o = ssdiq(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} created the output directory");
        assert!(!f.exists(), "{args:?} created the target");
    }
}

#[test]
fn sigint_saves_partial_results() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.img");
    let out = dir.path().join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_ssdiq"))
        .args(["run", s(&f), "--size", "32M", "--out", s(&out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Into the steps (reset and preconditioning of 32 MiB take well under a second).
    std::thread::sleep(Duration::from_millis(2500));
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = json(&out.join("run.json"));
    assert_eq!(r["partial"], true);
    let steps = r["steps"].as_array().unwrap();
    assert!(!steps.is_empty() && steps.len() < 7, "{}", steps.len());
    assert!(out.join("report.md").exists() && out.join("series.csv").exists());
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("partial"));
}

/// Runs `ssdiq run TARGET --quick` into a fresh directory and returns the result.
fn quick_emu(target: &str, dir: &Path) -> Value {
    let out = dir.join(target.replace([':', ',', '='], "_"));
    let o = ssdiq(&["run", target, "--quick", "--out", s(&out)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_complete(&out)
}

fn uniform(r: &Value) -> &Value {
    &r["steps"][3]
}

#[test]
fn quick_run_on_the_emulated_ssd() {
    let dir = tempfile::tempdir().unwrap();
    let r = quick_emu("emu:default", dir.path());
    // The result document's key structure (a run on the emulated SSD fills every field).
    assert_golden_shape(&r, "run_keys.json");
    assert_eq!(r["clock"], "virtual");
    assert_eq!(r["target"]["emulated"], true);
    assert_eq!(r["target"]["reports_media_writes"], true);
    // The load comes from the profile's datasheet when it states random writes.
    let basis = r["derived"]["load_basis"].as_str().unwrap();
    if r["spec"]["rand_write_kiops"].is_number() {
        assert!(basis.contains("spec"), "{basis}");
    } else {
        assert!(basis.contains("measured"), "{basis}");
    }
    let u = uniform(&r);
    let measured = num(&u["waf_measured"]);
    let implied = num(&u["waf_implied"]);
    assert!(measured > 1.0, "uniform WAF {measured}");
    assert!(
        (implied / measured - 1.0).abs() < 0.15,
        "implied {implied} vs measured {measured}"
    );
    for step in &r["steps"].as_array().unwrap()[3..6] {
        let m = num(&step["waf_measured"]);
        assert!((1.0..20.0).contains(&m), "{}: {m}", step["name"]);
    }
    let true_op = ssdiq_engine::emu::EmuExecutor::open("emu:default")
        .unwrap()
        .op();
    for k in ["op_estimate_formula", "op_estimate_greedy"] {
        let est = num(&r["derived"][k]);
        assert!(
            est > true_op / 2.0 && est < true_op * 2.0,
            "{k} {est} vs true OP {true_op}"
        );
    }
}

#[test]
fn more_op_means_less_waf_and_a_higher_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let low = quick_emu("emu:default", dir.path());
    let high = quick_emu("emu:default,op=0.28", dir.path());
    let (wl, wh) = (
        num(&uniform(&low)["waf_measured"]),
        num(&uniform(&high)["waf_measured"]),
    );
    assert!(wh < wl, "WAF with more OP {wh} vs {wl}");
    let est = |r: &Value| num(&r["derived"]["op_estimate_greedy"]);
    assert!(est(&high) > est(&low), "{} vs {}", est(&high), est(&low));
}

#[test]
fn quick_run_on_a_loop_device_refuses_a_filesystem_until_named() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let Some((img, lo)) = ext4_on_loop(dir.path(), 32 << 20) else {
        return;
    };
    let before = checksum(&img);
    let out = dir.path().join("out");
    let o = ssdiq(&["run", &lo.dev, "--quick", "--out", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("ext2/3/4 filesystem"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!out.exists(), "nothing written");
    assert_eq!(checksum(&img), before, "the refused run changed bytes");
    // A block device is used whole.
    let o = ssdiq(&["run", &lo.dev, "--size", "16M", "--allow-destroy", &lo.dev]);
    assert_eq!(o.status.code(), Some(2));

    let o = ssdiq(&[
        "run",
        &lo.dev,
        "--quick",
        "--quiet",
        "--allow-destroy",
        &lo.dev,
        "--out",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = check_complete(&out);
    assert_eq!(r["target"]["name"], lo.dev.as_str());
    assert_eq!(r["target"]["capacity_bytes"], 32 << 20);
    assert_eq!(r["target"]["reports_media_writes"], false);
    // A loop device is not NVMe: the reset discards every LBA.
    assert_eq!(r["run"]["reset"], "BLKDISCARD");
    assert_eq!(r["run"]["precondition_bytes"], 32 << 20);
    drop(lo);
    assert_ne!(checksum(&img), before);
}
