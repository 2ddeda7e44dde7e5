//! `ssdiq fit` end to end on the emulated SSD: a quick run, a twin fitted from it, the twin
//! used as a target and checked beside the drive; and bad input refused before anything is
//! written.

use crate::common::{json, ok, s, ssdiq, usage_error};

#[test]
#[ignore = "slow, about 90 s: .ci/extra/slow-tests.sh runs it"]
fn a_twin_fitted_from_a_run_works_as_a_target_and_checks_against_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("r");
    ok(&[
        "run",
        "emu:pm9a3,capacity=1GiB",
        "--quick",
        "--out",
        s(&run),
    ]);
    let twin = dir.path().join("twin.toml");
    let fit_json = dir.path().join("fit.json");
    let o = ok(&[
        "fit",
        s(&run.join("run.json")),
        "--out",
        s(&twin),
        "--json",
        s(&fit_json),
        "--no-range",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("starting from emu:pm9a3"), "{out}");
    assert!(out.contains("the twin's predictions"), "{out}");
    let text = std::fs::read_to_string(&twin).unwrap();
    assert!(
        text.contains("op = ") && text.contains("# fitted to"),
        "{text}"
    );
    let doc = json(&fit_json);
    assert_eq!(doc["kind"], "fit");
    let params = doc["params"].as_array().unwrap();
    let how = |k: &str| {
        params
            .iter()
            .find(|p| p["key"] == k)
            .map(|p| p["how"].as_str().unwrap().to_string())
    };
    assert_eq!(how("drive.op").as_deref(), Some("fitted"));
    assert_eq!(how("nand.program_us").as_deref(), Some("fitted"));
    assert_eq!(how("drive.capacity").as_deref(), Some("input"));
    assert_eq!(how("nand.channels").as_deref(), Some("kept"));
    // The twin is a profile like any other.
    let target = format!("emu:{}", twin.display());
    let o = ok(&["info", &target]);
    let info = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(info.contains("twin of emu:pm9a3"), "{info}");
    // The drive's GC unit, and the full-size block behind it, are the measured drive's.
    let superblock = |text: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with("superblock "))
            // "3MiB (1 program units per die) x 392; full size 1341MiB (447 units) x 783":
            // the blocks, not their counts (OP is fitted).
            .map(|l| {
                l.split(" x ")
                    .map(|p| p.rsplit("; ").next().unwrap_or("").trim().to_string())
                    .take(2)
                    .collect::<Vec<_>>()
            })
    };
    let o = ok(&["info", "emu:pm9a3,capacity=1GiB"]);
    let drive = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(superblock(&info), superblock(&drive), "{info}");
    assert!(superblock(&info).is_some());
    // The check: every figure beside the twin's, and the predictions, as JSON and a page.
    let check = dir.path().join("check.json");
    let page = dir.path().join("check.html");
    let o = ok(&[
        "fit",
        "--check",
        s(&twin),
        s(&run),
        "--json",
        s(&check),
        "--html",
        s(&page),
        "--steady",
        "twozone:90/10",
    ]);
    let c = json(&check);
    assert_eq!(c["kind"], "fit-check");
    // --steady runs a pattern as the predictions run theirs: its WA is the two-zone
    // prediction's point at 90.
    let out = String::from_utf8_lossy(&o.stdout);
    let steady: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("twin, steady twozone:90/10: WA "))
        .and_then(|l| l.split(',').next())
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no steady line: {out}"));
    let two_zone = c["predictions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["study"] == "twozone")
        .expect("a two-zone prediction");
    let at_90 = two_zone["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|pt| pt[0].as_f64() == Some(90.0))
        .and_then(|pt| pt[1].as_f64())
        .expect("a point at 90");
    assert!((steady - at_90).abs() < 5e-4, "{steady} against {at_90}");
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "waf_measured.uniform")
        .unwrap()
        .clone();
    let res = row["residual"].as_f64().unwrap();
    assert!(res.abs() < 0.05, "uniform WA residual {res}");
    // What fit printed and wrote of the twin is what the check measures of it (issue 51: the
    // residuals were its stages', on twins of the moment).
    assert_eq!(
        doc["measured"], c["rows"],
        "fit's last measurement against the check's"
    );
    let text = std::fs::read_to_string(&twin).unwrap();
    assert!(
        text.contains("# The twin as written, measured once more"),
        "{text}"
    );
    let preds = c["predictions"].as_array().unwrap();
    assert_eq!(preds.len(), 5);
    // Each prediction has its range over what the twin keeps from its base (issue 52): it
    // holds the twin's own value, and the skewed WA's rests on keys the check names.
    for p in preds {
        let (pts, range) = (
            p["points"].as_array().unwrap(),
            p["range"].as_array().unwrap(),
        );
        assert_eq!(pts.len(), range.len(), "{p}");
        for (pt, r) in pts.iter().zip(range) {
            let (y, lo, hi) = (pt[1].as_f64(), r[0].as_f64(), r[1].as_f64());
            if let (Some(y), Some(lo), Some(hi)) = (y, lo, hi) {
                assert!(lo <= y && y <= hi, "{p}");
            }
        }
    }
    let skew = preds.iter().find(|p| p["study"] == "skew").unwrap();
    let keys: Vec<&str> = skew["range_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    // The rewrite window is fitted to the run's skewed WA and the map cache to its map reads,
    // so no range rests on them; the dies are not identified, and move the skewed WA. An init
    // that folded nothing leaves a cache without idle-time GC possible: the range spans one.
    assert!(keys.contains(&"nand.channels (dies)"), "{keys:?}");
    assert!(keys.contains(&"slc.slc_share"), "{keys:?}");
    assert!(
        text.contains("slc_share = 0 # the fit's best guess: the init's WA"),
        "{text}"
    );
    assert!(!keys.contains(&"map.map_cache_kib"), "{keys:?}");
    assert!(!keys.contains(&"buffer.rewrite_window"), "{keys:?}");
    // fit --json holds the same predictions as the check (same twin, same seed), without
    // ranges where --no-range said so (issue 52, item 3).
    let fit_preds = doc["predictions"].as_array().unwrap();
    assert_eq!(fit_preds.len(), preds.len());
    for (f, c) in fit_preds.iter().zip(preds) {
        assert_eq!(f["points"], c["points"], "{f}");
        assert!(f["range"].as_array().is_none_or(|r| r.is_empty()), "{f}");
    }
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("(prediction)") && html.contains("<svg"));
    assert!(html.contains("plausible range") && html.contains("the range rests on"));
}

