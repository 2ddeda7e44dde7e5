//! The table of docs/reliability.md: every bad, absurd or dangerous input tried on ssdiq, run
//! again here, with what it does now (exit code, the last line on stderr, and what became of
//! the files it pointed at). The test fails when the document no longer says what the binary
//! does; `UPDATE_DOCS=1 cargo test --release -p ssdiq --test reliability_table` rewrites the
//! table (review the diff).
//!
//! Each case runs in a fresh directory (paths in the table are relative to it) holding
//! `data.img` (1 MiB), `big.img` (16 MiB), `t.csv` (an MSR trace), `huge.csv` (one write of 1 TiB), `sample.json` (a run
//! result), `adir/`, a FIFO
//! `fifo`, and symlinks `null` -> /dev/null and `full` -> /dev/full. `LOOP` is a loop device
//! over a 16 MiB file, `FREELOOP` an unattached one, `ro/` a read-only tmpfs: those rows need
//! root; without it, and for rows marked slow (unless SSDIQ_SLOW_CASES=1 or UPDATE_DOCS=1),
//! the document's row is kept as it is.

use crate::common;

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::loopdev::{is_root, serial, Loop};

type Note = fn(&Path, &Output) -> String;

struct Case {
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    /// What it did before the fix (issue 15, or 30 for its rows; empty for inputs tried
    /// first with the fixes).
    was: &'static str,
    slow: bool,
    note: Option<Note>,
}

const fn case(args: &'static [&'static str], was: &'static str) -> Case {
    Case {
        args,
        env: &[],
        was,
        slow: false,
        note: None,
    }
}

const MEM16: &[(&str, &str)] = &[("SSDIQ_MEMORY", "16GiB")];

fn unchanged(name: &'static str) -> Note {
    // Notes are plain fns; the names used are few, so one per file.
    match name {
        "big.img" => |d, _| same(d, "big.img", 16 << 20),
        _ => |d, _| same(d, "data.img", 1 << 20),
    }
}

fn pattern_of(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 251) as u8).collect()
}

fn same(d: &Path, name: &str, len: usize) -> String {
    if std::fs::read(d.join(name)).ok() == Some(pattern_of(len)) {
        format!("{name} unchanged")
    } else {
        format!("{name} CHANGED")
    }
}

fn link_kept(d: &Path, _: &Output) -> String {
    let null = std::fs::symlink_metadata(d.join("null")).unwrap();
    let dev = std::fs::metadata("/dev/null").unwrap();
    if null.file_type().is_symlink() && dev.file_type().is_char_device() {
        "`null` is still a symlink to /dev/null".into()
    } else {
        "`null` REPLACED".into()
    }
}

fn fifo_kept(d: &Path, _: &Output) -> String {
    let f = std::fs::symlink_metadata(d.join("fifo")).unwrap();
    let got = std::fs::read_to_string(d.join(".fifo-read")).unwrap_or_default();
    match (f.file_type().is_fifo(), got.contains("\"kind\"")) {
        (true, true) => "the JSON came through the FIFO, still a FIFO".into(),
        (true, false) => "still a FIFO, but nothing came through".into(),
        _ => "the FIFO was REPLACED".into(),
    }
}

fn json_on_stdout(_: &Path, o: &Output) -> String {
    if String::from_utf8_lossy(&o.stdout).contains("\"schema\"") {
        "the JSON follows the summary on stdout".into()
    } else {
        "no JSON on stdout".into()
    }
}

fn no_dev_file(_: &Path, _: &Output) -> String {
    if Path::new("/dev/ssdiq-typo0n1").exists() {
        "/dev/ssdiq-typo0n1 CREATED".into()
    } else {
        "nothing created under /dev".into()
    }
}

fn top_share(_: &Path, o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    out.lines()
        .find(|l| l.starts_with("top "))
        .map(|l| format!("`{}`", l.split_whitespace().collect::<Vec<_>>().join(" ")))
        .unwrap_or_default()
}

