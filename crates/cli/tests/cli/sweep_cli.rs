//! End-to-end tests of sweeps beyond one machine: `--shard K/N`, `ssdiq sim merge`, the
//! scripts of `--slurm DIR` (run here by bash the way Slurm would run them), and partial
//! results on SIGINT.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use common::{bin, json, ok, s, usage_error};

/// A sweep of 12 points: two policies x two patterns x three OPs, on a small drive.
const SWEEP: [&str; 14] = [
    "sim",
    "--capacity",
    "32MiB",
    "--block",
    "64KiB",
    "--writes",
    "1x",
    "--gc",
    "greedy,2r-fifo",
    "--pattern",
    "uniform,zones:80@20,20@80",
    "--op",
    "7%,15%,28%",
    "--quiet",
];

fn sweep(extra: &[&str]) -> Vec<String> {
    SWEEP.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn run(args: &[String]) -> std::process::Output {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&a)
}

/// The document without the run times, the only field allowed to differ.
fn without_seconds(p: &Path) -> serde_json::Value {
    let mut v = json(p);
    for r in v["runs"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("seconds");
    }
    v
}

fn single(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let (j, c, h) = (
        dir.join("one.json"),
        dir.join("one.csv"),
        dir.join("one.html"),
    );
    run(&sweep(&["--json", s(&j), "--csv", s(&c), "--html", s(&h)]));
    (j, c, h)
}

fn assert_same_as_single(dir: &Path, j: &Path, c: &Path, h: &Path) {
    let (sj, sc, sh) = single(dir);
    assert_eq!(without_seconds(j), without_seconds(&sj));
    assert_eq!(std::fs::read(c).unwrap(), std::fs::read(sc).unwrap(), "CSV");
    assert_eq!(
        std::fs::read(h).unwrap(),
        std::fs::read(sh).unwrap(),
        "HTML"
    );
    assert_eq!(json(j)["runs"].as_array().unwrap().len(), 12);
}

