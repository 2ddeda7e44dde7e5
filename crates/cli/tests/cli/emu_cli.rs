//! `ssdiq io` and `ssdiq info` on emulated targets: virtual clock, device counters, the same
//! JSON key structure as real targets (golden), one-line usage errors.

use crate::common;

use common::{assert_golden_shape, usage_error};
use serde_json::Value;

/// The stdout of a run that must succeed.
fn ok(args: &[&str]) -> String {
    String::from_utf8_lossy(&common::ok(args).stdout).into_owned()
}

const T: &str = "emu:default,capacity=256MiB";

#[test]
fn io_on_the_emulated_drive_reports_virtual_time_and_waf() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("r.json");
    let out = ok(&[
        "io",
        T,
        "--rw",
        "randrw:50",
        "--qd",
        "2",
        "--io-size",
        "1M",
        "--probe",
        "read",
        "--rate",
        "100k",
        "--fill",
        "seq",
        "--json",
        j.to_str().unwrap(),
    ]);
    assert!(out.contains("engine=emulated (virtual time)"), "{out}");
    assert!(out.contains("measured WAF"), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(v["clock"], "virtual");
    assert_eq!(v["job"]["range_bytes"], 256u64 << 20);
    assert!(v["device"]["host_bytes"].as_u64().unwrap() >= 512 << 10);
    assert!(v["device"]["waf"].as_f64().unwrap() >= 1.0);
    assert_golden_shape(&v, "io_keys_emu.json");
}

#[test]
fn a_waf_that_lags_the_write_buffer_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("r.json");
    // 100 MiB of sequential writes into a 64 MiB buffer: most of it is not programmed yet.
    let args = |size: &'static str, rw: &'static str| {
        [
            "io",
            T,
            "--rw",
            rw,
            "--bs",
            "128k",
            "--io-size",
            size,
            "--json",
        ]
    };
    let mut a = args("100MiB", "write").to_vec();
    a.push(j.to_str().unwrap());
    let out = ok(&a);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    let host = v["device"]["host_bytes"].as_i64().unwrap();
    let media = v["device"]["media_bytes"].as_i64().unwrap();
    let buffered = v["device"]["buffered_change_bytes"].as_i64().unwrap();
    assert_eq!(
        host - media,
        buffered,
        "what the counters miss is what is buffered"
    );
    let w = v["device"]["waf"].as_f64().unwrap();
    assert!(w < 0.5, "{w}");
    let share = (buffered as f64 / host as f64 * 100.0).round();
    assert!(
        out.contains(&format!(
            "measured WAF: {w:.3} (lags: {share:.0}% of these writes"
        )),
        "{out}"
    );
    // Over many buffers' worth of writes the lag is below the 2% mark: no note.
    let mut a = args("12GiB", "randwrite").to_vec();
    a.push(j.to_str().unwrap());
    let out = ok(&a);
    assert!(!out.contains("lags"), "{out}");
}