/// A latency-load study of the drive joins its run: the buffer is then fitted to the study's
/// write P99 at every load, and says so.
#[test]
#[ignore = "slow, about 105 s: .ci/extra/slow-tests.sh runs it"]
fn a_latency_load_study_joins_the_run_and_fits_the_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let drive = "emu:pm9a3,capacity=1GiB,buffer_kib=16384";
    let run = dir.path().join("r");
    ok(&["run", drive, "--quick", "--out", s(&run)]);
    let study = dir.path().join("ll");
    ok(&[
        "study",
        "latency-load",
        drive,
        "--quick",
        "--quiet",
        "--out",
        s(&study),
    ]);
    let other = dir.path().join("gcu2");
    ok(&[
        "study",
        "gc-unit",
        "emu:pm9a3,capacity=2GiB",
        "--quick",
        "--quiet",
        "--out",
        s(&other),
    ]);
    let other_gc_unit = other.join("study.json");
    let skew = dir.path().join("skew");
    ok(&[
        "study",
        "skew",
        drive,
        "--quick",
        "--quiet",
        "--out",
        s(&skew),
    ]);
    let gc_unit = dir.path().join("gcu");
    ok(&[
        "study",
        "gc-unit",
        drive,
        "--quick",
        "--quiet",
        "--out",
        s(&gc_unit),
    ]);
    let gc_unit_json = gc_unit.join("study.json");
    let twin = dir.path().join("twin.toml");
    let fit_json = dir.path().join("fit.json");
    let study_json = study.join("study.json");
    ok(&[
        "fit",
        s(&run),
        s(&study_json),
        s(&gc_unit_json),
        "--out",
        s(&twin),
        "--json",
        s(&fit_json),
        // The ranges are the first test's; here only the fitted keys matter.
        "--no-range",
    ]);
    let doc = json(&fit_json);
    let buffer = param(&doc, "buffer.buffer_kib");
    assert_eq!(buffer["how"], "fitted", "{buffer}");
    // The drive's 16 MiB, not the base profile's 64: the study's 100% load fills one and
    // not the other.
    assert_eq!(buffer["value"], "16384", "{buffer}");
    let source = buffer["source"].as_str().unwrap();
    assert!(
        source.contains("latency-load study") && source.contains("study.json"),
        "{source}"
    );
    let unit = param(&doc, "nand.units_per_block");
    let source = unit["source"].as_str().unwrap();
    assert!(
        source.contains("GC unit, 3MiB (study gc-unit") && source.contains("gcu"),
        "{source}"
    );
    // An FDP drive's `ssdiq info` declares its reclaim unit: the GC unit, without a study.
    let info = dir.path().join("info.json");
    ok(&["info", drive, "--json", s(&info)]);
    let mut doc: serde_json::Value = json(&info);
    doc["info"]["fdp"] = serde_json::json!({
        "supported": true, "enabled": true, "endurance_group": 1, "stats": null, "handles": [],
        "configs": [{"valid": true, "rgif": 0, "fdpvwc": false, "nrg": 1, "nruh": 8,
                     "max_pids": 8, "nnss": 1, "runs": 3 << 20, "erutl": 0, "ruh_types": []}]
    });
    std::fs::write(&info, doc.to_string()).unwrap();
    let twin2 = dir.path().join("twin2.toml");
    let fit2_json = dir.path().join("fit2.json");
    ok(&[
        "fit",
        s(&run),
        s(&info),
        "--out",
        s(&twin2),
        "--json",
        s(&fit2_json),
        "--no-range",
    ]);
    let unit = param(&json(&fit2_json), "nand.units_per_block");
    let source = unit["source"].as_str().unwrap();
    assert!(
        source.contains("GC unit, 3MiB (FDP reclaim unit in ssdiq info")
            && source.contains("info.json"),
        "{source}"
    );
    let mut no_fdp = doc.clone();
    no_fdp["info"]["fdp"] = serde_json::Value::Null;
    let no_fdp_json = dir.path().join("no-fdp.json");
    std::fs::write(&no_fdp_json, no_fdp.to_string()).unwrap();
    // The check runs the study on the twin too: the curve beside the drive's, load by load.
    let check = dir.path().join("check.json");
    ok(&[
        "fit",
        "--check",
        s(&twin),
        s(&run),
        s(&study_json),
        "--json",
        s(&check),
        "--no-range",
    ]);
    let c = json(&check);
    let at_load: Vec<&serde_json::Value> = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["key"].as_str().unwrap().starts_with("load_"))
        .collect();
    assert!(at_load.len() >= 4, "{at_load:?}");
    for r in &at_load {
        let res = r["residual"].as_f64().unwrap();
        assert!(res.is_finite(), "{r}");
    }
    // A skew study of the drive joins too: every WA candidate is scored on its points, and
    // the check runs it on the twin.
    let skew_json = skew.join("study.json");
    let twin3 = dir.path().join("twin3.toml");
    let fit3_json = dir.path().join("fit3.json");
    ok(&[
        "fit",
        s(&run),
        s(&skew_json),
        "--out",
        s(&twin3),
        "--json",
        s(&fit3_json),
        "--no-range",
    ]);
    let policy = param(&json(&fit3_json), "drive.policy");
    let source = policy["source"].as_str().unwrap();
    assert!(
        source.contains("the 6 points of") && source.contains("skew"),
        "{source}"
    );
    let check3 = dir.path().join("check3.json");
    ok(&[
        "fit",
        "--check",
        s(&twin3),
        s(&run),
        s(&skew_json),
        "--json",
        s(&check3),
        "--no-range",
    ]);
    let skew_rows: Vec<serde_json::Value> = json(&check3)["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["key"].as_str().unwrap().starts_with("skew_"))
        .cloned()
        .collect();
    assert_eq!(skew_rows.len(), 6, "{skew_rows:?}");
    for r in &skew_rows {
        // The twin of the drive's own model: within 10% at every skew.
        let res = r["residual"].as_f64().unwrap();
        assert!(res.abs() < 0.10, "{r}");
    }
    // A stopped skew study, and a study the fit does not take.
    let edited = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut d = json(&skew_json);
        edit(&mut d);
        let p = dir.path().join(name);
        std::fs::write(&p, d.to_string()).unwrap();
        p
    };
    let partial_skew = edited("partial-skew.json", &|d| d["partial"] = true.into());
    let other_kind = edited("readonly.json", &|d| d["study"] = "readonly".into());
    // Bad mixes: a study alone, a study of another kind, two studies (copies: one file
    // named twice is refused as such).
    let copy = |p: &std::path::Path, name: &str| {
        let c = dir.path().join(name);
        std::fs::copy(p, &c).unwrap();
        c
    };
    let (skew_copy, study_copy, gc_unit_copy) = (
        copy(&skew_json, "skew-copy.json"),
        copy(&study_json, "ll-copy.json"),
        copy(&gc_unit_json, "gcu-copy.json"),
    );
    let out = dir.path().join("t2.toml");
    let o = s(&out);
    for (args, needle) in [
        (
            vec!["fit", s(&study_json), "--out", o],
            "no run among the inputs",
        ),
        (
            vec!["fit", s(&run), s(&other_kind), "--out", o],
            "a \"readonly\" study",
        ),
        (
            vec!["fit", s(&run), s(&partial_skew), "--out", o],
            "the skew study was stopped before its last point (partial)",
        ),
        (
            vec!["fit", s(&run), s(&skew_json), s(&skew_copy), "--out", o],
            "2 skew results given",
        ),
        (
            vec!["fit", s(&run), s(&study_json), s(&study_copy), "--out", o],
            "give one",
        ),
        (
            vec!["fit", s(&run), s(&skew_json), s(&skew_json), "--out", o],
            "are the same result",
        ),
        (
            vec![
                "fit",
                s(&run),
                s(&gc_unit_json),
                s(&gc_unit_copy),
                "--out",
                o,
            ],
            "2 gc-unit results given",
        ),
        (
            vec!["fit", s(&run), s(&other_gc_unit), "--out", o],
            "give results of the drive the run measured",
        ),
        (
            vec!["fit", s(&run), s(&no_fdp_json), "--out", o],
            "the drive reports no FDP reclaim unit",
        ),
    ] {
        usage_error(&args, needle);
        assert!(!out.exists(), "{args:?} wrote the twin");
    }
}