fn sweep_line(_: &Path, o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    out.lines()
        .find(|l| l.starts_with("sweep of"))
        .map(|l| {
            // The thread count is the machine's.
            let (head, tail) = l.split_once(" on ").unwrap_or((l, ""));
            let tail = tail.split_once(" threads").map_or(tail, |(_, t)| t);
            format!("`{head} on N threads{tail}`")
        })
        .unwrap_or_default()
}

fn ran_for(_: &Path, o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    let secs = out
        .lines()
        .find_map(|l| l.strip_prefix("ran "))
        .and_then(|l| l.split(' ').next())
        .and_then(|s| s.parse::<f64>().ok());
    match secs {
        Some(s) if s < 2.5 => "ends at its --time (2 s)".into(),
        Some(s) => format!("ran {s} s, past its --time"),
        None => String::new(),
    }
}

fn cases() -> Vec<Case> {
    vec![
        // Item 1: outputs never replace what they should not.
        Case { note: Some(link_kept), ..case(&["pattern", "uniform", "--pages", "1000", "--json", "null"], "renamed a regular file over the symlink (as root, `--json /dev/null` replaced /dev/null)") },
        Case { note: Some(fifo_kept), ..case(&["pattern", "uniform", "--pages", "1000", "--json", "fifo"], "replaced the FIFO by a regular file; the reader got nothing") },
        Case { note: Some(json_on_stdout), ..case(&["pattern", "uniform", "--pages", "1000", "--json", "/dev/stdout"], "replaced /dev/stdout by a regular file; printed nothing") },
        case(&["pattern", "uniform", "--pages", "1000", "--json", "full"], ""),
        case(&["pattern", "uniform", "--pages", "1000", "--json", "LOOP"], ""),
        // Item 2: tiny rates.
        case(&["run", "--quick", "--spec-rand-write", "1e-300"], "per-second series grew until the OOM killer; SIGINT ignored meanwhile"),
        case(&["io", "emu:default", "--rw", "randwrite", "--time", "1s", "--rate", "0.000000001"], "aborted allocating 2.5 GB"),
        case(&["io", "emu:default", "--rw", "randwrite", "--rate", "0.000000001"], ""),
        case(&["io", "emu:default", "--rw", "randwrite", "--probe", "read", "--probe-rate", "0.000000001", "--time", "1s"], ""),
        // Item 4: a bad --size never destroys a file; one rule for run and io.
        Case { note: Some(unchanged("big.img")), ..case(&["run", "big.img", "--size", "20T", "--quick"], "deleted and recreated the file, then failed") },
        Case { note: Some(unchanged("big.img")), ..case(&["run", "big.img", "--size", "20T", "--quick", "--recreate"], "") },
        Case { note: Some(unchanged("big.img")), ..case(&["run", "big.img", "--quick"], "recreated (emptied) the file without asking") },
        Case { note: Some(unchanged("data.img")), ..case(&["io", "data.img", "--rw", "randread", "--size", "4M"], "grew the 1 MiB file to 4 MiB") },
        // Item 5: rate waits honour --time.
        case(&["io", "data.img", "--rw", "randread", "--time", "2s", "--rate", "0.01"], "ran 100 s; the first SIGINT took 95 s"),
        Case { note: Some(ran_for), ..case(&["io", "data.img", "--rw", "randread", "--time", "2s", "--rate", "0.625", "--buffered"], "") },
        // Item 6: threads.
        case(&["io", "data.img", "--rw", "randread", "--threads", "10000", "--time", "1s"], "took 102 s (setup quadratic in threads, not interruptible)"),
        case(&["io", "data.img", "--rw", "randread", "--threads", "1024", "--time", "1s", "--engine", "psync", "--buffered"], ""),
        // Item 7: memory.
        Case { env: MEM16, ..case(&["sim", "--capacity", "15TiB"], "ran 107 s, then aborted allocating 16 GB") },
        Case { env: MEM16, ..case(&["io", "emu:default,capacity=14TiB", "--rw", "randread", "--time", "1s"], "aborted allocating 15 GB") },
        Case { env: MEM16, ..case(&["run", "emu:default,capacity=14TiB", "--quick"], "") },
        Case { env: MEM16, ..case(&["io", "data.img", "--rw", "randread", "--bs", "1M", "--qd", "4096", "--threads", "8", "--time", "1s"], "") },
        Case { env: &[("SSDIQ_MEMORY", "1600KiB")], note: Some(sweep_line), ..case(&["sim", "--capacity", "512MiB", "--block", "1MiB", "--writes", "1x", "--seed", "1,2,3,4"], "no memory budget") },
        Case { env: &[("SSDIQ_MEMORY", "1GiB")], ..case(&["pattern", "uniform", "--pages", "2G"], "") },
        // Item 8: absurd values.
        case(&["pattern", "uniform", "--draws", "1e20x"], "never finished"),
        case(&["sim", "--writes", "1e99x"], "never finished"),
        case(&["sim", "--gc", "dchoices:99999999"], "never finished"),
        case(&["io", "emu:default", "--rw", "randwrite", "--time", "99999999999999999999s"], "silently clamped to 584 years"),
        case(&["io", "emu:default", "--rw", "randwrite", "--time", "31d"], ""),
        case(&["io", "emu:default", "--rw", "randwrite", "--time", "0.1ns"], ""),
        case(&["sim", "--capacity", "872475401470549440"], "read as 872475401470549504 (through f64)"),
        case(&["io", "emu:default,channel_mb_s=0.0000001", "--rw", "randwrite", "--time", "1s"], ""),
        case(&["sim", "--capacity", "16GiB", "--page", "1"], ""),
        case(&["sim", "--write-buffer", "99%"], ""),
        // Item 10: the smaller ones.
        case(&["io", "FREELOOP", "--bs", "512M"], "said the device \"does not exist\""),
        case(&["io", "LOOP", "--rw", "write", "--size", "1M", "--allow-destroy", "/nonexistent"], "exit 1"),
        case(&["io", "LOOP", "--rw", "read", "--size", "1M", "--allow-destroy", "/dev/null"], ""),
        case(&["pattern", "uniform", "--pages", "1000", "--json", "adir"], "exit 1 after the work"),
        case(&["sim", "--capacity", "64MiB", "--block", "1MiB", "--csv", "adir"], "exit 1 after the work"),
        case(&["io", "emu:default", "--rw", "randread", "--time", "1s", "--log", "adir"], "exit 1 after the work"),
        case(&["report", "sample.json", "--html", "adir"], "exit 1 after the work"),
        case(&["pattern", "uniform", "--pages", "1000", "--json", "ro/x.json"], "exit 1 after the work"),
        case(&["run", "--quick", "--out", "ro/run"], "exit 1 after the run"),
        case(&["run", "--quick", "--out", "data.img"], ""),
        case(&["run", "--quick", "--allow-destroy", "X"], "silently ignored"),
        case(&["report", "sample.json", "--markdown", "sample.json"], "overwrote its input"),
        Case { note: Some(no_dev_file), ..case(&["io", "/dev/ssdiq-typo0n1", "--size", "1M", "--rw", "write"], "created a regular file under /dev") },
        Case { note: Some(no_dev_file), ..case(&["pattern", "uniform", "--pages", "1000", "--json", "/dev/ssdiq-typo0n1"], "created a regular file under /dev") },
        Case { slow: true, note: Some(top_share), ..case(&["pattern", "uniform", "--pages", "1", "--draws", "5G"], "showed 80.000% (u32 counts saturated)") },
        case(&["report", "/dev/zero"], "read without limit (out of memory)"),
        case(&["run", "--quick", "--spec", "/dev/zero"], ""),
        case(&["io", "emu:/dev/zero", "--rw", "read"], ""),
        // Issue 30, item 1: an output that is also an input; item 15: two outputs on one path.
        Case { note: Some(trace_kept), ..case(&["trace", "stats", "t.csv", "--json", "t.csv"], "overwrote the trace, exit 0") },
        Case { note: Some(trace_kept), ..case(&["sim", "--trace", "t.csv", "--csv", "t.csv"], "overwrote the trace, exit 0") },
        Case { note: Some(unchanged("data.img")), ..case(&["io", "data.img", "--rw", "randread", "--time", "1s", "--json", "data.img"], "a read-only job replaced its target with its JSON, exit 0") },
        case(&["sim", "--capacity", "64MiB", "--block", "1MiB", "--json", "x.json", "--csv", "x.json"], "exit 0, the JSON lost"),
        // Item 2: a merge's output over one of its shards (`adir/1.json` stands for one).
        Case { note: Some(shard_kept), ..case(&["sim", "merge", "adir", "--csv", "adir/1.json"], "overwrote the shard, which could no longer be merged") },
        // Item 11: run --slurm's nodes and targets; item 14: a ZNS store on a regular file.
        case(&["run", "--slurm", "sl", "--slurm-nodes", "n1,n1"], "submitted twice into one directory"),
        case(&["run", "--slurm", "sl", "--slurm-nodes", "n1:emu:nosuch"], "wrote the scripts for a profile that does not exist"),
        Case { note: Some(unchanged("data.img")), ..case(&["store", "data.img", "--recreate", "--backend", "zns"], "exit 1, \"No such file or directory\" printed twice") },
        // Items 3 and 4: store rewrote an existing file without --recreate; it created or
        // grew its target, then rejected the input.
        Case { note: Some(unchanged("data.img")), ..case(&["store", "data.img"], "rewrote the file without --recreate") },
        Case { note: Some(no_new_img), ..case(&["store", "new.img", "--size", "4k"], "left a 4 KiB file behind") },
        Case { note: Some(unchanged("big.img")), ..case(&["store", "big.img", "--size", "64M", "--zone", "128M", "--recreate"], "grew the 16 MiB file to 64 MiB") },
        // Items 6, 9, 12, 13: store's numbers.
        case(&["store", "--records-per-page", "0"], "panicked (exit 101)"),
        case(&["store", "--measure-ops", "1e30"], "ran until killed"),
        case(&["store", "--workers", "1000000"], "printed \"0 kops/s, SSD WAF 0.00\", exit 0"),
        case(&["store", "--align-gc-unit", "5000"], "silently used 4 KiB zones"),
        Case { env: &[("SSDIQ_MEMORY", "1GiB")], ..case(&["store", "emu:default,capacity=8GiB"], "grew to 9.2 GB; under `ulimit -v`, exit 1 with the errno text printed twice") },
        // Items 7 and 10: a replay without end; a trace read through a pipe or FIFO.
        case(&["io", "emu:default", "--trace", "t.csv", "--replay-speed", "1e-15"], "spun at 100% CPU, deaf to SIGINT and SIGTERM (at 1e-10 on a 20,000-line trace)"),
        case(&["trace", "stats", "null"], "counted what format detection left of a pipe (17,335 of 20,000 requests)"),
        // Item 8: one request of 2^40 bytes (`huge.csv`).
        Case { note: Some(footprint_line), ..case(&["trace", "stats", "huge.csv"], "aborted after 32 s allocating 9 GB (exit 134)") },
        case(&["sim", "--trace", "huge.csv"], "aborted allocating (exit 134)"),
        case(&["io", "emu:default", "--trace", "huge.csv", "--trace-map", "compact"], "aborted allocating (exit 134)"),
        Case { note: Some(no_new_img), ..case(&["io", "new.img", "--trace", "huge.csv"], "said `invalid --size \"1TiB\"` though no --size was given") },
        // Item 16: messages that named the wrong thing.
        case(&["study", "pts-hir", "--pts-cell", "1000d"], "said \"invalid --time\""),
        case(&["io", "emu:default,op=10"], "said \"expected a fraction > 0\", not the real limit"),
        case(&["sim", "--capacity", "64MiB", "--block", "1MiB", "--op", "7%,28%", "--shard", "3/3", "--json", "x.json"], "panicked: \"at least one run\" (exit 101); found while fixing item 16"),
        // Item 17: cosmetics.
        case(&["study", "list", "--out", "x"], "ignored --out (and a target), exit 0"),
        Case { note: Some(unchanged("data.img")), ..case(&["study", "gc-unit", "data.img"], "said \"run recreates its target\"") },
        case(&["sim", "--trace", "t.csv", "--writes", "1e12pass"], "echoed the flag as \"979701450892.8572x\""),
        case(&["sim", "--seed", "99999999999999999999999"], "called the number \"not a whole number\""),
        // Item 5: a newline in a Slurm option became a line of the job script.
        case(&["sim", "--capacity", "64MiB", "--slurm", "sl", "--slurm-opt", "--time=1\ntouch PWNED"], "wrote `touch PWNED` as a script line"),
        // Issue 50, item 1: every file a command reads is an input.
        Case { note: Some(twin_kept), ..case(&["fit", "--check", "tw.toml", "rd", "--html", "tw.toml"], "issue 50: replaced the twin being checked, exit 0") },
        Case { note: Some(twin_kept), ..case(&["fit", "--check", "tw.toml", "rd", "--json", "./tw.toml"], "issue 50: replaced the twin being checked, exit 0") },
        Case { note: Some(run_kept), ..case(&["fit", "rd", "--out", "rd/run.json"], "issue 50: replaced the run it reads (given as its directory), exit 0") },
        case(&["run", "emu:sp/submit.sh", "--slurm", "sp", "--slurm-nodes", "n1"], "issue 50: replaced the profile with the submit script, exit 0"),
        // Item 2: --out holding results.
        Case { note: Some(run_kept), ..case(&["run", "emu:default,capacity=1GiB", "--quick", "--out", "rd"], "issue 50: replaced the results there, exit 0") },
        // Item 3: a buffer below one program unit.
        case(&["io", "emu:default,capacity=1GiB,buffer_kib=100", "--rw", "randwrite", "--time", "1s"], "issue 50: ran at 100% CPU for good, the first SIGINT and SIGTERM ignored"),
        // Item 4: fit's memory.
        Case { env: &[("SSDIQ_MEMORY", "2GiB")], ..case(&["fit", "rd", "--out", "t.toml", "--capacity", "4TiB"], "issue 50: reached 12.3 GB RSS in 20 s") },
        // Item 5: work bounds.
        case(&["store", "emu:pm9a3,capacity=1GiB", "--theta", "5"], "issue 50: stalled after \"loading done\" until interrupted"),
        case(&["io", "emu:default,capacity=1GiB", "--trace", "max.csv", "--trace-map", "modulo"], "issue 50: wrote 1.15 TiB in 5 s and went on"),
        // Item 6: fit on impossible inputs.
        case(&["fit", "cap0.json", "--out", "t.toml"], "issue 50: exit 1, naming neither the file nor the field"),
        case(&["fit", "neg.json", "--out", "t.toml"], "issue 50: fitted to it, exit 0"),
        case(&["fit", "partial.json", "--out", "t.toml"], "issue 50: fitted to it, exit 0"),
        case(&["fit", "rd", "rd/run.json", "--out", "t.toml"], "issue 50: fitted the median of the same file twice, exit 0"),
        case(&["fit", "gcbig.json", "--out", "t.toml"], "issue 50: clamped to 1024 units, labelled as input"),
        case(&["fit", "--paper", "ssd-iq:pm1733", "--capacity", "256MiB", "--out", "t.toml"], "issue 50: exit 1 with no minimum"),
        // Item 8: messages.
        case(&["store", "--zone", "1PiB"], "issue 50: named no flag"),
        case(&["store", "--measure", "abc", "--measure-ops", "1M"], "issue 50: --measure never read, exit 0"),
        case(&["study", "skew", "--quick", "--pts-cell", "5s"], "issue 50: ignored, exit 0"),
        case(&["study", "pts-iops", "--spec-rand-write", "70"], "issue 50: ignored, exit 0"),
        case(&["io", "emu:badop.toml,capacity=1GiB", "--time", "1s"], "issue 50: named neither the file nor the key"),
        case(&["info", "emu:default,op=0.2,op=0.3"], "issue 50: took the last, exit 0"),
        case(&["run", "", "--size", "256MiB", "--quick"], "issue 50: exit 1 and a partial result directory"),
        // Item 9.
        Case { note: Some(unchanged("data.img")), ..case(&["io", "data.img", "--rw", "randwrite", "--time", "1s"], "issue 50: overwrote the file, exit 0") },
        case(&["trace"], "issue 50: 13 lines of help without the `ssdiq:` prefix"),
    ]
}