#[test]
fn time_bounds_are_virtual_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("r.json");
    ok(&[
        "io",
        T,
        "--rw",
        "randread",
        "--time",
        "3s",
        "--json",
        j.to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    let e = v["elapsed_s"].as_f64().unwrap();
    assert!((3.0..3.001).contains(&e), "{e}");
    let secs: Vec<u64> = v["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["second"].as_u64().unwrap())
        .collect();
    // I/Os in flight at the deadline complete just after it, in second 3.
    assert_eq!(&secs[..3], &[0, 1, 2]);
    assert!(secs.len() <= 4);
}

#[test]
fn info_shows_geometry_spec_and_zero_counters() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("i.json");
    let out = ok(&["info", "emu:highop", "--json", j.to_str().unwrap()]);
    assert!(out.contains("OP 28."), "{out}");
    assert!(out.contains("host written     0 B"), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(v["kind"], "info");
    assert_eq!(v["info"]["source"], "emulated");
    assert_eq!(v["emulated"]["geometry"]["dies"], 16);
    assert!(v["emulated"]["spec"]["rand_write_kiops"].as_f64().unwrap() > 100.0);
    // What the scaled drive changed to stand for its full-size drive, and the full-size values.
    assert!(
        out.contains("16GiB logical stands for a 960 GB drive"),
        "{out}"
    );
    assert!(out.contains("full size 1341MiB (447 units)"), "{out}");
    let sc = &v["emulated"]["scaling"];
    assert_eq!(sc["full_units_per_block"], 447);
    assert_eq!(sc["units_per_block"], 8);
    assert_eq!(sc["full_erase_us"], 3500.0);
    assert_eq!(sc["superblocks"], sc["full_superblocks"]);
    // A drive at its full size is not scaled.
    let out = ok(&["info", "emu:default,full_capacity=16GiB,units_per_block=8"]);
    assert!(!out.contains("stands for"), "{out}");
}

#[test]
fn emulated_usage_errors() {
    usage_error(&["io", "emu:nope", "--rw", "read"], "unknown emu profile");
    usage_error(
        &["io", "emu:default,capacity=lots", "--rw", "read"],
        "invalid emu value capacity=lots",
    );
    usage_error(
        &["info", "emu:default,full_capacity=big"],
        "invalid emu value full_capacity=big",
    );
    usage_error(
        &["info", "emu:default,read_retry_rate=2"],
        "invalid read_retry_rate \"2\"",
    );
    usage_error(&["io", T, "--bs", "512"], "4096-byte logical blocks");
    usage_error(&["io", T, "--size", "1G"], "beyond the emulated drive");
    usage_error(
        &["io", T, "--rw", "write", "--allow-destroy", "/dev/x"],
        "nothing real is written",
    );
    usage_error(
        &["io", T, "--rw", "write", "--fdp-pid", "1"],
        "identifier 1 is not below the emulated drive's 1 placement stream (drive.streams)",
    );
    usage_error(
        &["io", T, "--rw", "randread", "--verify"],
        "add --fill seq, or writes",
    );
    // The host's I/O path does not exist here: asked for, it is refused, not ignored.
    for flag in [
        &["--engine", "libaio"][..],
        &["--ioengine", "psync"],
        &["--hipri"],
        &["--sqpoll"],
        &["--fixedbufs"],
        &["--registerfiles"],
        &["--buffered"],
    ] {
        let mut a = vec!["io", T, "--rw", "randread", "--time", "1s"];
        a.extend_from_slice(flag);
        let name = if flag[0] == "--ioengine" {
            "--engine"
        } else {
            flag[0]
        };
        usage_error(
            &a,
            &format!("invalid {name} for {T}: the emulated drive runs in virtual time"),
        );
    }
    let streams = format!("{T},streams=3");
    usage_error(
        &[
            "io",
            &streams,
            "--rw",
            "write",
            "--fdp-pid",
            "0-50%=1,50-100%=3",
        ],
        "expected identifiers below 3",
    );
    usage_error(
        &[
            "io",
            &streams,
            "--rw",
            "write",
            "--fdp-pid",
            "0-60%=1,50-100%=2",
        ],
        "overlap",
    );
}

/// `--verify` on the emulated drive, which keeps generations, not data: a mixed job under GC
/// checks its reads and reads its range back, and finds every block as last written.
#[test]
fn verify_on_the_emulated_drive_checks_reads_and_the_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("v.json");
    ok(&[
        "io",
        T,
        "--rw",
        "randrw:50",
        "--pattern",
        "zipf:0.9",
        "--fill",
        "seq",
        "--qd",
        "32",
        "--io-size",
        "768MiB",
        "--verify",
        "--json",
        j.to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    let ver = &v["verify"];
    assert_eq!(ver["mismatches"], 0, "{ver}");
    let (checked, back) = (
        ver["checked"].as_u64().unwrap(),
        ver["read_back"].as_u64().unwrap(),
    );
    // The fill's blocks carry generations too: the read-back covers the whole range.
    assert_eq!(back, (256 << 20) / 4096, "{ver}");
    assert!(checked > back + 10_000, "{ver}");
    assert!(
        v["device"]["waf"].as_f64().unwrap() > 1.5,
        "GC ran: {}",
        v["device"]
    );
    // A job that only reads checks what the fill wrote.
    let o = ok(&[
        "io",
        T,
        "--rw",
        "randread",
        "--fill",
        "seq",
        "--io-size",
        "64MiB",
        "--verify",
    ]);
    assert!(
        o.contains("0 mismatches") && !o.contains("verify: 0 blocks"),
        "{o}"
    );
}

/// `--fdp-pid` by region on an emulated drive with placement streams: a trace that writes a
/// fifth of the drive with 90% of its writes (hot) and the rest with 10% (cold) amplifies
/// less when the hot region has a stream of its own; every write lands in a region.
#[test]
fn fdp_regions_keep_hot_and_cold_data_apart_on_an_emulated_drive() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("hotcold.csv");
    let pages: u64 = (256 << 20) / 4096;
    let hot = pages / 5;
    let mut text = String::new();
    let mut x: u64 = 1;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    // MSR Cambridge lines: time (100 ns), host, disk, type, offset, size, response time.
    for i in 0..pages * 6 {
        let p = if i < pages {
            i
        } else if next() % 10 < 9 {
            next() % hot
        } else {
            hot + next() % (pages - hot)
        };
        text.push_str(&format!("{},h,0,Write,{},4096,0\n", i * 10, p * 4096));
    }
    std::fs::write(&trace, text).unwrap();
    let target = format!("{T},streams=3");
    let waf = |extra: &[&str], name: &str| {
        let j = dir.path().join(name);
        let mut args = vec![
            "io",
            &target,
            "--trace",
            trace.to_str().unwrap(),
            "--trace-format",
            "msr",
            "--qd",
            "32",
            "--replay-speed",
            "max",
            "--json",
            j.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        ok(&args);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
        (v["device"]["waf"].as_f64().expect("a measured WAF"), v)
    };
    let (mixed, _) = waf(&[], "mixed.json");
    let (apart, v) = waf(&["--fdp-pid", "0-20%=1,20-100%=2"], "apart.json");
    let regions = v["job"]["fdp_regions"].as_array().expect("the regions");
    assert_eq!(regions.len(), 2, "{v}");
    assert_eq!(regions[0]["pid"], 1);
    assert_eq!(regions[1]["to_bytes"], 256u64 << 20);
    assert!(
        apart < 0.95 * mixed,
        "hot data apart: WAF {apart}, mixed: {mixed}"
    );
    // The job line names the regions, as it names the engine's options.
    let o = ok(&[
        "io",
        &target,
        "--rw",
        "randwrite",
        "--time",
        "1s",
        "--fdp-pid",
        "0-20%=1,20-100%=2",
    ]);
    assert!(
        o.contains(" fdp-pid=0-52428KiB=1,52428KiB-256MiB=2\n"),
        "{o}"
    );
}

/// Paced probes sample at their own rate and leave the background load its rate: in virtual
/// time both hold exactly, so the test can ask for 1%.
#[test]
fn paced_probes_keep_their_rate_beside_a_rate_limited_load() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("r.json");
    ok(&[
        "io",
        T,
        "--rw",
        "randwrite",
        "--qd",
        "8",
        "--time",
        "3s",
        "--rate",
        "40MB/s",
        "--probe",
        "read,write",
        "--probe-rate",
        "500",
        "--json",
        j.to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(v["job"]["probe_rate"]["iops"], 500.0);
    for p in ["read", "write"] {
        let iops = v["probes"][p]["iops"].as_f64().unwrap();
        assert!((iops - 500.0).abs() < 5.0, "{p} probe at {iops} IOPS");
    }
    let mb_s = v["ops"]["write"]["mb_s"].as_f64().unwrap();
    assert!((mb_s - 40.0).abs() < 0.4, "background load {mb_s} MB/s");
    usage_error(
        &[
            "io",
            T,
            "--rw",
            "randread",
            "--time",
            "1s",
            "--probe",
            "read",
            "--probe-rate",
            "0",
        ],
        "--probe-rate",
    );
}

#[test]
fn a_full_rewrite_window_absorbs_a_small_hot_area_the_scaled_one_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let waf = |window: &str| {
        let j = dir.path().join(format!("{window}.json"));
        let target = format!("emu:default,capacity=1GiB,rewrite_window={window}");
        ok(&[
            "io",
            &target,
            "--rw",
            "randwrite",
            "--size",
            "256k",
            "--io-size",
            "64M",
            "--qd",
            "4",
            "--json",
            common::s(&j),
        ]);
        common::json(&j)["device"]["waf"].as_f64().unwrap()
    };
    // A 256 KiB area rewritten over and over: at 1 GiB the scaled window is about 70 KiB of
    // the 64 MiB buffer, the full window all of it.
    let (scaled, full) = (waf("scaled"), waf("full"));
    assert!(full < 0.8 * scaled, "full {full} vs scaled {scaled}");
    usage_error(
        &[
            "io",
            "emu:default,rewrite_window=half",
            "--rw",
            "read",
            "--time",
            "1s",
        ],
        "invalid rewrite_window \"half\": expected scaled, full or none",
    );
}

/// The device counters of an emulated `io` job bracket it: `before` holds the drive's
/// counters when the job starts, `after` when it ends, also for a job of a few virtual
/// milliseconds (issue 50 reported them equal on a short job; not reproduced, held here).
#[test]
fn device_counters_bracket_a_short_job() {
    let d = tempfile::tempdir().unwrap();
    for (time, fill) in [("10ms", false), ("1s", true)] {
        let j = d.path().join("c.json");
        let mut args = vec![
            "io",
            "emu:default,capacity=1GiB",
            "--rw",
            "randwrite",
            "--time",
            time,
            "--json",
            j.to_str().unwrap(),
        ];
        if fill {
            args.extend(["--fill", "seq"]);
        }
        ok(&args);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
        let c = &v["device"]["counters"];
        let host = |k: &str| c[k]["host_bytes"].as_u64().unwrap();
        let written = v["ops"]["write"]["bytes"].as_u64().unwrap();
        assert!(written > 0, "{v}");
        assert_eq!(host("after") - host("before"), written, "{time}: {c}");
        if fill {
            assert_eq!(
                host("before"),
                1 << 30,
                "the fill wrote the drive once: {c}"
            );
        }
    }
}
