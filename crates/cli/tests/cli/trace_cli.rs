//! End-to-end tests of traces: `ssdiq trace stats|check`, `ssdiq sim --trace` and
//! `ssdiq io TARGET --trace`, on small traces written by the tests.

use crate::common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{assert_golden_shape, bin, json, ok, s, ssdiq, usage_error};

/// An MSR Cambridge trace: `n` requests, 1 ms apart, 70% writes, 4-32 KiB, a hot set of
/// 64 pages taking 80% of the requests, over 4096 pages.
fn msr(dir: &Path, n: u64) -> PathBuf {
    let mut t = String::new();
    let mut x = 12345u64;
    for i in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = x >> 24;
        // Independent decisions from separate bits: hot or not, op, size, page.
        let page = if (r & 0xff) % 10 < 8 {
            (r >> 20) % 64
        } else {
            (r >> 20) % 4096
        };
        let op = if ((r >> 8) & 0xff) % 10 < 7 {
            "Write"
        } else {
            "Read"
        };
        let len = 4096 << ((r >> 16) % 4);
        let _ = writeln!(
            t,
            "{},hm,0,{op},{},{len},1000",
            128_166_372_003_061_629u64 + i * 10_000,
            page * 4096
        );
    }
    let p = dir.join("hm_0.csv");
    std::fs::write(&p, t).unwrap();
    p
}

#[test]
fn trace_stats_prints_and_writes_json() {
    let dir = tempfile::tempdir().unwrap();
    let t = msr(dir.path(), 5000);
    let j = dir.path().join("st.json");
    let out = ok(&["trace", "stats", s(&t), "--json", s(&j)]);
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "(msr): 5000 requests in 5000 lines over 4.999 s",
        "footprint:",
        "inter-arrival us: mean 1000.0",
        "write skew:",
        "top 1% (",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    let doc = json(&j);
    assert_eq!(doc["schema"], ssdiq_schema::SCHEMA);
    assert_eq!(doc["kind"], "trace-stats");
    let tr = &doc["trace"];
    assert_eq!(tr["requests"], 5000);
    assert_eq!(tr["format"], "msr");
    let w = tr["write"]["requests"].as_u64().unwrap();
    assert!((3300..3700).contains(&w), "{w}");
    // 80% of the requests go to 64 pages (with their 4-32 KiB spans, ~3% of the ~2000
    // written pages): the top 10% of written pages take most page writes.
    let top = tr["write_skew"]["top"].as_array().unwrap();
    assert!(top[3]["share"].as_f64().unwrap() > 0.6, "{top:?}");
    assert_golden_shape(&doc, "trace_stats_keys.json");
    let out = ok(&["trace", "check", s(&t)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("msr, 5000 lines, 5000 requests"), "{text}");
}

#[test]
fn bad_traces_are_one_line_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "128166372003061629,hm,0,Write,0,4096,1\n128166372003061639,hm,0,Wrote,0,4096,1\n",
    )
    .unwrap();
    let j = dir.path().join("out.json");
    let b = s(&bad);
    let js = s(&j);
    usage_error(
        &["trace", "stats", b, "--json", js],
        "line 2: expected MSR Cambridge CSV",
    );
    usage_error(&["trace", "stats", b], "Type is not Read or Write");
    usage_error(&["trace", "check", b], "bad.csv\" line 2");
    usage_error(&["sim", "--trace", b, "--json", js], "line 2");
    usage_error(&["io", "emu:default", "--trace", b, "--json", js], "line 2");
    usage_error(
        &["trace", "stats", b, "--format", "spc"],
        "line 1: expected SPC CSV",
    );
    usage_error(
        &["trace", "stats", b, "--format", "csv"],
        "invalid trace format \"csv\"",
    );
    usage_error(
        &["trace", "stats", s(&dir.path().join("none.csv"))],
        "none.csv",
    );
    usage_error(
        &["sim", "--trace", b, "--trace-map", "fold"],
        "--trace-map \"fold\"",
    );
    let t = msr(dir.path(), 100);
    usage_error(
        &["trace", "stats", s(&t), "--device", "hm,9"],
        "no request of device \"hm,9\"",
    );
    usage_error(
        &["io", "emu:default", "--trace", s(&t), "--replay-speed", "0"],
        "--replay-speed \"0\"",
    );
    assert!(!j.exists());
}

