//! Result files never replace what they should not (issue 15): device nodes, FIFOs, symlinks
//! and /dev/stdout are written through; regular files are replaced atomically; bad output
//! paths fail before any work; a Ctrl-C during write-out waits for the files.
//!
//! Device nodes are only ever reached through symlinks in a temporary directory pointing at
//! /dev/null: a test that went wrong would replace the symlink, never /dev/null itself.

use crate::common;

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{bin, ok, s, usage_error};

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// Reads a FIFO to its end on another thread.
fn drain(p: &Path) -> std::thread::JoinHandle<String> {
    let p = p.to_path_buf();
    std::thread::spawn(move || {
        let mut s = String::new();
        std::fs::File::open(p)
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        s
    })
}

fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p)
        .unwrap()
        .file_type()
        .is_symlink()
}

fn no_temp_files(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") || n.ends_with(".probe"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Every subcommand's output flags, writing into `out` (a path given as is).
fn every_output_flag(dir: &Path, out: &str) -> Vec<Vec<String>> {
    let run = dir.join("in.json");
    if !run.exists() {
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/golden/sample-run.json"),
            &run,
        )
        .unwrap();
    }
    let v = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        v(&["pattern", "uniform", "--pages", "1000", "--json", out]),
        v(&["pattern", "uniform", "--pages", "1000", "--csv", out]),
        v(&["pattern", "uniform", "--pages", "1000", "--lba-csv", out]),
        v(&[
            "sim",
            "--capacity",
            "64MiB",
            "--block",
            "1MiB",
            "--writes",
            "1x",
            "--json",
            out,
        ]),
        v(&[
            "sim",
            "--capacity",
            "64MiB",
            "--block",
            "1MiB",
            "--writes",
            "1x",
            "--csv",
            out,
        ]),
        v(&[
            "io",
            "emu:default,capacity=1GiB",
            "--rw",
            "randread",
            "--io-size",
            "4M",
            "--json",
            out,
        ]),
        v(&[
            "io",
            "emu:default,capacity=1GiB",
            "--rw",
            "randread",
            "--io-size",
            "4M",
            "--log",
            out,
        ]),
        v(&["report", s(&run), "--markdown", out]),
        v(&["report", s(&run), "--html", out]),
        v(&["info", "emu:default", "--json", out]),
    ]
}

#[test]
fn a_symlink_to_dev_null_stays_a_symlink() {
    let d = tempfile::tempdir().unwrap();
    let link = d.path().join("null");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    for args in every_output_flag(d.path(), s(&link)) {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&a);
        assert!(is_symlink(&link), "{a:?} replaced the symlink");
    }
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    no_temp_files(d.path());
}

#[test]
fn a_fifo_and_a_symlink_to_it_are_written_through() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo");
    mkfifo(&fifo);
    let link = d.path().join("to-fifo");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    for target in [&fifo, &link] {
        for args in every_output_flag(d.path(), s(target)) {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let reader = drain(&fifo);
            ok(&a);
            let got = reader.join().unwrap();
            assert!(!got.is_empty(), "{a:?}: nothing came through the FIFO");
            assert!(
                std::fs::symlink_metadata(&fifo)
                    .unwrap()
                    .file_type()
                    .is_fifo(),
                "{a:?} replaced the FIFO"
            );
            assert!(is_symlink(&link));
        }
    }
    no_temp_files(d.path());
}

