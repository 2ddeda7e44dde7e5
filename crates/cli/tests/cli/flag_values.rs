//! Issue 30's classes 6 and 7, over every subcommand: every option that takes a value, read
//! from the subcommand's own `--help` (so a new flag is covered without touching this file),
//! gets 0, 1, the largest u32 and u64 and 1e300. No value may panic (exit 101) or kill the
//! process by a signal; a command still running after a moment gets SIGINT and must end
//! within seconds (every loop it reached checks the stop flag).
//!
//! Each subcommand runs from a base invocation that is quick on its own, in a scratch
//! directory holding the files the bases name; the option under test replaces the base's own
//! value of it.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const VALUES: &[&str] = &["0", "1", "4294967295", "18446744073709551615", "1e300"];

/// How long a command may run before it is interrupted, and how long it then has to stop.
const RUN_FOR: Duration = Duration::from_millis(1500);
const STOP_WITHIN: Duration = Duration::from_secs(15);

/// A quick invocation of one subcommand: its name (for its help), the words before the
/// options, and options with their values.
struct Base {
    command: &'static [&'static str],
    words: &'static [&'static str],
    options: &'static [(&'static str, &'static str)],
}

const EMU: &str = "emu:default,capacity=256MiB";

const BASES: &[Base] = &[
    Base {
        command: &["run"],
        words: &[EMU, "--quick"],
        options: &[("--out", "r")],
    },
    Base {
        command: &["io"],
        words: &[EMU],
        options: &[("--time", "50ms")],
    },
    Base {
        command: &["sim"],
        words: &[],
        options: &[
            ("--capacity", "64MiB"),
            ("--block", "1MiB"),
            ("--writes", "1x"),
        ],
    },
    Base {
        command: &["sim", "merge"],
        words: &["shards"],
        options: &[],
    },
    Base {
        command: &["info"],
        words: &["emu:default"],
        options: &[],
    },
    Base {
        command: &["report"],
        words: &["sample.json"],
        options: &[],
    },
    Base {
        command: &["pattern"],
        words: &["uniform"],
        options: &[("--pages", "1000")],
    },
    Base {
        command: &["trace", "stats"],
        words: &["t.csv"],
        options: &[],
    },
    Base {
        command: &["trace", "check"],
        words: &["t.csv"],
        options: &[],
    },
    Base {
        command: &["store"],
        words: &[EMU],
        options: &[("--warmup", "0.1"), ("--measure-ops", "10k")],
    },
    Base {
        command: &["study"],
        words: &["gc-unit", EMU, "--quick"],
        options: &[("--out", "s")],
    },
];

/// The long options of `command --help` that take a value.
fn value_options(command: &[&str]) -> Vec<String> {
    let mut args = command.to_vec();
    args.push("--help");
    let out = common::ssdiq(&args);
    assert!(out.status.success(), "{args:?}");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut opts = Vec::new();
    for line in text.lines() {
        // "  -s, --seed <SEED>  ..." or "      --seed <SEED>  ..."
        let t = line.trim_start();
        let t = match t.split_once(", --") {
            Some((short, rest)) if short.starts_with('-') && short.len() == 2 => rest,
            _ => match t.strip_prefix("--") {
                Some(rest) => rest,
                None => continue,
            },
        };
        let mut parts = t.split_whitespace();
        let name = parts.next().unwrap_or("");
        if parts.next().is_some_and(|v| v.starts_with('<')) {
            opts.push(format!("--{name}"));
        }
    }
    opts
}

fn scene(d: &Path) {
    std::fs::write(
        d.join("t.csv"),
        "10,h,0,Write,0,4096,0\n20,h,0,Write,4096,4096,0\n30,h,0,Read,0,4096,0\n",
    )
    .unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/golden/sample-run.json"),
        d.join("sample.json"),
    )
    .unwrap();
    std::fs::create_dir(d.join("shards")).unwrap();
}

/// What went wrong with one invocation, if anything.
fn try_one(dir: &Path, args: &[String]) -> Option<String> {
    let mut child = Command::new(common::bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut interrupted = None;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                use std::io::Read;
                let _ = e.read_to_string(&mut err);
            }
            let last = err.lines().last().unwrap_or("").to_string();
            return match status.code() {
                Some(101) => Some(format!("{args:?}: panicked: {last}")),
                None => Some(format!("{args:?}: killed by a signal ({status})")),
                _ => None,
            };
        }
        match interrupted {
            None if started.elapsed() > RUN_FOR => {
                // SAFETY: signalling our own child by its pid.
                unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
                interrupted = Some(Instant::now());
            }
            Some(at) if at.elapsed() > STOP_WITHIN => {
                let _ = child.kill();
                let _ = child.wait();
                return Some(format!(
                    "{args:?}: still running {STOP_WITHIN:?} after SIGINT"
                ));
            }
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
#[ignore = "slow, about 18 s: .ci/extra/slow-tests.sh runs it"]
fn no_value_of_any_option_panics_hangs_or_ignores_ctrl_c() {
    let mut jobs: Vec<Vec<String>> = Vec::new();
    for b in BASES {
        let opts = value_options(b.command);
        assert!(
            !opts.is_empty() || b.command == ["info"],
            "{:?}: no options found in its help",
            b.command
        );
        for opt in opts {
            for v in VALUES {
                let mut args: Vec<String> = b
                    .command
                    .iter()
                    .chain(b.words)
                    .map(|w| w.to_string())
                    .collect();
                for (f, val) in b.options.iter().filter(|(f, _)| *f != opt) {
                    args.push(f.to_string());
                    args.push(val.to_string());
                }
                args.push(opt.clone());
                args.push(v.to_string());
                jobs.push(args);
            }
        }
    }
    assert!(jobs.len() > 400, "only {} invocations", jobs.len());
    let jobs = Mutex::new(jobs.into_iter());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                // Each worker has its own directory: outputs of one never meet another's.
                let dir = tempfile::tempdir().unwrap();
                scene(dir.path());
                loop {
                    let Some(args) = jobs.lock().unwrap().next() else {
                        break;
                    };
                    if let Some(f) = try_one(dir.path(), &args) {
                        failures.lock().unwrap().push(f);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