#[test]
fn detection_names_the_format_a_bad_line_is_shaped_like_and_reads_past_a_bom() {
    let dir = tempfile::tempdir().unwrap();
    // One MSR line with a bad offset: the error is MSR's, not the first format tried.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "1,h,0,Write,x,4096,0\n").unwrap();
    usage_error(
        &["trace", "stats", bad.to_str().unwrap()],
        "closest: msr, whose line 1 fails",
    );
    // A spreadsheet's UTF-8 byte order mark before the first line.
    let bom = dir.path().join("bom.csv");
    std::fs::write(
        &bom,
        b"\xef\xbb\xbf10,h,0,Write,0,4096,0\n20,h,0,Read,0,4096,0\n",
    )
    .unwrap();
    let out = ok(&["trace", "stats", bom.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(msr): 2 requests in 2 lines"), "{text}");
}

#[test]
fn a_trace_of_several_devices_needs_a_choice_and_a_short_one_says_gc_never_ran() {
    let dir = tempfile::tempdir().unwrap();
    let t = msr(dir.path(), 2_000);
    // The same requests again as a second disk.
    let text = std::fs::read_to_string(&t).unwrap();
    let two = dir.path().join("two.csv");
    std::fs::write(&two, format!("{text}{}", text.replace(",hm,0,", ",hm,1,"))).unwrap();
    let sim = |trace: &Path, extra: &[&str]| {
        let mut a = vec![
            "sim",
            "--capacity",
            "32MiB",
            "--block",
            "128KiB",
            "--trace",
            s(trace),
        ];
        a.extend_from_slice(extra);
        ssdiq(&a)
    };
    let out = sim(&two, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("holds 2 devices, hm,0 (2000 requests), hm,1 (2000 requests)")
            && err.contains("--trace-device"),
        "{err}"
    );
    for device in ["hm,1", "all"] {
        assert!(
            sim(&two, &["--trace-device", device]).status.success(),
            "{device}"
        );
    }
    // 200 requests write about 350 pages, a third of the drive's 1024 free ones: GC never
    // runs, and the table says so.
    let short_dir = dir.path().join("short");
    std::fs::create_dir(&short_dir).unwrap();
    let out = sim(&msr(&short_dir, 200), &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1.0000n") && text.contains("n = GC never ran"),
        "{text}"
    );
}

#[test]
fn the_sim_page_of_a_trace_names_it_and_tells_runs_apart_by_what_varies() {
    let dir = tempfile::tempdir().unwrap();
    let t = msr(dir.path(), 20_000);
    let html = dir.path().join("s.html");
    ok(&[
        "sim",
        "--capacity",
        "32MiB",
        "--block",
        "128KiB",
        "--trace",
        s(&t),
        "--op",
        "10%,25%",
        "--gc",
        "greedy,fifo",
        "--writes",
        "2pass",
        "--html",
        s(&html),
        "--quiet",
    ]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("hm_0.csv (msr, map compact)"),
        "the trace is named"
    );
    assert!(
        page.contains("32MiB physical, page 4KiB, block 128KiB"),
        "the geometry"
    );
    // Runs are told apart by policy (OP is each colour's line), not by drive writes, which
    // differ between OPs for the same passes.
    assert!(
        page.contains("<td>greedy, OP 10.0%</td>"),
        "runs labelled by OP"
    );
    assert!(
        !page.contains("x</td>") && !page.contains("passes</td>"),
        "not by their writes"
    );
    assert!(
        !page.contains("greedy model, uniform"),
        "no uniform-write model beside a trace"
    );
}

#[test]
fn sim_runs_a_trace_and_records_how() {
    let dir = tempfile::tempdir().unwrap();
    let t = msr(dir.path(), 20_000);
    let j = dir.path().join("sim.json");
    let out = ok(&[
        "sim",
        "--capacity",
        "32MiB",
        "--block",
        "128KiB",
        "--trace",
        s(&t),
        "--gc",
        "greedy,cost-benefit",
        "--writes",
        "1pass,2pass",
        "--json",
        s(&j),
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("trace:hm_0.csv"))
            .count(),
        4,
        "{text}"
    );
    let doc = json(&j);
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    let tr = &runs[0]["params"]["trace"];
    assert_eq!(tr["map"], "compact");
    assert_eq!(tr["format"], "msr");
    let pass = tr["pass_page_writes"].as_u64().unwrap();
    assert_eq!(runs[0]["host_writes"].as_u64().unwrap(), pass);
    assert_eq!(runs[1]["host_writes"].as_u64().unwrap(), 2 * pass);
    assert_eq!(runs[1]["params"]["trace"]["passes"], 2.0);
    for r in runs {
        assert!(r["waf"].as_f64().unwrap() >= 1.0, "{r}");
    }
    assert_golden_shape(&runs[0]["params"], "sim_trace_params_keys.json");
}

#[test]
fn io_replays_a_trace_on_a_file_and_on_the_emulated_drive() {
    let dir = tempfile::tempdir().unwrap();
    let t = msr(dir.path(), 2000);
    let img = dir.path().join("replay.img");
    let j = dir.path().join("io.json");
    // A new file is sized to the trace's span; as fast as possible.
    ok(&[
        "io",
        s(&img),
        "--trace",
        s(&t),
        "--qd",
        "4",
        "--replay-speed",
        "max",
        "--json",
        s(&j),
    ]);
    // Pages 0..4096 and requests of up to 32 KiB: the span, rounded up to whole blocks.
    let len = std::fs::metadata(&img).unwrap().len();
    assert!(
        len.is_multiple_of(4096) && (4000 * 4096..=4103 * 4096).contains(&len),
        "{len}"
    );
    let doc = json(&j);
    assert_eq!(doc["job"]["rw"], "replay");
    let r = &doc["replay"];
    assert_eq!(r["records"], 2000);
    assert_eq!(r["records_replayed"], 2000);
    assert_eq!(r["requests"], 2000);
    let ios =
        doc["ops"]["read"]["ios"].as_u64().unwrap() + doc["ops"]["write"]["ios"].as_u64().unwrap();
    assert_eq!(ios, 2000);
    // At recorded timing on the emulated drive (virtual time), the replay takes the trace's
    // 1.999 s and no request starts late.
    ok(&[
        "io",
        "emu:default",
        "--trace",
        s(&t),
        "--qd",
        "8",
        "--json",
        s(&j),
    ]);
    let doc = json(&j);
    let elapsed = doc["elapsed_s"].as_f64().unwrap();
    assert!((1.999..2.01).contains(&elapsed), "{elapsed}");
    assert_eq!(doc["replay"]["late"], 0);
    // Twice as fast: half the time.
    ok(&[
        "io",
        "emu:default",
        "--trace",
        s(&t),
        "--replay-speed",
        "2x",
        "--json",
        s(&j),
    ]);
    let elapsed = json(&j)["elapsed_s"].as_f64().unwrap();
    assert!((0.9995..1.01).contains(&elapsed), "{elapsed}");
    // The trace does not fit a 1 MiB target as it is; compact packs it.
    usage_error(
        &[
            "io",
            s(&dir.path().join("small.img")),
            "--size",
            "1MiB",
            "--trace",
            s(&t),
        ],
        "beyond",
    );
    let out = ssdiq(&[
        "io",
        s(&dir.path().join("small.img")),
        "--size",
        "1MiB",
        "--trace",
        s(&t),
        "--trace-map",
        "modulo",
        "--replay-speed",
        "max",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("map modulo"));
}

/// A trace is read more than once: a pipe is refused (it lost what format detection read:
/// 17,335 of 20,000 requests were counted), a file given as stdin is read whole.
#[test]
fn a_piped_trace_is_refused_and_a_redirected_file_read_whole() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t.csv");
    let lines: String = (0..20_000)
        .map(|i| format!("{},h,0,Write,{},4096,0\n", 10 + i * 10, (i % 5000) * 4096))
        .collect();
    std::fs::write(&t, &lines).unwrap();
    let mut child = Command::new(bin())
        .args(["trace", "stats", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(lines.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    let out = Command::new(bin())
        .args(["trace", "stats", "/dev/stdin"])
        .stdin(std::fs::File::open(&t).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("20000 requests"));
}

/// A timed replay is a job like any other: at most 30 days, refused at once beyond (it used to
/// spin at 100% CPU, deaf to SIGINT, at --replay-speed 1e-10).
#[test]
fn a_replay_longer_than_a_job_may_run_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t.csv");
    std::fs::write(&t, "0,h,0,Write,0,4096,0\n200000,h,0,Write,4096,4096,0\n").unwrap();
    let long = d.path().join("long.csv");
    std::fs::write(
        &long,
        "0,h,0,Write,0,4096,0\n34560000000000,h,0,Write,4096,4096,0\n",
    )
    .unwrap();
    for (trace, speed) in [(&t, "1e-10"), (&long, "1")] {
        common::refused_within(
            &[
                "io",
                "emu:default",
                "--trace",
                s(trace),
                "--replay-speed",
                speed,
            ],
            &[],
            10,
            &["--replay-speed", "longer than a job may run"],
        );
    }
}

/// Devices are looked up in constant time: 300,000 of them (one request each, a 16 MB MSR
/// trace) took over a minute when every new line scanned the devices seen so far (issue 50).
#[test]
fn trace_stats_is_linear_in_devices() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("many.csv");
    let mut text = String::with_capacity(300_000 * 40);
    for i in 0..300_000u64 {
        let _ = writeln!(text, "{},h{i},0,Write,{},4096,0", 10 + i, i * 4096);
    }
    std::fs::write(&f, text).unwrap();
    let out = common::ssdiq_within(&["trace", "stats", s(&f), "--trace-device", "all"], &[], 60);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("300000 devices"));
}

/// A timed replay that starts requests late says why: every slot was busy (issue 50).
#[test]
fn a_late_replay_says_to_raise_the_queue_depth() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("burst.csv");
    // 200 writes of 64 KiB, all recorded at once: at --qd 1 they queue behind each other.
    let mut text = String::new();
    for i in 0..200u64 {
        let _ = writeln!(text, "10,h,0,Write,{},65536,0", i * 65536);
    }
    std::fs::write(&f, text).unwrap();
    let o = ok(&["io", "emu:default,capacity=1GiB", "--trace", s(&f)]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("started more than 1 ms late"), "{out}");
    assert!(out.contains("raise --qd"), "{out}");
    let o = ok(&[
        "io",
        "emu:default,capacity=1GiB",
        "--trace",
        s(&f),
        "--qd",
        "256",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("raise --qd"), "{out}");
}
