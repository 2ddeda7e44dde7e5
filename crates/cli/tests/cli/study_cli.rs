//! `ssdiq study`: each study on the emulated SSD (quick), gc-unit's exact inference on drives
//! of three superblock sizes, a study on a file and on a loop device, bad input, and Ctrl-C.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{json, ok, s, ssdiq};
use serde_json::Value;

/// A small drive: quick studies take about a second each.
const SMALL: &str = "emu:default,capacity=2GiB";

fn study(name: &str, target: &str, out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["study", name, target, "--out", s(out), "--quiet"];
    args.extend_from_slice(extra);
    ok(&args);
    let doc = json(&out.join("study.json"));
    assert_eq!(doc["schema"], ssdiq_schema::SCHEMA);
    assert_eq!(doc["kind"], "study");
    assert_eq!(doc["study"], name);
    assert_eq!(doc["partial"], false);
    let csv = std::fs::read_to_string(out.join("points.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        doc["points"].as_array().unwrap().len() + 1,
        "{csv}"
    );
    let html = std::fs::read_to_string(out.join("study.html")).unwrap();
    assert!(html.contains("<svg"), "a chart");
    doc
}

fn points<'a>(doc: &'a Value, series: &str) -> Vec<&'a Value> {
    doc["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["series"] == series)
        .collect()
}

fn value(p: &Value, key: &str) -> f64 {
    p["values"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {p}"))
}

fn at<'a>(doc: &'a Value, series: &str, x: f64) -> &'a Value {
    points(doc, series)
        .into_iter()
        .find(|p| p["x"].as_f64() == Some(x))
        .unwrap_or_else(|| panic!("no point {series} at {x}"))
}

#[test]
fn gc_unit_sees_through_the_spare_space_of_a_high_op_drive() {
    // At 40% OP the drive waits for both zones around a superblock boundary to be trimmed,
    // so zones short of its 6 MiB superblock reach WAF 1 in random order; the apart order
    // tells them from the unit (as on emu:7450max).
    let dir = tempfile::tempdir().unwrap();
    let target =
        "emu:default,capacity=1GiB,full_capacity=1GiB,units_per_block=2,buffer_kib=4096,op=0.4";
    let doc = study("gc-unit", target, dir.path(), &["--quick"]);
    assert_eq!(
        doc["result"]["gc_unit_bytes"].as_f64(),
        Some((6u64 << 20) as f64),
        "{}",
        doc["findings"]
    );
    assert_eq!(
        doc["result"]["gc_unit_ambiguous"].as_f64(),
        Some(0.0),
        "{}",
        doc["findings"]
    );
    let points = doc["points"].as_array().unwrap();
    let flat_below_unit = points.iter().any(|p| {
        p["series"] == "one zone open"
            && p["values"]["zone_bytes"].as_f64() < Some((6u64 << 20) as f64)
            && p["values"]["waf"].as_f64() <= Some(1.01)
    });
    assert!(
        flat_below_unit,
        "the random order alone would stop short of the unit: {points:?}"
    );
    let apart_above = points.iter().any(|p| {
        p["series"] == "neighbours apart"
            && p["values"]["zone_bytes"].as_f64() < Some((6u64 << 20) as f64)
            && p["values"]["waf"].as_f64() > Some(1.01)
    });
    assert!(apart_above, "{points:?}");
}