#[test]
fn bad_input_is_one_line_exit_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.toml");
    let not_json = dir.path().join("x.json");
    std::fs::write(&not_json, "{").unwrap();
    let o = s(&out);
    for (args, needle) in [
        (vec!["fit", "--out", o], "no input"),
        (
            vec!["fit", "--paper", "ssd-iq:foo", "--out", o],
            "--paper \"ssd-iq:foo\"",
        ),
        (
            vec!["fit", "--paper", "other:pm9a3", "--out", o],
            "--paper \"other:pm9a3\"",
        ),
        (vec!["fit", "--paper", "ssd-iq:pm9a3"], "missing --out"),
        (
            vec!["fit", "--paper", "ssd-iq:pm9a3", "--out", o, "--no-range"],
            "--no-range leaves out the prediction ranges of a check or of --json",
        ),
        (
            vec![
                "fit",
                "--paper",
                "ssd-iq:pm9a3",
                "--out",
                o,
                "--capacity",
                "1k",
            ],
            "--capacity \"1k\"",
        ),
        (
            vec![
                "fit",
                "--paper",
                "ssd-iq:pm9a3",
                "--out",
                o,
                "--base",
                "nv2",
            ],
            "invalid base \"nv2\"",
        ),
        (vec!["fit", s(&not_json), "--out", o], "is not JSON"),
        (
            vec!["fit", "--check", s(&not_json), "--paper", "ssd-iq:pm9a3"],
            "not --paper",
        ),
        (
            vec!["fit", "--check", s(&not_json), s(&not_json), "--out", o],
            "--out belongs to fitting",
        ),
        (
            vec![
                "fit",
                "--paper",
                "ssd-iq:pm9a3",
                "--out",
                o,
                "--html",
                "x.html",
            ],
            "--html writes the page of a check",
        ),
        (
            vec![
                "fit",
                "--paper",
                "ssd-iq:pm9a3",
                "--out",
                o,
                "--steady",
                "zipf:0.9",
            ],
            "a published row (--paper) has no run to check against",
        ),
        (
            vec![
                "fit",
                "--check",
                s(&not_json),
                s(&not_json),
                "--steady",
                "zipf:0.9,",
            ],
            "an empty pattern between commas",
        ),
        (
            vec![
                "fit",
                "--check",
                s(&not_json),
                s(&not_json),
                "--steady",
                "zipf:-1",
            ],
            "--steady: invalid pattern \"zipf:-1\"",
        ),
    ] {
        usage_error(&args, needle);
        assert!(!out.exists(), "{args:?} wrote the twin");
    }
    let o = ssdiq(&["fit", "--check", s(&not_json)]);
    assert_eq!(o.status.code(), Some(2));
}

/// The fitted parameter `key` of a `fit --json` document.
fn param(doc: &serde_json::Value, key: &str) -> serde_json::Value {
    doc["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["key"] == key)
        .unwrap_or_else(|| panic!("no parameter {key} in {doc}"))
        .clone()
}