#[test]
fn dev_stdout_gets_the_document_after_the_summary() {
    let o = ok(&[
        "pattern",
        "uniform",
        "--pages",
        "1000",
        "--json",
        "/dev/stdout",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let at = out.find("{\n").expect("JSON on stdout");
    assert!(out[..at].contains("pages touched"), "summary first: {out}");
    let doc: serde_json::Value = serde_json::from_str(&out[at..]).unwrap();
    assert_eq!(doc["kind"], "pattern");
}

#[test]
fn regular_files_are_replaced_and_symlinked_ones_keep_their_link() {
    let d = tempfile::tempdir().unwrap();
    let real = d.path().join("real.json");
    std::fs::write(&real, "old").unwrap();
    let link = d.path().join("link.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    ok(&["pattern", "uniform", "--pages", "1000", "--json", s(&link)]);
    assert!(is_symlink(&link));
    let doc = common::json(&real);
    assert_eq!(doc["kind"], "pattern");
    no_temp_files(d.path());
}

#[test]
fn bad_output_paths_fail_first_in_every_subcommand() {
    let d = tempfile::tempdir().unwrap();
    let adir = d.path().join("adir");
    std::fs::create_dir(&adir).unwrap();
    let ro = d.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let ro_mount = read_only_dir(&ro);
    let cases: Vec<(PathBuf, &str)> = vec![
        (adir.clone(), "is a directory"),
        (d.path().join("missing/x"), "does not exist"),
        (
            PathBuf::from("/dev/ssdiq-mistyped"),
            "never creates files under /dev",
        ),
    ];
    let mut cases = cases;
    if let Some(ro_dir) = &ro_mount {
        cases.push((ro_dir.path().join("x.json"), "Read-only file system"));
    }
    for (out, want) in &cases {
        for args in every_output_flag(d.path(), s(out)) {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            usage_error(&a, want);
        }
    }
    assert!(!Path::new("/dev/ssdiq-mistyped").exists());
    // run checks its --out directory and the files in it before running.
    let out = d.path().join("out");
    std::fs::create_dir_all(out.join("run.json")).unwrap();
    usage_error(&["run", "--quick", "--out", s(&out)], "is a directory");
    usage_error(
        &["run", "--quick", "--out", "/dev/ssdiq-mistyped-dir"],
        "under /dev",
    );
    if let Some(ro_dir) = &ro_mount {
        usage_error(
            &["run", "--quick", "--out", s(&ro_dir.path().join("new"))],
            "Read-only file system",
        );
    }
}

#[test]
fn report_refuses_to_overwrite_its_input() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/golden/sample-run.json"),
        &a,
    )
    .unwrap();
    let before = std::fs::read(&a).unwrap();
    usage_error(&["report", s(&a), "--markdown", s(&a)], "is the input");
    usage_error(&["report", s(&a), "--html", s(&a)], "is the input");
    let link = d.path().join("l.json");
    std::os::unix::fs::symlink("a.json", &link).unwrap();
    usage_error(&["report", s(&a), "--html", s(&link)], "is the input");
    assert_eq!(std::fs::read(&a).unwrap(), before);
}

#[test]
#[ignore = "slow, about 10 s: .ci/extra/slow-tests.sh runs it"]
fn a_second_ctrl_c_during_write_out_waits_for_every_file() {
    // run.json is a FIFO: the write-out blocks there until we read it, while two SIGINTs
    // arrive. Then the other three files must still be written, with no temporary file
    // left, and the process ends by the signal (130).
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let fifo = out.join("run.json");
    mkfifo(&fifo);
    let mut child = KillOnDrop(
        Command::new(bin())
            .args(["run", "--quick", "--quiet", "--out", s(&out)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let child = &mut child.0;
    // Wait until the writer has opened the FIFO (it blocks in open until a reader comes):
    // the quick emulated run takes a few seconds; poll its open files.
    let fd_dir = PathBuf::from(format!("/proc/{}/fd", child.id()));
    let opened = (0..600).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        std::fs::read_dir(&fd_dir)
            .map(|rd| {
                rd.flatten()
                    .any(|e| std::fs::read_link(e.path()).is_ok_and(|t| t == fifo))
            })
            .unwrap_or(false)
            || wchan_is_fifo(child.id())
    });
    assert!(opened, "the run never reached its write-out");
    for _ in 0..2 {
        let st = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(child.try_wait().unwrap().is_none(), "exited mid write-out");
    let json = drain(&fifo).join().unwrap();
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(130));
    assert!(json.contains("\"kind\": \"run\""));
    for f in ["series.csv", "report.md", "report.html"] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    no_temp_files(&out);
}

/// A child that does not outlive a failed test.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// True while the process sleeps opening a FIFO (`fifo_open`), before it has a descriptor.
fn wchan_is_fifo(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/wchan"))
        .is_ok_and(|w| w.contains("fifo") || w.contains("wait_for_partner"))
}

/// A read-only directory: a read-only tmpfs mount as root (root ignores permissions), else a
/// directory without write permission.
enum ReadOnly {
    Mount(common::tmpfs::Tmpfs),
    Mode(PathBuf),
}

impl ReadOnly {
    fn path(&self) -> &Path {
        match self {
            ReadOnly::Mount(t) => &t.path,
            ReadOnly::Mode(p) => p,
        }
    }
}

fn read_only_dir(p: &Path) -> Option<ReadOnly> {
    if common::loopdev::is_root() {
        return common::tmpfs::Tmpfs::mount(p, "ro,size=1m").map(ReadOnly::Mount);
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o555)).unwrap();
    Some(ReadOnly::Mode(p.to_path_buf()))
}

/// Runs `args` (with `{d}` replaced by the directory) and expects exit 2 naming `needle`,
/// with every file of the directory byte for byte as before.
fn refused_keeping_files(dir: &Path, args: &[&str], needle: &str) {
    let snapshot = |d: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut v: Vec<(PathBuf, Vec<u8>)> = walk(d)
            .into_iter()
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap_or_default();
                (p, bytes)
            })
            .collect();
        v.sort();
        v
    };
    let before = snapshot(dir);
    let args: Vec<String> = args.iter().map(|a| a.replace("{d}", s(dir))).collect();
    let out = Command::new(bin()).args(&args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(before == snapshot(dir), "{args:?} changed a file");
}