fn twin_kept(d: &Path, _: &Output) -> String {
    match std::fs::read_to_string(d.join("tw.toml")) {
        Ok(t) if t == profile_text("smallbuf") => "tw.toml unchanged".into(),
        _ => "tw.toml CHANGED".into(),
    }
}

fn run_kept(d: &Path, _: &Output) -> String {
    match (
        std::fs::read(d.join("rd/run.json")),
        std::fs::read(fixture().join("run.json")),
    ) {
        (Ok(a), Ok(b)) if a == b => "rd/run.json unchanged".into(),
        _ => "rd/run.json CHANGED".into(),
    }
}

/// A finished quick run of a 1 GiB emulated drive, made once per test process (under
/// Cargo's temporary directory for tests): what the `fit` rows read.
fn fixture() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reliability-fixture");
        let _ = std::fs::remove_dir_all(&d);
        let out = Command::new(common::bin())
            .args([
                "run",
                "emu:default,capacity=1GiB",
                "--quick",
                "--quiet",
                "--out",
            ])
            .arg(&d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        d
    })
}

/// The fixture run with one field changed.
fn edited_run(d: &Path, name: &str, edit: impl Fn(&mut serde_json::Value)) {
    let text = std::fs::read_to_string(fixture().join("run.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut v);
    std::fs::write(d.join(name), serde_json::to_string(&v).unwrap()).unwrap();
}

fn profile_text(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../emu/profiles/{name}.toml")),
    )
    .unwrap()
}

/// What the issue-50 rows read: a run directory, a twin, a profile under a script's name, a
/// profile with an impossible OP, a trace of one request of 2^64 - 1 bytes, and runs with
/// impossible fields.
fn scene_50(d: &Path) {
    std::fs::create_dir(d.join("rd")).unwrap();
    std::fs::copy(fixture().join("run.json"), d.join("rd/run.json")).unwrap();
    std::fs::write(d.join("tw.toml"), profile_text("smallbuf")).unwrap();
    std::fs::create_dir(d.join("sp")).unwrap();
    std::fs::write(d.join("sp/submit.sh"), profile_text("default")).unwrap();
    let bad: String = profile_text("default")
        .lines()
        .map(|l| {
            if l.starts_with("op = ") {
                "op = 0.0001"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(d.join("badop.toml"), bad).unwrap();
    std::fs::write(d.join("max.csv"), "10,h,0,Write,0,18446744073709551615,0\n").unwrap();
    edited_run(d, "cap0.json", |v| v["target"]["capacity_bytes"] = 0.into());
    edited_run(d, "neg.json", |v| {
        v["figures"]["rand_read_kiops"]["median"] = (-5.0).into()
    });
    edited_run(d, "partial.json", |v| v["partial"] = true.into());
    edited_run(d, "gcbig.json", |v| {
        v["target"]["gc_unit_bytes"] = (1u64 << 50).into()
    });
}

fn footprint_line(_: &Path, o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout);
    out.lines()
        .find(|l| l.starts_with("footprint:"))
        .map(|l| format!("`{}`", l.split(';').next().unwrap_or(l)))
        .unwrap_or_default()
}

/// `adir/1.json`: what a shard file holds matters not; that it survives does.
const SHARD_STAND_IN: &str = "{\"kind\":\"sim-shard\"}";

fn shard_kept(d: &Path, _: &Output) -> String {
    if std::fs::read_to_string(d.join("adir/1.json"))
        .ok()
        .as_deref()
        == Some(SHARD_STAND_IN)
    {
        "adir/1.json unchanged".into()
    } else {
        "adir/1.json CHANGED".into()
    }
}

fn no_new_img(d: &Path, _: &Output) -> String {
    if d.join("new.img").exists() {
        "new.img CREATED".into()
    } else {
        "no new.img".into()
    }
}

fn trace_kept(d: &Path, _: &Output) -> String {
    if std::fs::read_to_string(d.join("t.csv")).ok().as_deref() == Some(TRACE) {
        "t.csv unchanged".into()
    } else {
        "t.csv CHANGED".into()
    }
}

/// `t.csv`: a short MSR trace.
const TRACE: &str = "10,h,0,Write,0,4096,0\n20,h,0,Write,4096,4096,0\n30,h,0,Read,0,4096,0\n";

/// `huge.csv`: one MSR write of 2^40 bytes.
const HUGE_TRACE: &str = "10,h,0,Write,0,1099511627776,0\n";

/// A fresh directory with the files the table's paths name.
fn scene(d: &Path) {
    std::fs::write(d.join("data.img"), pattern_of(1 << 20)).unwrap();
    std::fs::write(d.join("big.img"), pattern_of(16 << 20)).unwrap();
    std::fs::write(d.join("t.csv"), TRACE).unwrap();
    std::fs::write(d.join("huge.csv"), HUGE_TRACE).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/golden/sample-run.json"),
        d.join("sample.json"),
    )
    .unwrap();
    std::fs::create_dir(d.join("adir")).unwrap();
    std::fs::write(d.join("adir/1.json"), SHARD_STAND_IN).unwrap();
    scene_50(d);
    std::os::unix::fs::symlink("/dev/null", d.join("null")).unwrap();
    std::os::unix::fs::symlink("/dev/full", d.join("full")).unwrap();
    let c = std::ffi::CString::new(d.join("fifo").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// What a row needs beyond the scene, kept alive while it runs.
#[derive(Default)]
struct Extras {
    _loop: Option<Loop>,
    _ro: Option<common::tmpfs::Tmpfs>,
    loop_dev: Option<String>,
    free_loop: Option<String>,
}

/// Sets up LOOP, FREELOOP and ro/ when the row names them; `None` if it cannot (not root).
fn extras(d: &Path, args: &[&str]) -> Option<Extras> {
    let mut x = Extras::default();
    let wants = |s: &str| args.iter().any(|a| a.contains(s));
    if !(wants("LOOP") || wants("ro/")) {
        return Some(x);
    }
    if !is_root() {
        return None;
    }
    if wants("FREELOOP") {
        let o = Command::new("losetup").arg("-f").output().ok()?;
        x.free_loop = Some(String::from_utf8_lossy(&o.stdout).trim().to_string());
    } else if wants("LOOP") {
        let lo = Loop::attach(&common::loopdev::backing(d, "lo.img", 16 << 20))?;
        x.loop_dev = Some(lo.dev.clone());
        x._loop = Some(lo);
    }
    if wants("ro/") {
        x._ro = Some(common::tmpfs::Tmpfs::mount(&d.join("ro"), "ro,size=1m")?);
    }
    Some(x)
}

/// Runs one row; `None` when it cannot run here.
fn run(c: &Case, slow_ok: bool) -> Option<(Option<i32>, String, String)> {
    if c.slow && !slow_ok {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    scene(d);
    let _serial = c.args.iter().any(|a| a.contains("LOOP")).then(serial);
    let x = extras(d, c.args)?;
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| {
            let a = a.to_string();
            match (&x.free_loop, &x.loop_dev) {
                (Some(f), _) if a == "FREELOOP" => f.clone(),
                (_, Some(l)) if a == "LOOP" => l.clone(),
                _ => a,
            }
        })
        .collect();
    // A reader for the FIFO, so a write through it completes.
    let fifo = d.join("fifo");
    let sink = d.join(".fifo-read");
    let reader = args.iter().any(|a| a == "fifo").then(|| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::fs::File::open(fifo).and_then(|mut f| f.read_to_string(&mut s));
            std::fs::write(sink, s).unwrap();
        })
    });
    let mut child = Command::new(common::bin())
        .args(&args)
        .current_dir(d)
        .envs(c.env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let limit = Duration::from_secs(if c.slow { 300 } else { 60 });
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{:?} still running after {limit:?}", c.args);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    if let Some(r) = reader {
        r.join().unwrap();
    }
    let mut said = String::from_utf8_lossy(&out.stderr)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    let dir_text = d.to_string_lossy().to_string();
    said = said
        .replace(&format!("{dir_text}/"), "")
        .replace(&dir_text, ".");
    for (dev, name) in [(&x.loop_dev, "LOOP"), (&x.free_loop, "FREELOOP")] {
        if let Some(dev) = dev {
            said = said.replace(dev.as_str(), name);
        }
    }
    said = mask_free_space(&said);
    let note = c.note.map(|f| f(d, &out)).unwrap_or_default();
    Some((out.status.code(), said, note))
}

/// Free space differs from machine to machine: "has 64.84 GiB free" becomes "has N free".
fn mask_free_space(s: &str) -> String {
    let Some((head, tail)) = s.split_once(" has ") else {
        return s.to_string();
    };
    match tail.split_once(" free") {
        Some((amount, rest)) if amount.starts_with(|c: char| c.is_ascii_digit()) => {
            format!("{head} has N free{rest}")
        }
        _ => s.to_string(),
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "\\n")
}

fn row(c: &Case, exit: Option<i32>, said: &str, note: &str) -> String {
    let env: String = c.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    let exit = exit.map_or("signal".to_string(), |e| e.to_string());
    let said = if said.is_empty() {
        "(nothing)".to_string()
    } else {
        format!("`{}`", cell(said).replace('`', "'"))
    };
    format!(
        "| `{env}ssdiq {}` | {} | {exit} | {said} | {} |",
        cell(&c.args.join(" ")),
        if c.was.is_empty() {
            "(new case)".to_string()
        } else {
            cell(c.was)
        },
        cell(note)
    )
}

const BEGIN: &str = "<!-- BEGIN GENERATED by crates/cli/tests/cli/reliability_table.rs -->";
const END: &str = "<!-- END GENERATED -->";

fn doc_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reliability.md")
}

