//! End-to-end tests of `ssdiq sim`.

use crate::common;
use common::ssdiq;

const SMALL: [&str; 8] = [
    "sim",
    "--capacity",
    "64MiB",
    "--block",
    "128KiB",
    "--writes",
    "1x",
    "--quiet",
];

#[test]
fn bad_input_is_one_line_exit_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let js = json.to_str().unwrap();
    let cases: [(&[&str], &str); 15] = [
        (
            &["sim", "--fill", "1.2", "--json", js],
            "fill 1.2 must be > 0 and < 1",
        ),
        (
            &["sim", "--block", "6000", "--json", js],
            "not a multiple of the page size",
        ),
        (
            &["sim", "--capacity", "16388KiB", "--block", "8MiB"],
            "not a multiple of the block size",
        ),
        (
            &["sim", "--capacity", "32MiB", "--block", "8MiB"],
            "too little spare space",
        ),
        (
            &["sim", "--gc-mode", "naive,lazy"],
            "invalid GC mode \"lazy\": expected naive or batched",
        ),
        (&["sim", "--warmup=-1"], "invalid --warmup \"-1\""),
        (
            &["sim", "--gc", "greedy,lifo"],
            "invalid GC policy \"lifo\"",
        ),
        (
            &["sim", "--pattern", "zipf:-1"],
            "invalid pattern \"zipf:-1\"",
        ),
        (&["sim", "--writes", "0x"], "invalid --writes \"0x\""),
        (&["sim", "--gc", "optimal"], "renamed separated-model"),
        (
            &["sim", "--gc-frontier-share", "-0.1"],
            "invalid --gc-frontier-share \"-0.1\": must be between 0 and 1",
        ),
        (
            &["sim", "--gc-frontier-share", "0.5,1.5"],
            "invalid --gc-frontier-share \"1.5\": must be between 0 and 1",
        ),
        (
            &["sim", "--gc", "2r-greedy", "--gc-frontier-share", "0.5"],
            "2R merges victims in place",
        ),
        (
            &["sim", "--wear-level-gap", "4,-1"],
            "invalid --wear-level-gap \"-1\": expected a whole number of erases, 0 (off) to 4294967295",
        ),
        (
            &["sim", "--json", "/nonexistent/dir/s.json"],
            "does not exist",
        ),
    ];
    for (args, want) in cases {
        let out = ssdiq(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!json.exists());
    }
}

/// A small sweep with `extra` flags and --json/--csv: its output, document and CSV text.
fn small_sweep(extra: &[&str]) -> (std::process::Output, serde_json::Value, String) {
    sweep(&SMALL, extra)
}

/// `ssdiq sim ARGS EXTRA` with JSON and CSV outputs: the run, the JSON, the CSV.
fn sweep(args: &[&str], extra: &[&str]) -> (std::process::Output, serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let csv = dir.path().join("s.csv");
    let mut args = args.to_vec();
    args.extend(extra);
    args.extend([
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let out = ssdiq(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("outputs: {}, {}", csv.display(), json.display())),
        "{stderr}"
    );
    let doc = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out, doc, std::fs::read_to_string(&csv).unwrap())
}

#[test]
fn sweep_writes_schema_json_and_csv() {
    let (out, doc, text) = small_sweep(&[
        "--gc",
        "greedy,2r-fifo,separated-model",
        "--pattern",
        "uniform,zones:80@20,20@80",
    ]);
    assert_eq!(doc["schema"], ssdiq_schema::SCHEMA);
    assert_eq!(doc["kind"], "sim");
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 6);
    for r in runs {
        let waf = r["waf"].as_f64().unwrap();
        assert!((1.0..20.0).contains(&waf), "{r}");
        assert!(r["params"]["fill"].as_f64().unwrap() > 0.87);
        if r["method"] == "simulated" {
            assert_eq!(r["series"].as_array().unwrap().len(), 10);
            assert!(r["flash_writes"].as_u64().unwrap() >= r["host_writes"].as_u64().unwrap());
            assert!(r["erases"].as_u64().unwrap() > 0);
        }
    }
    // The comma inside zones: stays within one pattern.
    assert_eq!(runs[1]["params"]["pattern"], "zones:80@20,20@80");
    assert!(text.starts_with("run,gc,pattern,"));
    assert_eq!(text.lines().count(), 1 + 4 * 10);
    // The table lists every run.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().filter(|l| l.contains("2r-fifo")).count(), 2);
    assert!(stdout.contains("not a bound"), "{stdout}");
}

