//! Absurd values end cleanly or are refused at once (issue 15): each case used to run for
//! minutes, for ever, or until the allocator aborted. Every one must now give one line and
//! exit 2 within seconds, with nothing written.

use crate::common;

use common::{ok, refused_within, s, ssdiq_within};

#[test]
fn absurd_counts_and_times_are_refused() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["pattern", "uniform", "--draws", "1e20x"],
            &["--draws", "1e20x"],
        ),
        (
            &["pattern", "uniform", "--draws", "200000000000"],
            &["--draws", "at most"],
        ),
        (
            &["sim", "--writes", "1e99x"],
            &["--writes", "1e99x", "page writes"],
        ),
        (
            &["sim", "--gc", "dchoices:99999999"],
            &["dchoices:99999999", "blocks"],
        ),
        (
            &[
                "io",
                "emu:default",
                "--rw",
                "randwrite",
                "--time",
                "99999999999999999999s",
            ],
            &["99999999999999999999s", "too large"],
        ),
        (
            &["io", "emu:default", "--rw", "randwrite", "--time", "31d"],
            &["--time"],
        ),
        (
            &["io", "emu:default", "--rw", "randwrite", "--time", "1000h"],
            &["--time", "30 days"],
        ),
        (
            &[
                "io",
                "emu:default",
                "--rw",
                "randwrite",
                "--time",
                "1s",
                "--rate",
                "0.000000001",
            ],
            &["--rate", "longer than --time"],
        ),
        (
            &[
                "io",
                "emu:default",
                "--rw",
                "randwrite",
                "--rate",
                "0.000000001",
            ],
            &["--rate", "years"],
        ),
        (
            &["run", "--quick", "--spec-rand-write", "1e-300"],
            &["--spec-rand-write", "1e-300"],
        ),
        (
            &["run", "--quick", "--spec-seq-write", "1e300"],
            &["--spec-seq-write"],
        ),
    ];
    for (args, needles) in cases {
        refused_within(args, &[], 20, needles);
    }
}

#[test]
fn rate_and_thread_limits_on_files() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    let f = s(&f);
    refused_within(
        &[
            "io", f, "--rw", "randread", "--time", "2s", "--rate", "0.01",
        ],
        &[],
        10,
        &["--rate", "longer than --time 2.0 s"],
    );
    refused_within(
        &[
            "io",
            f,
            "--rw",
            "randread",
            "--threads",
            "10000",
            "--time",
            "1s",
        ],
        &[],
        10,
        &["--threads \"10000\"", "at most 1024"],
    );
    // At the limit, setup is linear in the threads: 1024 threads start and stop.
    let o = ssdiq_within(
        &[
            "io",
            f,
            "--rw",
            "randread",
            "--threads",
            "1024",
            "--time",
            "1s",
            "--engine",
            "psync",
            "--buffered",
        ],
        &[],
        60,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn memory_is_estimated_before_allocating() {
    refused_within(
        &["sim", "--capacity", "15TiB", "--block", "64MiB"],
        &[("SSDIQ_MEMORY", "8GiB")],
        20,
        &["needs about", "GiB of memory", "8.00 GiB available"],
    );
    refused_within(
        &[
            "io",
            "emu:default,capacity=14TiB",
            "--rw",
            "randread",
            "--time",
            "1s",
        ],
        &[("SSDIQ_MEMORY", "8GiB")],
        20,
        &["emu:default,capacity=14TiB", "needs about", "available"],
    );
    refused_within(
        &["run", "emu:default,capacity=14TiB", "--quick"],
        &[("SSDIQ_MEMORY", "8GiB")],
        20,
        &["needs about", "available"],
    );
    refused_within(
        &["pattern", "uniform", "--pages", "2G"],
        &[("SSDIQ_MEMORY", "1GiB")],
        20,
        &["needs about", "available"],
    );
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("f");
    refused_within(
        &[
            "io",
            s(&f),
            "--size",
            "64M",
            "--rw",
            "randread",
            "--bs",
            "64M",
            "--qd",
            "64",
            "--threads",
            "8",
            "--time",
            "1s",
        ],
        &[("SSDIQ_MEMORY", "8GiB")],
        20,
        &["8 threads x --qd 64 x --bs 64MiB needs about", "available"],
    );
    assert!(!f.exists(), "nothing created");
    // Without the override the machine's own figure is used, and named.
    refused_within(
        &["sim", "--capacity", "15TiB"],
        &[],
        20,
        &["needs about", "available"],
    );
}

#[test]
fn a_sweep_runs_within_the_memory_budget() {
    // Each run needs about 1.05 MiB; with 1.56 MiB one runs at a time, and all finish.
    let o = ssdiq_within(
        &[
            "sim",
            "--capacity",
            "512MiB",
            "--block",
            "1MiB",
            "--writes",
            "1x",
            "--seed",
            "1,2,3,4",
        ],
        &[("SSDIQ_MEMORY", "1600KiB")],
        60,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("at most 1 at a time"), "{out}");
    let table_rows = out
        .lines()
        .filter(|l| {
            l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains("greedy")
        })
        .count();
    assert_eq!(table_rows, 4, "{out}");
    // A budget too small for even one run is refused before the sweep starts.
    refused_within(
        &[
            "sim",
            "--capacity",
            "512MiB",
            "--block",
            "1MiB",
            "--seed",
            "1,2",
        ],
        &[("SSDIQ_MEMORY", "1MiB")],
        20,
        &["needs about", "1.00 MiB available"],
    );
    ok(&[
        "sim",
        "--capacity",
        "64MiB",
        "--block",
        "1MiB",
        "--writes",
        "1x",
        "--seed",
        "1,2",
        "-q",
    ]);
}

#[test]
fn a_ctrl_c_during_setup_ends_at_once() {
    // Building a 512 GiB emulated drive takes seconds; a Ctrl-C meanwhile ends the command
    // at once (nothing is written yet) instead of after the setup.
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.json");
    let mut child = std::process::Command::new(common::bin())
        .args([
            "io",
            "emu:default,capacity=512GiB",
            "--rw",
            "randread",
            "--time",
            "1s",
            "--json",
            s(&out),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let t0 = std::time::Instant::now();
    assert!(std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let mut code = None;
    while t0.elapsed() < std::time::Duration::from_secs(20) {
        if let Some(st) = child.try_wait().unwrap() {
            code = Some(st.code());
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let waited = t0.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(code, Some(Some(130)), "exit after SIGINT");
    assert!(
        waited < std::time::Duration::from_millis(1000),
        "a Ctrl-C during setup took {waited:?}"
    );
    assert!(!out.exists());
}