#[test]
#[ignore = "slow, about 36 s: .ci/extra/slow-tests.sh runs it"]
fn the_reliability_table_says_what_the_binary_does() {
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let slow_ok = update || std::env::var_os("SSDIQ_SLOW_CASES").is_some();
    let doc = std::fs::read_to_string(doc_path()).unwrap_or_default();
    let old_rows: Vec<&str> = doc
        .split(BEGIN)
        .nth(1)
        .and_then(|r| r.split(END).next())
        .map(|t| t.lines().filter(|l| l.starts_with("| `")).collect())
        .unwrap_or_default();
    let mut table = String::from(
        "| Input | Before the fix (issue 15; issues 30 and 50 for the last rows) | Exit | What ssdiq says now (last line of stderr) | Afterwards |\n|---|---|---|---|---|\n",
    );
    let mut kept = 0;
    for c in cases() {
        let key = format!("ssdiq {}`", cell(&c.args.join(" ")));
        match run(&c, slow_ok) {
            Some((exit, said, note)) => table.push_str(&row(&c, exit, &said, &note)),
            None => {
                kept += 1;
                let old = old_rows
                    .iter()
                    .find(|r| r.contains(&key))
                    .unwrap_or_else(|| {
                        panic!("no row for {key} in the document, and it cannot run here")
                    });
                table.push_str(old);
            }
        }
        table.push('\n');
    }
    if kept > 0 {
        eprintln!("{kept} rows kept from the document (they need root, or are slow)");
    }
    let (head, rest) = doc
        .split_once(BEGIN)
        .expect("the document has the BEGIN marker");
    let (_, tail) = rest
        .split_once(END)
        .expect("the document has the END marker");
    let new_doc = format!("{head}{BEGIN}\n{table}{END}{tail}");
    if update {
        std::fs::write(doc_path(), &new_doc).unwrap();
        return;
    }
    assert!(
        new_doc == doc,
        "docs/reliability.md is out of date; rerun with UPDATE_DOCS=1 and review the diff. Now:\n{table}"
    );
}