fn walk(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn no_subcommand_writes_an_output_over_one_of_its_inputs_or_another_output() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // A short MSR trace, a profile, a file target, shards of a sweep.
    let trace: String = (0..200)
        .map(|i| format!("{},h,0,Write,{},4096,0\n", 10 + i * 10, (i % 50) * 4096))
        .collect();
    std::fs::write(dir.join("t.csv"), trace).unwrap();
    std::os::unix::fs::symlink("t.csv", dir.join("t-link.csv")).unwrap();
    // The profile also under the names of run's and study's result files.
    let profile = include_str!("../../../emu/profiles/default.toml");
    for name in ["p.toml", "run.json", "study.json"] {
        std::fs::write(dir.join(name), profile).unwrap();
    }
    std::fs::write(dir.join("img"), vec![7u8; 1 << 20]).unwrap();
    std::fs::create_dir(dir.join("shards")).unwrap();
    for k in ["1", "2"] {
        let shard = format!("{k}/2");
        let json = format!("{}/shards/{k}.json", s(dir));
        let mut a = common::TWO_POINT_SIM.to_vec();
        a.extend(["--block", "1MiB", "--writes", "1x", "--warmup", "0"]);
        a.extend(["--shard", &shard, "--json", &json, "--quiet"]);
        ok(&a);
    }
    let input = "it is the input";
    let twice = "it is also the";
    let cases: &[(&[&str], &str)] = &[
        (
            &["trace", "stats", "{d}/t.csv", "--json", "{d}/t.csv"],
            input,
        ),
        (
            &["trace", "stats", "{d}/t.csv", "--json", "{d}/t-link.csv"],
            input,
        ),
        (
            &["sim", "--trace", "{d}/t.csv", "--csv", "{d}/t.csv"],
            input,
        ),
        (
            &[
                "sim",
                "--pattern",
                "uniform",
                "--json",
                "{d}/x",
                "--csv",
                "{d}/x",
            ],
            twice,
        ),
        (
            &["sim", "merge", "{d}/shards", "--csv", "{d}/shards/2.json"],
            input,
        ),
        (
            &[
                "sim",
                "merge",
                "{d}/shards",
                "--json",
                "{d}/m",
                "--html",
                "{d}/m",
            ],
            twice,
        ),
        (
            &[
                "io",
                "emu:default",
                "--trace",
                "{d}/t.csv",
                "--log",
                "{d}/t.csv",
            ],
            input,
        ),
        (
            &[
                "io", "{d}/img", "--rw", "randread", "--time", "1s", "--json", "{d}/img",
            ],
            input,
        ),
        (
            &[
                "io",
                "emu:default",
                "--rw",
                "read",
                "--json",
                "{d}/x",
                "--log",
                "{d}/x",
            ],
            twice,
        ),
        (&["info", "emu:{d}/p.toml", "--json", "{d}/p.toml"], input),
        (
            &[
                "store",
                "emu:{d}/p.toml,capacity=1GiB",
                "--html",
                "{d}/p.toml",
            ],
            input,
        ),
        (
            &[
                "store",
                "emu:default,capacity=1GiB",
                "--json",
                "{d}/x",
                "--html",
                "{d}/x",
            ],
            twice,
        ),
        (
            &["pattern", "uniform", "--csv", "{d}/x", "--json", "{d}/x"],
            twice,
        ),
        (
            &["report", "{d}/shards/1.json", "--html", "{d}/shards/1.json"],
            input,
        ),
        (
            &["run", "emu:{d}/run.json", "--quick", "--out", "{d}"],
            input,
        ),
        (
            &[
                "study",
                "skew",
                "emu:{d}/study.json",
                "--quick",
                "--out",
                "{d}",
            ],
            input,
        ),
    ];
    for (args, needle) in cases {
        refused_keeping_files(dir, args, needle);
    }
}