/// The HTML page of `sim` on the small geometry with `extra` arguments.
fn sim_page(extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("s.html");
    let mut args = SMALL.to_vec();
    args.extend_from_slice(extra);
    args.extend(["--html", html.to_str().unwrap()]);
    let out = ssdiq(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&html).unwrap()
}

#[test]
fn html_draws_the_separated_model_as_a_level() {
    let page = sim_page(&["--gc", "greedy,separated-model"]);
    assert!(
        page.contains("separated-model (analytic)"),
        "a legend entry"
    );
    // Its line is drawn, dashed: many short thick segments, where greedy's running WAF is one
    // thick polyline (and the legend's sample another).
    let thick = page.matches("stroke-width=\"2\" points=").count();
    assert!(thick > 10, "{thick} thick segments");
}

#[test]
fn html_draws_waf_over_the_workload_and_against_op() {
    let text = sim_page(&["--op", "10%,25%", "--gc", "greedy,fifo"]);
    assert!(text.starts_with("<!DOCTYPE html>") && text.contains("ssdiq sim: 4 runs"));
    assert_eq!(
        text.matches("<svg").count(),
        2,
        "over the workload, against OP"
    );
    assert!(text.contains("greedy model, uniform") && text.contains("fifo, OP 25.0%"));
    // One OP: no chart against it.
    assert_eq!(sim_page(&[]).matches("<svg").count(), 1);
}

#[test]
fn single_run_prints_a_point_every_tenth_and_the_geometry() {
    let out = ssdiq(&[
        "sim",
        "--capacity",
        "64MiB",
        "--block",
        "128KiB",
        "--op",
        "10%",
        "--writes",
        "1x",
    ]);
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("OP 10.00%") && s.contains("spare factor") && s.contains("fill 0.9091"),
        "{s}"
    );
    assert_eq!(
        s.lines().filter(|l| l.contains("running WAF")).count(),
        10,
        "{s}"
    );
}

#[test]
fn a_gc_frontier_share_sweep_names_each_share() {
    let (out, doc, text) = small_sweep(&[
        "--gc-frontier-share",
        "0,50%,1",
        "--pattern",
        "twozone:90/10",
    ]);
    let runs = doc["runs"].as_array().unwrap();
    let shares: Vec<Option<f64>> = runs
        .iter()
        .map(|r| r["params"]["gc_frontier_share"].as_f64())
        .collect();
    assert_eq!(shares, [Some(0.0), Some(0.5), None]);
    assert!(runs.iter().all(|r| r["params"]["gc_frontier"] == true));
    let waf: Vec<f64> = runs.iter().map(|r| r["waf"].as_f64().unwrap()).collect();
    assert!(waf[0] > waf[1] && waf[1] > waf[2], "{waf:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    for label in ["greedy+gcf0 ", "greedy+gcf0.5 ", "greedy+gcf "] {
        assert!(stdout.contains(label), "{label}: {stdout}");
    }
    assert!(text.contains("\n2,greedy+gcf0.5,"), "{text}");
}

#[test]
fn wear_levelling_moves_cold_data_only() {
    let mut args = SMALL.to_vec();
    args[6] = "8x";
    let (out, doc, _) = sweep(
        &args,
        &[
            "--gc-frontier",
            "--wear-level-gap",
            "0,4",
            "--pattern",
            "uniform,readonly:0.8",
        ],
    );
    let runs = doc["runs"].as_array().unwrap();
    let gaps: Vec<Option<u64>> = runs
        .iter()
        .map(|r| r["params"]["wear_level_gap"].as_u64())
        .collect();
    assert_eq!(gaps, [None, None, Some(4), Some(4)]);
    let waf: Vec<f64> = runs.iter().map(|r| r["waf"].as_f64().unwrap()).collect();
    // Uniform writes leave no block far behind (a gap this small is reached now and then:
    // within 1%); read-only data greedy never picks is moved, and the hot fifth gets the
    // spare space.
    assert!((waf[2] / waf[0] - 1.0).abs() < 0.01, "{waf:?}");
    assert!(waf[3] < 0.8 * waf[1], "{waf:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("greedy+gcf+wl4 "), "{stdout}");
}