#[test]
fn shards_merge_into_the_single_machine_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    std::fs::create_dir(&shards).unwrap();
    for k in 1..=5 {
        let f = shards.join(format!("s{k}.json"));
        run(&sweep(&["--shard", &format!("{k}/5"), "--json", s(&f)]));
        let doc = json(&f);
        assert_eq!(doc["kind"], "sim-shard");
        // Round-robin: shard k holds points k-1, k-1+5, ...
        let idx: Vec<u64> = doc["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["index"].as_u64().unwrap())
            .collect();
        let want: Vec<u64> = (0..12).filter(|i| i % 5 == k - 1).collect();
        assert_eq!(idx, want);
    }
    let (j, c, h) = (
        dir.path().join("m.json"),
        dir.path().join("m.csv"),
        dir.path().join("m.html"),
    );
    // A file that is not JSON at all (a shard cut short, or anything else) is passed over
    // with a note, not fatal.
    std::fs::write(shards.join("junk.json"), "{\"a\":").unwrap();
    let out = ok(&[
        "sim",
        "merge",
        s(&shards),
        "--json",
        s(&j),
        "--csv",
        s(&c),
        "--html",
        s(&h),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("passed over") && err.contains("junk.json\" is not JSON"),
        "{err}"
    );
    assert_same_as_single(dir.path(), &j, &c, &h);
    std::fs::remove_file(shards.join("junk.json")).unwrap();

    // A shard cut short is named as unreadable, not as missing (issue 50).
    let whole = std::fs::read_to_string(shards.join("s3.json")).unwrap();
    std::fs::write(shards.join("s3.json"), &whole[..whole.len() / 2]).unwrap();
    let o = common::ssdiq(&["sim", "merge", s(&shards), "--json", s(&j)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let last = err.trim_end().lines().last().unwrap_or("");
    assert!(
        last.contains("no readable file for shard 3/5: \"") && last.contains("cut short"),
        "{err}"
    );
    // A missing shard fails and names it; --allow-partial merges what is there.
    std::fs::remove_file(shards.join("s3.json")).unwrap();
    usage_error(
        &["sim", "merge", s(&shards), "--json", s(&j)],
        "no file for shard 3/5",
    );
    let p = dir.path().join("p.json");
    ok(&[
        "sim",
        "merge",
        s(&shards),
        "--allow-partial",
        "--json",
        s(&p),
    ]);
    let doc = json(&p);
    assert_eq!(doc["partial"], true);
    assert_eq!(doc["runs"].as_array().unwrap().len(), 12 - 2);
    // A shard of another sweep, and a shard twice, are refused.
    let other = shards.join("other.json");
    let mut args = sweep(&["--shard", "3/5", "--json", s(&other)]);
    args[6] = "2x".into();
    run(&args);
    usage_error(&["sim", "merge", s(&shards)], "another sweep");
    // The same sweep cut into another number of shards.
    run(&sweep(&["--shard", "3/6", "--json", s(&other)]));
    usage_error(
        &["sim", "merge", s(&shards)],
        "shards of one sweep are cut into the same number of parts",
    );
    run(&sweep(&["--shard", "2/5", "--json", s(&other)]));
    usage_error(&["sim", "merge", s(&shards)], "shard 2/5 appears twice");
    usage_error(
        &["sim", "merge", s(dir.path().join("none").as_path())],
        "not a directory",
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    usage_error(&["sim", "merge", s(&empty)], "no shard in");
}

#[test]
fn shard_flags_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("x.json");
    usage_error(
        &["sim", "--shard", "1/2"],
        "--shard writes its runs with --json",
    );
    usage_error(
        &["sim", "--shard", "3/2", "--json", s(&j)],
        "K must be between 1 and N",
    );
    usage_error(&["sim", "--shard", "1-2", "--json", s(&j)], "expected K/N");
    // More shards than points: the last would hold none.
    let args = sweep(&["--shard", "13/13", "--json", s(&j)]);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    usage_error(&a, "the sweep has 12 points, so shard 13 of 13 holds none");
    assert!(!j.exists());
    usage_error(
        &["sim", "--shard", "1/2", "--json", s(&j), "--csv", s(&j)],
        "the CSV and HTML come from ssdiq sim merge",
    );
    assert!(!j.exists());
}

#[test]
fn slurm_scripts_run_the_sweep_in_shards_and_merge_it() {
    let dir = tempfile::tempdir().unwrap();
    let sl = dir.path().join("slurm");
    let (j, c, h) = (
        dir.path().join("m.json"),
        dir.path().join("m.csv"),
        dir.path().join("m.html"),
    );
    let out = run(&sweep(&[
        "--slurm",
        s(&sl),
        "--slurm-tasks",
        "4",
        "--slurm-opt=--time=00:10:00",
        "--json",
        s(&j),
        "--csv",
        s(&c),
        "--html",
        s(&h),
    ]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("submit with: bash"));
    let array = std::fs::read_to_string(sl.join("sweep.sbatch")).unwrap();
    for want in [
        "#SBATCH --array=1-4",
        "#SBATCH --time=00:10:00",
        "--shard=${SLURM_ARRAY_TASK_ID}/4",
        "zones:80@20,20@80",
        "--quiet",
    ] {
        assert!(array.contains(want), "{want:?} in\n{array}");
    }
    assert!(!array.contains("--slurm"), "{array}");
    let submit = std::fs::read_to_string(sl.join("submit.sh")).unwrap();
    assert!(
        submit.contains("--dependency=afterok:\"$array\""),
        "{submit}"
    );
    // What Slurm would do: each array task, then the merge.
    let bin = env!("CARGO_BIN_EXE_ssdiq");
    for k in 1..=4 {
        let st = Command::new("bash")
            .arg(sl.join("sweep.sbatch"))
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("SSDIQ", bin)
            .status()
            .unwrap();
        assert!(st.success());
    }
    let st = Command::new("bash")
        .arg(sl.join("merge.sbatch"))
        .env("SSDIQ", bin)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    assert_same_as_single(dir.path(), &j, &c, &h);
    // The directory now holds shards: a second submission into it is refused.
    let again = sweep(&["--slurm", s(&sl)]);
    let a: Vec<&str> = again.iter().map(String::as_str).collect();
    usage_error(&a, "holds results of an earlier submission");
    usage_error(
        &[
            "sim",
            "--slurm",
            s(&dir.path().join("x")),
            "--slurm-tasks",
            "9",
        ],
        "only 1 points",
    );
}

#[test]
fn an_interrupted_sweep_writes_its_finished_runs_marked_partial() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("s.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdiq"))
        .args([
            "sim",
            "--capacity",
            "64MiB",
            "--block",
            "128KiB",
            "--writes",
            "5x",
            "--seed",
            &(1..=40)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(","),
            "--json",
            s(&j),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until some run has finished (printed its last drive write), then interrupt.
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for l in lines.by_ref() {
        if l.unwrap().contains("5.00 dw") {
            break;
        }
    }
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    for _ in lines {}
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(130));
    let doc = json(&j);
    assert_eq!(doc["partial"], true);
    // Runs that finished before the signal are kept (how many depends on timing).
    assert!(doc["runs"].as_array().unwrap().len() < 40);
}

/// Slurm scripts interpolate paths, targets and options: none may run as shell code. A
/// directory named with `$(...)`, backquotes, quotes and spaces gets scripts that, run the
/// way sbatch and Slurm run them (a fake `sbatch` on PATH, `SSDIQ=true`), create nothing; a
/// newline in an option is refused before anything is written.
#[test]
fn slurm_scripts_never_run_what_a_name_holds() {
    let d = tempfile::tempdir().unwrap();
    let hostile = "d $(touch PWNED) `touch PWNED` \"x'y";
    let fake = d.path().join("bin");
    std::fs::create_dir(&fake).unwrap();
    std::fs::write(fake.join("sbatch"), "#!/bin/sh\necho 42\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(fake.join("sbatch"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap());
    for (sub, args) in [
        ("sim", common::TWO_POINT_SIM.to_vec()),
        (
            "run",
            vec!["run", "emu:default", "--quick", "--slurm-nodes", "n1,n2"],
        ),
    ] {
        let dir = d.path().join(format!("{sub} {hostile}"));
        let mut a = args.clone();
        a.extend([
            "--slurm",
            s(&dir),
            "--slurm-opt",
            "--comment=a $(touch PWNED) b",
        ]);
        let out = Command::new(bin())
            .args(&a)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The printed hint is a command that can be pasted as it is.
        let hint = String::from_utf8_lossy(&out.stdout);
        let line = hint
            .lines()
            .find(|l| l.starts_with("submit with: "))
            .unwrap();
        let st = Command::new("bash")
            .arg("-c")
            .arg(line.trim_start_matches("submit with: "))
            .current_dir(d.path())
            .env("PATH", &path)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "{line}");
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "sbatch") {
                let st = Command::new("bash")
                    .arg(&p)
                    .current_dir(d.path())
                    .env("SSDIQ", "true")
                    .env("SLURM_ARRAY_TASK_ID", "1")
                    .status()
                    .unwrap();
                assert!(st.success(), "{}", p.display());
            }
        }
        assert!(
            !d.path().join("PWNED").exists(),
            "{sub}: a script ran a name"
        );
        assert!(!dir.join("PWNED").exists(), "{sub}: a script ran a name");
        let fresh = d.path().join(format!("{sub}-newline"));
        let mut a = args.clone();
        a.extend(["--slurm", s(&fresh), "--slurm-opt", "--time=1\ntouch PWNED"]);
        let a: Vec<&str> = a.to_vec();
        usage_error(&a, "would start a new line of the job script");
        assert!(!fresh.exists(), "refused before anything is written");
    }
}

/// `run --slurm`: targets with emulator options, and the inputs that used to be taken
/// silently: a node twice, an unknown profile, --out (issue 30, item 11).
#[test]
fn run_slurm_checks_its_nodes_and_takes_targets_with_options() {
    let d = tempfile::tempdir().unwrap();
    let dir = |n: &str| d.path().join(n);
    let refused: &[(&str, &[&str], &str)] = &[
        ("a", &["--slurm-nodes", "n1,n1"], "given twice"),
        (
            "b",
            &["--slurm-nodes", "n1:emu:nope"],
            "unknown emu profile",
        ),
        ("c", &["--slurm-nodes", "n1:emu:default,nokey=1"], "nokey"),
        ("d", &["--slurm-nodes", "n1", "--out", "x"], "with --slurm"),
    ];
    for (name, extra, needle) in refused {
        let path = dir(name);
        let mut a = vec!["run", "emu:default", "--slurm", s(&path)];
        a.extend_from_slice(extra);
        usage_error(&a, needle);
        assert!(!dir(name).exists(), "{a:?} wrote nothing");
    }
    ok(&[
        "run",
        "emu:default",
        "--slurm",
        s(&dir("ok")),
        "--slurm-nodes",
        "n1:emu:default,op=0.07,n2",
    ]);
    let jobs: String = std::fs::read_dir(dir("ok"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("run-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(jobs.contains("run emu:default,op=0.07 --out"), "{jobs}");
    assert!(jobs.contains("run emu:default --out"), "{jobs}");
}