#[test]
fn gc_unit_finds_the_superblock_of_three_drives_exactly() {
    let dir = tempfile::tempdir().unwrap();
    // 1, 2 and 4 program units per die of 16 dies x 192 KiB: superblocks of 3, 6 and 12 MiB.
    // The buffer is 4 MiB: a 64 MiB one would hold whole zones of a 1 GiB drive and absorb the
    // ones trimmed while buffered.
    for (units, mib) in [(1u64, 3u64), (2, 6), (4, 12)] {
        let target = format!(
            "emu:default,capacity=1GiB,full_capacity=1GiB,units_per_block={units},buffer_kib=4096"
        );
        let info = ok(&["info", &target]);
        let info = String::from_utf8_lossy(&info.stdout);
        assert!(info.contains(&format!("superblock {mib}MiB")), "{info}");
        let out = dir.path().join(format!("u{units}"));
        let doc = study("gc-unit", &target, &out, &["--quick"]);
        assert_eq!(
            doc["result"]["gc_unit_bytes"].as_f64(),
            Some((mib << 20) as f64),
            "{target}: {}",
            doc["findings"]
        );
        // The page and the findings set the drive's own unit beside the one found.
        assert_eq!(
            doc["target"]["gc_unit_bytes"].as_u64(),
            Some(mib << 20),
            "the emulated drive states its superblock"
        );
        let said = format!("the drive's own GC unit (superblock): {mib}MiB; found {mib}MiB: exact");
        assert!(
            doc["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f == &said[..]),
            "{}",
            doc["findings"]
        );
        let page = std::fs::read_to_string(out.join("study.html")).unwrap();
        assert!(
            page.contains(&format!("the drive&apos;s superblock: {mib}MiB")),
            "a band marks the superblock on the page"
        );
        let one = "one zone open";
        assert!(value(at(&doc, one, mib as f64), "waf") <= 1.01);
        // Every smaller zone size was tried and is clearly above 1.
        for smaller in 1..mib {
            let w = value(at(&doc, one, smaller as f64), "waf");
            assert!(w > 1.03, "{smaller} MiB zones on {mib} MiB units: WAF {w}");
        }
    }
}

#[test]
fn skew_and_readonly_measure_steady_waf() {
    let dir = tempfile::tempdir().unwrap();
    let skew = study("skew", SMALL, &dir.path().join("skew"), &["--quick"]);
    assert_eq!(points(&skew, "two-zone").len(), 3);
    assert_eq!(points(&skew, "zipf").len(), 3);
    // Two-zone 50/50 and Zipf theta 0 are both uniform: same WAF within noise.
    let u1 = value(at(&skew, "two-zone", 50.0), "waf");
    let u2 = value(at(&skew, "zipf", 0.0), "waf");
    assert!(u1 > 2.0 && (u1 / u2 - 1.0).abs() < 0.05, "{u1} vs {u2}");
    assert_eq!(skew["result"]["waf_uniform"].as_f64(), Some(u1));

    let ro = study("readonly", SMALL, &dir.path().join("ro"), &["--quick"]);
    let pts = points(&ro, "read-only share");
    let xs: Vec<f64> = pts.iter().map(|p| p["x"].as_f64().unwrap()).collect();
    assert_eq!(xs, [0.0, 50.0, 90.0]);
    let w0 = value(pts[0], "waf");
    assert!((w0 / u1 - 1.0).abs() < 0.05, "uniform twice: {w0} vs {u1}");
    // The same seed gives the same points.
    let again = study("readonly", SMALL, &dir.path().join("ro2"), &["--quick"]);
    assert_eq!(again["points"], ro["points"]);
    // Each point is the simulator's steady WAF on the drive's geometry: the warm-up and the
    // measured job keep one read-only region (they once drew two, and 90% read-only measured
    // 5.5 on emu:pm9a3 against the drive's 1.9).
    for p in &pts {
        let share = p["x"].as_f64().unwrap() / 100.0;
        let sim = sim_steady_waf(SMALL, &format!("readonly:{share}"), dir.path());
        let w = value(p, "waf");
        assert!(
            (w / sim - 1.0).abs() < 0.08,
            "{share}: study {w}, sim {sim}"
        );
    }
}

/// `ssdiq sim`'s steady WAF of `pattern` on the geometry and wear levelling `ssdiq info`
/// reports for `target`, less the free superblocks the drive's GC keeps (its low watermark):
/// at 90% read-only the hot data nearly fills the spare space, and those three superblocks
/// move the WAF by 20%.
fn sim_steady_waf(target: &str, pattern: &str, dir: &Path) -> f64 {
    let info = dir.join("info.json");
    ok(&["info", target, "--json", s(&info)]);
    let doc = json(&info);
    let g = &doc["emulated"]["geometry"];
    let param = |key: &str| -> Option<u64> {
        doc["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["key"] == key)
            .and_then(|p| p["value"].as_str()?.parse().ok())
    };
    let kept = param("low_watermark").unwrap();
    let gap = param("wear_level_gap").unwrap_or(0).to_string();
    let block = g["superblock_bytes"].as_u64().unwrap();
    let physical = g["physical_bytes"].as_u64().unwrap() - kept * block;
    let fill = g["logical_bytes"].as_u64().unwrap() as f64 / physical as f64;
    let (physical, block, fill) = (physical.to_string(), block.to_string(), fill.to_string());
    let out = dir.join("sim.json");
    ok(&[
        "sim",
        "--capacity",
        &physical,
        "--block",
        &block,
        "--fill",
        &fill,
        "--wear-level-gap",
        &gap,
        "--pattern",
        pattern,
        "--warmup",
        "2",
        "--writes",
        "1",
        "--json",
        s(&out),
    ]);
    json(&out)["runs"][0]["waf"].as_f64().unwrap()
}

#[test]
fn interleaved_sequential_streams_amplify_writes() {
    let dir = tempfile::tempdir().unwrap();
    let doc = study("streams", SMALL, &dir.path().join("st"), &["--quick"]);
    let series = "sequential streams";
    let one = value(at(&doc, series, 1.0), "waf");
    let many = value(at(&doc, series, 16.0), "waf");
    let uniform = value(points(&doc, "uniform random (reference)")[0], "waf");
    assert!(one < 1.01, "a lone sequential stream needs no GC: {one}");
    assert!(
        many > 1.5 && many < uniform,
        "16 streams {many}, uniform {uniform}"
    );
    assert_eq!(doc["result"]["waf_streams_16"].as_f64(), Some(many));
}

#[test]
fn concurrent_jobs_on_their_own_regions_scale_reads() {
    let dir = tempfile::tempdir().unwrap();
    let doc = study("concurrency", SMALL, &dir.path().join("cc"), &["--quick"]);
    for series in ["read 4KiB", "randread 4KiB"] {
        let xs: Vec<f64> = points(&doc, series)
            .iter()
            .map(|p| p["x"].as_f64().unwrap())
            .collect();
        assert_eq!(xs, [1.0, 4.0, 16.0], "{series}");
        let one = value(at(&doc, series, 1.0), "mb_s");
        let sixteen = value(at(&doc, series, 16.0), "mb_s");
        assert!(
            sixteen > 3.0 * one,
            "{series}: 16 jobs {sixteen} vs 1 job {one} MB/s"
        );
    }
    // The paper's finding: one job reads sequentially much faster than randomly (here the
    // flash page register; on its drives readahead), many jobs close the gap.
    let one = doc["result"]["seq_over_random_4KiB_jobs_1"]
        .as_f64()
        .unwrap();
    let many = doc["result"]["seq_over_random_4KiB_jobs_max"]
        .as_f64()
        .unwrap();
    assert!(
        one > 1.5 && many < one,
        "seq/random: 1 job {one}, 16 jobs {many}"
    );
}

#[test]
fn empty_and_full_drive_run_the_same_tests() {
    let dir = tempfile::tempdir().unwrap();
    let doc = study("empty-full", SMALL, &dir.path().join("ef"), &["--quick"]);
    let (empty, full) = (points(&doc, "empty"), points(&doc, "full"));
    assert_eq!(empty.len(), 6);
    let labels = |ps: &[&Value]| -> Vec<String> {
        ps.iter()
            .map(|p| p["x_label"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(labels(&empty), labels(&full));
    assert!(labels(&empty).contains(&"skip-seq write 4KiB".to_string()));
    // One thread at QD 1: latency and IOPS agree (Little's law).
    for p in empty.iter().chain(&full) {
        let (iops, avg) = (value(p, "kiops") * 1e3, value(p, "avg_us") * 1e-6);
        assert!((iops * avg - 1.0).abs() < 0.05, "{p}");
    }
    assert!(doc["result"]["max_full_vs_empty_change"].as_f64().is_some());
    // The dot charts name every test.
    let html = std::fs::read_to_string(dir.path().join("ef/study.html")).unwrap();
    assert!(html.contains("random read 4KiB"), "test rows in the chart");
}

#[test]
fn variance_repeats_from_a_reset_with_new_streams() {
    let dir = tempfile::tempdir().unwrap();
    let doc = study("variance", SMALL, &dir.path().join("va"), &["--quick"]);
    let reads = points(&doc, "randread 4KiB");
    let writes = points(&doc, "randwrite 4KiB");
    assert_eq!((reads.len(), writes.len()), (3, 3));
    // New random streams: the runs are not copies of each other, yet close on an emulator.
    let p99: Vec<f64> = reads.iter().map(|p| value(p, "p99_us")).collect();
    assert!(p99.windows(2).any(|w| w[0] != w[1]), "{p99:?}");
    let cv = doc["result"]["randread_kiops_cv"].as_f64().unwrap();
    assert!(cv > 0.0 && cv < 0.1, "{cv}");
    assert!(doc["result"]["write_max_over_median"].as_f64().unwrap() >= 1.0);
}

#[test]
fn ftl_read_studies_parallelism_locality_permuted() {
    let dir = tempfile::tempdir().unwrap();
    let par = study("parallelism", SMALL, &dir.path().join("par"), &["--quick"]);
    let one = "1 queue, 1 block";
    let q1 = value(at(&par, one, 1.0), "kiops");
    let q64 = value(at(&par, one, 64.0), "kiops");
    assert!(q64 > 3.0 * q1, "QD 64 {q64} vs QD 1 {q1}");
    assert_eq!(points(&par, "4 queues, 4 blocks").len(), 3);
    assert!(par["result"]["qd_scaling"].as_f64().unwrap() > 3.0);

    // 4 KiB sequential reads share the 16 KiB flash page a random read senses alone.
    let loc = study("locality", SMALL, &dir.path().join("loc"), &["--quick"]);
    let seq = value(at(&loc, "sequential", 4.0), "mb_s");
    let shuf = value(at(&loc, "shuffled", 4.0), "mb_s");
    assert!(seq > 1.5 * shuf, "sequential {seq} vs shuffled {shuf} MB/s");
    assert!(value(at(&loc, "shuffled", 1024.0), "mb_s") > 10.0 * shuf);

    let per = study("permuted", SMALL, &dir.path().join("per"), &["--quick"]);
    for series in ["sequential", "permuted", "random"] {
        assert_eq!(points(&per, series).len(), 2, "{series}");
    }
    let p8 = value(at(&per, "permuted", 8.0), "kiops");
    let r8 = value(at(&per, "random", 8.0), "kiops");
    assert!(p8 > r8, "permuted {p8} vs random {r8} kIOPS at QD 16");
}

#[test]
fn alignment_offsets_every_read() {
    let dir = tempfile::tempdir().unwrap();
    let doc = study("alignment", SMALL, &dir.path().join("al"), &["--quick"]);
    let aligned = value(points(&doc, "aligned (offset 0)")[0], "mb_s");
    let offs = points(&doc, "offset");
    let xs: Vec<f64> = offs.iter().map(|p| p["x"].as_f64().unwrap()).collect();
    assert_eq!(xs, [4.0, 64.0, 512.0]);
    for p in offs {
        assert!(value(p, "mb_s") <= aligned * 1.05, "{p}");
    }
    assert!(doc["result"]["worst_offset_over_aligned"]
        .as_f64()
        .is_some());
}

#[test]
fn ftl_write_studies_random_fill_and_data_dependence() {
    let dir = tempfile::tempdir().unwrap();
    let fill = study("random-fill", SMALL, &dir.path().join("fill"), &["--quick"]);
    let rnd = points(&fill, "random order, 4 KiB, QD 1");
    assert_eq!(rnd.len(), 20);
    assert_eq!(points(&fill, "sequential, 512 KiB, QD 4").len(), 20);
    assert_eq!(rnd[19]["x"].as_f64(), Some(100.0));
    // Every block written once on a fresh drive: nothing to collect.
    let waf = value(rnd[19], "fill_waf");
    assert!((waf - 1.0).abs() < 0.01, "{waf}");
    assert!(
        fill["result"]["sequential_over_random_fill"]
            .as_f64()
            .unwrap()
            > 1.5
    );
    assert_eq!(points(&fill, "sequential one-block reads, QD 64").len(), 2);
    assert_eq!(
        fill["result"]["random_fill_over_1ms_pct"].as_f64(),
        Some(0.0)
    );
    assert!(fill["result"]["reads_after_random_over_sequential_fill"]
        .as_f64()
        .is_some());

    let data = study(
        "data-dependence",
        SMALL,
        &dir.path().join("data"),
        &["--quick"],
    );
    for state in ["trimmed", "full"] {
        let pts = points(&data, state);
        assert_eq!(pts.len(), 5, "{state}");
        let labels: Vec<&str> = pts.iter().map(|p| p["x_label"].as_str().unwrap()).collect();
        assert_eq!(
            labels,
            ["0x00", "0xff", "0xaa", "LBA-stamped", "write-zeroes"]
        );
        let spread = data["result"][format!("{state}_data_spread")]
            .as_f64()
            .unwrap();
        assert!(spread < 0.05, "the emulated drive ignores data: {spread}");
    }
}

/// The tracking rounds of a PTS study and its verdict.
fn tracking(doc: &Value) -> (usize, &Value) {
    let rounds = points(doc, "tracking");
    let last = *rounds.last().expect("tracking rounds");
    for (i, p) in rounds.iter().enumerate() {
        assert_eq!(p["x"].as_f64(), Some((i + 1) as f64));
    }
    (rounds.len(), last)
}

#[test]
fn pts_steady_state_tests_report_their_window() {
    let dir = tempfile::tempdir().unwrap();
    for (name, cells) in [("pts-iops", 9), ("pts-throughput", 4), ("pts-latency", 6)] {
        let doc = study(
            name,
            SMALL,
            &dir.path().join(name),
            &["--quick", "--pts-cell", "500ms"],
        );
        let (n, last) = tracking(&doc);
        assert!((1..=25).contains(&n), "{name}: {n} rounds");
        let reached = value(last, "ss_reached");
        assert_eq!(doc["result"]["ss_reached"].as_f64(), Some(reached));
        // Stopped early only with steady state; then the window met both rules.
        if n < 25 {
            assert_eq!(reached, 1.0, "{name}");
            assert!(value(last, "ss_range_pct") <= 20.0 && value(last, "ss_excursion_pct") <= 10.0);
        }
        assert_eq!(value(last, "cell_s"), 0.5);
        let reported = doc["points"].as_array().unwrap().len() - n;
        assert_eq!(reported, cells, "{name}: one averaged point per cell");
    }
}

#[test]
fn pts_wsat_hir_xsr_dirth_follow_their_procedures() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--quick", "--pts-cell", "500ms"];
    // WSAT: from a purged drive into saturation (2 drive writes in quick).
    let w = study("pts-wsat", SMALL, &dir.path().join("w"), &args);
    let pts = points(&w, "4 KiB random writes, T4Q32");
    let dw = value(pts.last().unwrap(), "drive_writes");
    assert!((dw - 2.0).abs() < 0.01, "{dw}");
    let (fob, sat) = (
        w["result"]["fob_iops"].as_f64().unwrap(),
        w["result"]["saturated_iops"].as_f64().unwrap(),
    );
    assert!(sat < 0.5 * fob, "saturated {sat} vs fresh {fob}");
    // HIR: 3 bursts per wait state, at 5 s + wait spacing, then the baseline.
    let h = study("pts-hir", SMALL, &dir.path().join("h"), &args);
    let five = points(&h, "wait 5 s");
    assert_eq!(five.len(), 3);
    assert!(value(five[1], "iops") > 0.0);
    let xs: Vec<f64> = five.iter().map(|p| p["x"].as_f64().unwrap()).collect();
    assert_eq!(xs, [5.0, 15.0, 25.0]);
    assert_eq!(points(&h, "wait 50 s").len(), 3);
    assert_eq!(points(&h, "baseline (no wait)").len(), 1);
    // XSR: three phases in order of time.
    let x = study("pts-xsr", SMALL, &dir.path().join("x"), &args);
    let phase = |s: &str| {
        points(&x, s)
            .iter()
            .map(|p| p["x"].as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    let (a, b, c) = (
        phase("1 sequential 1 MiB"),
        phase("2 random 8 KiB"),
        phase("3 sequential 1 MiB"),
    );
    assert!(!a.is_empty() && !b.is_empty() && !c.is_empty());
    assert!(a.last() < b.first() && b.last() < c.first());
    // DIRTH: the quick matrix, every demand measured.
    let d = study("pts-dirth", SMALL, &dir.path().join("d"), &args);
    for s in ["0/100 T4", "0/100 T1", "100/0 T4", "100/0 T1"] {
        assert_eq!(points(&d, s).len(), 3, "{s}");
    }
    let q1 = value(at(&d, "100/0 T1", 1.0), "iops");
    let q32 = value(at(&d, "100/0 T4", 32.0), "iops");
    assert!(q32 > 4.0 * q1, "reads scale with demand: {q1} -> {q32}");
    common::usage_error(&["study", "pts-iops", "--pts-cell", "soon"], "soon");
}

#[test]
fn latency_load_rises_with_load() {
    let dir = tempfile::tempdir().unwrap();
    let doc = study("latency-load", SMALL, &dir.path().join("ll"), &["--quick"]);
    let series = "write load";
    let pts = points(&doc, series);
    assert_eq!(pts.len(), 3);
    // The profile's datasheet says 70 kIOPS: 10% is 7 kIOPS offered, and achieved.
    let low = at(&doc, series, 10.0);
    assert!((value(low, "offered_kiops") - 7.0).abs() < 1e-9);
    assert!((value(low, "write_kiops") / 7.0 - 1.0).abs() < 0.05);
    let high = at(&doc, series, 100.0);
    assert!(value(high, "read_probe_avg_us") > value(low, "read_probe_avg_us"));
    // --spec-rand-write moves 100%.
    let doc = study(
        "latency-load",
        SMALL,
        &dir.path().join("ll2"),
        &["--quick", "--spec-rand-write", "20"],
    );
    assert!((value(at(&doc, series, 100.0), "offered_kiops") - 20.0).abs() < 1e-9);
    // Past the drive's own rate the writes queue: --max-load finds the knee and says where
    // (issue 51: the study stopped at 100%, before it, and said nothing).
    let doc = study(
        "latency-load",
        SMALL,
        &dir.path().join("ll3"),
        &["--quick", "--max-load", "200%"],
    );
    assert_eq!(points(&doc, series).len(), 5);
    let knee = doc["result"]["knee_percent"].as_f64().expect("a knee");
    assert!(knee > 100.0, "{knee}");
    let f = doc["findings"].to_string();
    assert!(f.contains(&format!("knee at {knee:.0}% load")), "{f}");
    // Settled before the first level: its WAF is the drive's, not the warm-up's drain.
    let waf = |x: f64| value(at(&doc, series, x), "waf");
    assert!(
        (waf(10.0) / waf(100.0) - 1.0).abs() < 0.1,
        "{} {}",
        waf(10.0),
        waf(100.0)
    );
    // --relative-to own: 100% is the rate of a drive write after the warm-up, below the
    // warm-up's own (whose WA is still rising: issue 51's new-user try found every knee at
    // 100% when it was the warm-up's).
    let doc = study(
        "latency-load",
        SMALL,
        &dir.path().join("ll4"),
        &["--quick", "--relative-to", "own"],
    );
    let w = points(&doc, "warm-up")[0];
    let own = value(w, "full_load_iops") / 1e3;
    assert!(
        own < value(w, "write_kiops"),
        "{own} {}",
        value(w, "write_kiops")
    );
    assert!(doc["findings"]
        .to_string()
        .contains("own sustained rate, over a drive write after the warm-up"));
    common::usage_error(
        &["study", "skew", "--max-load", "150%"],
        "study skew takes no --max-load",
    );
    common::usage_error(
        &["study", "latency-load", "--max-load", "300"],
        "invalid --max-load",
    );
    // A level is a whole percentage (issue 51's new-user try: 100.5% ran and read as 101%).
    common::usage_error(
        &["study", "latency-load", "--max-load", "100.5%"],
        "expected a whole percentage",
    );
    common::usage_error(
        &["study", "latency-load", "--relative-to", "x"],
        "invalid --relative-to",
    );
}

#[test]
fn block_size_and_queue_depth() {
    let dir = tempfile::tempdir().unwrap();
    let bs = study("block-size", SMALL, &dir.path().join("bs"), &["--quick"]);
    for rw in ["read", "randread", "write", "randwrite"] {
        assert_eq!(points(&bs, rw).len(), 3, "{rw}");
    }
    // Sequential 4 KiB reads share their flash pages' sensing, random ones do not.
    assert!(value(at(&bs, "read", 1024.0), "mb_s") > 2.0 * value(at(&bs, "read", 4.0), "mb_s"));
    assert!(
        value(at(&bs, "randread", 1024.0), "mb_s") > 4.0 * value(at(&bs, "randread", 4.0), "mb_s")
    );
    let qd = study("queue-depth", SMALL, &dir.path().join("qd"), &["--quick"]);
    let q1 = value(at(&qd, "randread", 1.0), "kiops");
    let q64 = value(at(&qd, "randread", 64.0), "kiops");
    assert!(q64 > 4.0 * q1, "QD 64 {q64} vs QD 1 {q1} kIOPS");
}

#[test]
fn a_study_on_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.img");
    let doc = study(
        "queue-depth",
        s(&f),
        &dir.path().join("out"),
        &["--quick", "--size", "64M"],
    );
    assert_eq!(doc["target"]["emulated"], false);
    assert!(value(at(&doc, "randread", 8.0), "kiops") > 0.0);
    // An existing file is not recreated without --recreate.
    let o = ssdiq(&[
        "study",
        "queue-depth",
        s(&f),
        "--quick",
        "--size",
        "64M",
        "--out",
        s(&dir.path().join("out2")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.path().join("out2").exists());
}

#[test]
#[ignore = "slow, about 9 s: .ci/extra/slow-tests.sh runs it"]
fn a_study_on_a_loop_device_refuses_a_filesystem_until_named() {
    use common::loopdev;
    let _g = loopdev::serial();
    if !loopdev::is_root() {
        eprintln!("skipped: needs root for loop devices");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some((img, lo)) = loopdev::ext4_on_loop(dir.path(), 64 << 20) else {
        eprintln!("skipped: no loop device or mkfs.ext4");
        return;
    };
    let before = loopdev::checksum(&img);
    let dev = lo.dev.as_str();
    let out = dir.path().join("out");
    let o = ssdiq(&["study", "block-size", dev, "--quick", "--out", s(&out)]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.exists());
    assert_eq!(loopdev::checksum(&img), before, "refused, yet written");
    let doc = study(
        "block-size",
        dev,
        &out,
        &["--quick", "--allow-destroy", dev],
    );
    assert_eq!(points(&doc, "read").len(), 3);
}

#[test]
#[ignore = "slow, about 36 s: .ci/extra/slow-tests.sh runs it"]
fn read_and_pts_studies_run_on_a_loop_device() {
    use common::loopdev;
    let _g = loopdev::serial();
    if !loopdev::is_root() {
        eprintln!("skipped: needs root for loop devices");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(lo) = loopdev::Loop::attach(&loopdev::backing(dir.path(), "studies.img", 32 << 20))
    else {
        eprintln!("skipped: no loop device");
        return;
    };
    for (name, extra) in [
        ("concurrency", &[][..]),
        ("empty-full", &[][..]),
        ("locality", &[][..]),
        ("permuted", &[][..]),
        ("alignment", &[][..]),
        ("data-dependence", &[][..]),
        ("pts-latency", &["--pts-cell", "100ms"][..]),
    ] {
        let mut args = vec!["--quick"];
        args.extend_from_slice(extra);
        let doc = study(name, &lo.dev, &dir.path().join(name), &args);
        assert_eq!(doc["target"]["name"], lo.dev.as_str(), "{name}");
        assert!(!doc["points"].as_array().unwrap().is_empty(), "{name}");
    }
}

#[test]
#[ignore = "slow, about 8 s: .ci/extra/slow-tests.sh runs it"]
fn io_scheduler_measures_every_scheduler_and_restores_the_device_s() {
    use common::loopdev;
    let _g = loopdev::serial();
    if !loopdev::is_root() {
        eprintln!("skipped: needs root for loop devices");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(lo) = loopdev::Loop::attach(&loopdev::backing(dir.path(), "sched.img", 32 << 20))
    else {
        eprintln!("skipped: no loop device");
        return;
    };
    let name = lo.dev.trim_start_matches("/dev/");
    let file = format!("/sys/block/{name}/queue/scheduler");
    let text = std::fs::read_to_string(&file).unwrap();
    let available: Vec<String> = text
        .split_whitespace()
        .map(|w| w.trim_matches(['[', ']']).to_string())
        .collect();
    // Start from a scheduler that is not the first one, to see it come back.
    let start = available.last().unwrap().clone();
    std::fs::write(&file, &start).unwrap();
    let doc = study(
        "io-scheduler",
        &lo.dev,
        &dir.path().join("out"),
        &["--quick"],
    );
    for sched in &available {
        for rw in ["read", "randread"] {
            let pts = points(&doc, &format!("{sched} {rw}"));
            assert_eq!(pts.len(), 2, "{sched} {rw}");
            assert!(value(pts[0], "mb_s") > 0.0);
        }
    }
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(after.contains(&format!("[{start}]")), "restored: {after}");
    assert!(doc["result"]["max_spread"].as_f64().is_some());
    // The emulated SSD has no Linux scheduler: a usage error, nothing written.
    let out = dir.path().join("emu");
    let o = ssdiq(&["study", "io-scheduler", "--quick", "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs a block device"));
    assert!(!out.exists());
    // A loop device is no NVMe namespace: the controller-reset study refuses it, writing nothing.
    let o = ssdiq(&[
        "study",
        "controller-reset",
        &lo.dev,
        "--quick",
        "--out",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs an NVMe namespace"));
    assert!(!out.exists());
}

#[test]
fn bad_input_is_one_line_exit_2_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = s(&out);
    for (args, needle) in [
        (vec!["study", "skw", "--out", o], "unknown study \"skw\""),
        (
            vec![
                "study",
                "latency-load",
                "--spec-rand-write",
                "fast",
                "--out",
                o,
            ],
            "invalid --spec-rand-write \"fast\"",
        ),
        (vec!["study", "skew", "emu:nosuch", "--out", o], "nosuch"),
        (
            vec!["study", "skew", "emu:default", "--size", "1G", "--out", o],
            "--size",
        ),
    ] {
        common::usage_error(&args, needle);
        assert!(!out.exists(), "{args:?} wrote {out:?}");
    }
    let file = dir.path().join("f");
    std::fs::write(&file, b"x").unwrap();
    common::usage_error(&["study", "skew", "--out", s(&file)], "not a directory");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

#[test]
fn list_names_every_study() {
    let o = ok(&["study", "list"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for name in [
        "skew",
        "readonly",
        "gc-unit",
        "latency-load",
        "block-size",
        "queue-depth",
        "streams",
        "concurrency",
        "io-scheduler",
        "empty-full",
        "variance",
        "parallelism",
        "locality",
        "permuted",
        "alignment",
        "random-fill",
        "data-dependence",
        "write-over-time",
        "controller-reset",
        "pts-iops",
        "pts-throughput",
        "pts-latency",
        "pts-wsat",
        "pts-hir",
        "pts-xsr",
        "pts-dirth",
    ] {
        assert!(text.contains(name), "{name}: {text}");
    }
    // Every title starts in one column, and sources are papers, not file names.
    let lines: Vec<&str> = text.lines().collect();
    let col = |l: &str| {
        l.find("  ")
            .map(|i| i + l[i..].len() - l[i..].trim_start().len())
    };
    let first = col(lines[0]).unwrap();
    for pair in lines.chunks(2) {
        assert_eq!(col(pair[0]), Some(first), "{}", pair[0]);
        assert_eq!(
            pair[1].len() - pair[1].trim_start().len(),
            first,
            "{}",
            pair[1]
        );
        assert!(
            !pair[1].contains(".txt") && !pair[1].contains(".md"),
            "{}",
            pair[1]
        );
    }
}

#[test]
fn sigint_keeps_the_points_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // Full-length skew on the 16 GiB default drive: 13 points of about a second each.
    let child = Command::new(env!("CARGO_BIN_EXE_ssdiq"))
        .args(["study", "skew", "--out", s(&out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(3000));
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
    let doc = json(&out.join("study.json"));
    assert_eq!(doc["partial"], true);
    let n = doc["points"].as_array().unwrap().len();
    assert!(n < 13, "{n} points");
    assert!(out.join("study.html").exists() && out.join("points.csv").exists());
}

/// `write-over-time` (the FTL thesis's Figure 5.9) on the consumer profiles: the fall comes
/// where the SLC cache (its share of the capacity, plus the write buffer) is full, and the
/// writes after it run at most half as fast; a drive without a cache does not fall.
#[test]
#[ignore = "slow, about 6 s: .ci/extra/slow-tests.sh runs it"]
fn write_over_time_falls_where_the_slc_cache_is_full() {
    let dir = tempfile::tempdir().unwrap();
    // (profile, cache share, write buffer as a share of the 16 GiB drive, the cache size the
    // thesis states: "approximately 5%, 15%, and 5%")
    for (profile, cache, buffer, stated) in [
        ("970evoplus", 0.052, 16.0 / 16384.0, 0.05),
        ("nv2", 0.157, 4.0 / 16384.0, 0.15),
        ("gsm2ne", 0.057, 4.0 / 16384.0, 0.05),
    ] {
        let doc = study(
            "write-over-time",
            &format!("emu:{profile}"),
            &dir.path().join(profile),
            &[],
        );
        let r = &doc["result"];
        let fall = r["fall_share"].as_f64().unwrap_or(f64::NAN);
        assert!(
            (fall - (cache + buffer)).abs() < 0.003,
            "{profile}: fall after {fall}, cache {cache}"
        );
        assert!(
            (fall - stated).abs() <= 0.01,
            "{profile}: fall after {fall}, the thesis states {stated}"
        );
        let after = r["after_over_initial"].as_f64().unwrap();
        assert!(after <= 0.5, "{profile}: {after}");
        assert_eq!(points(&doc, "sequential write").len(), 200, "{profile}");
    }
    let doc = study("write-over-time", "emu:default", &dir.path().join("d"), &[]);
    assert!(
        doc["result"].get("fall_share").is_none(),
        "{}",
        doc["result"]
    );
    assert!(doc["result"]["lowest_over_initial"].as_f64().unwrap() > 0.75);
}

/// Issue 33's bars for the FTL thesis's §5.2 and §5.9 on the DRAM-less profile: a random
/// fill at least 10x slower than the 970 EVO Plus's from its first 5%, most requests over
/// 1 ms, and sequential reads after it at most half those after a sequential fill; the
/// Optane's and the 970 EVO Plus's reads (512 B, its logical block, as the thesis read it)
/// do not care how they were written.
#[test]
fn random_fill_is_slow_from_the_start_on_a_dram_less_drive() {
    let dir = tempfile::tempdir().unwrap();
    let run = |target: &str, name: &str| {
        study("random-fill", target, &dir.path().join(name), &["--quick"])
    };
    let nv2 = run("emu:nv2,capacity=1GiB", "nv2");
    let evo = run("emu:970evoplus,capacity=1GiB", "evo");
    let first = |doc: &Value| value(points(doc, "random order, 4 KiB, QD 1")[0], "mb_s");
    assert!(
        first(&nv2) * 10.0 < first(&evo),
        "{} vs {}",
        first(&nv2),
        first(&evo)
    );
    let over = nv2["result"]["random_fill_over_1ms_pct"].as_f64().unwrap();
    assert!(over > 50.0, "{over}");
    let reads = nv2["result"]["reads_after_random_over_sequential_fill"]
        .as_f64()
        .unwrap();
    assert!(reads <= 0.5, "{reads}");
    let optane = run("emu:optane-m10,capacity=1GiB", "optane");
    for doc in [&optane, &evo] {
        let reads = doc["result"]["reads_after_random_over_sequential_fill"]
            .as_f64()
            .unwrap();
        assert!((reads - 1.0).abs() < 0.1, "{reads}");
    }
    let block = |doc: &Value| {
        value(
            points(doc, "sequential one-block reads, QD 64")[0],
            "read_bs_bytes",
        )
    };
    assert_eq!((block(&evo), block(&nv2)), (512.0, 4096.0));
}

/// Issue 33's locality bar (the FTL thesis §5.7: sequential reads "more than 10 times better"
/// than random): on the 970 EVO Plus, whose readahead serves sequential 4 KiB reads from DRAM.
#[test]
fn locality_is_tenfold_on_a_drive_with_readahead() {
    let dir = tempfile::tempdir().unwrap();
    let ratio = |target: &str, name: &str| {
        let doc = study("locality", target, &dir.path().join(name), &["--quick"]);
        let at_4k = |series: &str| {
            let p = points(&doc, series)
                .into_iter()
                .find(|p| p["x_label"] == "4KiB")
                .expect("a 4 KiB point");
            value(p, "mb_s")
        };
        at_4k("sequential") / at_4k("shuffled")
    };
    let with = ratio("emu:970evoplus,capacity=2GiB", "ra");
    assert!(with >= 10.0, "{with}");
    let without = ratio("emu:970evoplus,capacity=2GiB,readahead_kib=0", "none");
    assert!(without < 4.0, "{without}");
}
