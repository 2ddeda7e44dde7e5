//! I/O errors are failures, not interruptions (issue 15): a filesystem that runs full under
//! a file target, and a loop device whose backing store runs full, end `run` with exit 1, the
//! error named in run.json's `run.error`, and every step finished before it kept. `io`
//! names the error too. Needs root (tmpfs, loop devices); says why where it skips.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::loopdev::{serial, Loop};
use common::tmpfs::Tmpfs;
use common::{bin, json, s, ssdiq};

/// Punches every block of `file` out (`fallocate --punch-hole`), so rewriting it must
/// allocate again.
fn punch(file: &Path) {
    let f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    let len = f.metadata().unwrap().len();
    use std::os::fd::AsRawFd;
    // SAFETY: fallocate on an open descriptor.
    let r = unsafe {
        libc::fallocate(
            f.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            0,
            len as libc::off_t,
        )
    };
    assert_eq!(r, 0, "punch hole: {}", std::io::Error::last_os_error());
}

/// Runs `ssdiq run TARGET --quick` and, once the read steps are done, takes the space
/// away under `backing`: its blocks are punched out and the filesystem filled. Returns
/// (exit code, stderr, run.json).
fn run_until_full(
    target: &str,
    extra: &[&str],
    backing: &Path,
    fs: &Tmpfs,
    out: &Path,
) -> (Option<i32>, String, serde_json::Value) {
    let mut args = vec!["run", target, "--quick", "--out", s(out)];
    args.extend(extra);
    let mut child = Command::new(bin())
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("rand_read (before) done") {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    rx.recv_timeout(Duration::from_secs(120))
        .expect("the read steps finished");
    // Stopped while the space goes: otherwise its own writes would win the freed blocks back
    // before the filler takes them.
    let pid = child.id() as libc::pid_t;
    // SAFETY: signals to our own child.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    punch(backing);
    fs.fill();
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let st = child.wait().unwrap();
    let err = reader.join().unwrap();
    (st.code(), err, json(&out.join("run.json")))
}

fn check_failed_run(code: Option<i32>, err: &str, r: &serde_json::Value) {
    assert_eq!(code, Some(1), "{err}");
    assert!(!err.contains("interrupted"), "{err}");
    let e = r["run"]["error"].as_str().expect("run.error set");
    assert!(e.contains("ENOSPC") || e.contains("EIO"), "{e}");
    assert!(
        err.contains(e.split(':').next().unwrap()),
        "stderr names it: {err}"
    );
    assert_eq!(r["partial"], true);
    let names: Vec<&str> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        &names[..3],
        ["seq_read", "read_latency", "rand_read"],
        "finished steps kept"
    );
    for st in r["steps"].as_array().unwrap() {
        assert!(!st["series"].as_array().unwrap().is_empty());
    }
}

#[test]
fn run_on_a_file_whose_filesystem_runs_full() {
    let d = tempfile::tempdir().unwrap();
    let Some(fs) = Tmpfs::mount(&d.path().join("small"), "size=24m") else {
        return;
    };
    let f = fs.path.join("t.img");
    let out = d.path().join("out");
    let (code, err, r) = run_until_full(s(&f), &["--size", "16M"], &f, &fs, &out);
    check_failed_run(code, &err, &r);
    assert!(r["run"]["error"].as_str().unwrap().contains("ENOSPC"));
}

#[test]
fn run_on_a_loop_device_whose_backing_store_runs_full() {
    let _serial = serial();
    let d = tempfile::tempdir().unwrap();
    let Some(fs) = Tmpfs::mount(&d.path().join("small"), "size=24m") else {
        return;
    };
    let img = common::loopdev::backing(&fs.path, "b.img", 16 << 20);
    let Some(lo) = Loop::attach(&img) else {
        return;
    };
    let out = d.path().join("out");
    let (code, err, r) = run_until_full(&lo.dev, &["--allow-destroy", &lo.dev], &img, &fs, &out);
    check_failed_run(code, &err, &r);
}

#[test]
fn io_names_the_error() {
    let d = tempfile::tempdir().unwrap();
    let Some(fs) = Tmpfs::mount(&d.path().join("small"), "size=8m") else {
        return;
    };
    let f = fs.path.join("t.img");
    std::fs::File::create(&f).unwrap().set_len(4 << 20).unwrap();
    fs.fill();
    let json_out = d.path().join("r.json");
    let o = ssdiq(&[
        "io",
        s(&f),
        "--rw",
        "write",
        "--overwrite",
        "--json",
        s(&json_out),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device (ENOSPC)"), "{err}");
    let r = json(&json_out);
    assert_eq!(r["errors"]["first"]["errno"], 28);
    assert_eq!(r["partial"], true);
}
