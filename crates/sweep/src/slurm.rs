//! Slurm job scripts: a job array whose task K runs shard K/N, a job per node, and the step
//! that joins their results, submitted as a job that depends on them. ssdiq never talks to
//! the scheduler; `submit.sh` runs `sbatch`.
//!
//! Invariants: every path in a script is absolute (jobs start wherever Slurm puts them, and
//! `--chdir` pins the working directory the command line was written for); every word of a
//! command is shell-quoted; the ssdiq binary is `$SSDIQ` if set, else the one that wrote the
//! script (on a cluster, a path on the shared file system).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One word of a command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    /// Passed as is.
    Lit(String),
    /// `{task}` stands for the array task id (`$SLURM_ARRAY_TASK_ID`).
    Task(String),
    /// Shell text inserted as it is (a glob): the caller quotes what must be quoted.
    Raw(String),
}

/// What every generated job shares.
#[derive(Clone, Debug)]
pub struct JobSpec {
    /// Slurm job name.
    pub name: String,
    /// Working directory of the jobs (where the command line was typed).
    pub workdir: PathBuf,
    /// Directory of the jobs' stdout/stderr files.
    pub logs: PathBuf,
    /// CPUs per task (rayon uses that many threads).
    pub cpus: u32,
    /// Extra `#SBATCH` options, e.g. `--partition=long` or `--time=02:00:00`.
    pub sbatch: Vec<String>,
    /// The ssdiq binary to default to.
    pub binary: PathBuf,
}

/// Refuses text that would end a script line early: a newline (or CR, or NUL) in an
/// `#SBATCH` option or a path of a generated script starts a line the shell runs.
pub fn check_one_line(what: &str, s: &str) -> Result<(), String> {
    match s.chars().find(|c| matches!(c, '\n' | '\r' | '\0')) {
        None => Ok(()),
        Some(c) => Err(format!(
            "invalid {what} {:?}: contains {}, which would start a new line of the job script",
            s,
            match c {
                '\n' => "a newline",
                '\r' => "a carriage return",
                _ => "a NUL byte",
            }
        )),
    }
}

/// Quotes a word for bash: bare if it is made of safe characters, else single-quoted.
pub fn quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,+%@".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

fn word(w: &Word) -> String {
    match w {
        Word::Lit(s) => quote(s),
        Word::Raw(s) => s.clone(),
        Word::Task(t) => {
            let mut out = String::from("\"");
            for c in t.replace("{task}", "\u{0}").chars() {
                match c {
                    '\u{0}' => out.push_str("${SLURM_ARRAY_TASK_ID}"),
                    '"' | '\\' | '$' | '`' => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
    }
}

/// The command as a bash line running `$SSDIQ` with `args`.
fn command(args: &[Word]) -> String {
    let mut s = String::from("\"$SSDIQ\"");
    for a in args {
        s.push(' ');
        s.push_str(&word(a));
    }
    s
}

fn header(spec: &JobSpec, what: &str, name: &str, log: &str, array: Option<u32>) -> String {
    let mut s = String::from("#!/bin/bash\n");
    let _ = writeln!(s, "# {what}");
    let _ = writeln!(
        s,
        "# Written by ssdiq {}; submit with submit.sh.",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(s, "#SBATCH --job-name={}", quote(name));
    if let Some(n) = array {
        let _ = writeln!(s, "#SBATCH --array=1-{n}");
    }
    let _ = writeln!(s, "#SBATCH --cpus-per-task={}", spec.cpus.max(1));
    let _ = writeln!(
        s,
        "#SBATCH --chdir={}",
        quote(&spec.workdir.display().to_string())
    );
    let _ = writeln!(
        s,
        "#SBATCH --output={}",
        quote(&spec.logs.join(log).display().to_string())
    );
    for o in &spec.sbatch {
        let _ = writeln!(s, "#SBATCH {o}");
    }
    s.push_str("set -euo pipefail\n");
    s.push_str("export RAYON_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"\n");
    // The default binary is a quoted word of its own: inside "${SSDIQ:-...}" a path holding
    // `$(...)` would run.
    let _ = writeln!(
        s,
        "if [ -z \"${{SSDIQ:-}}\" ]; then SSDIQ={}; fi",
        quote(&spec.binary.display().to_string())
    );
    s
}

/// A job array of `tasks` tasks, task K running `args` with `{task}` = K.
pub fn array_script(spec: &JobSpec, what: &str, tasks: u32, args: &[Word]) -> String {
    let mut s = header(spec, what, &spec.name, "%x-%A_%a.out", Some(tasks));
    let _ = writeln!(s, "{}", command(args));
    s
}

/// One job running each of `commands` in turn.
pub fn job_script(spec: &JobSpec, what: &str, name: &str, commands: &[Vec<Word>]) -> String {
    let mut s = header(spec, what, name, "%x-%j.out", None);
    for c in commands {
        let _ = writeln!(s, "{}", command(c));
    }
    s
}

/// `submit.sh` for an array followed by a step that runs once the whole array succeeded.
pub fn submit_array_then(array: &Path, then: &Path, results: &str) -> String {
    let mut s = String::from("#!/bin/bash\n# Submits the job array, then the step that joins its results once every task succeeded.\nset -euo pipefail\n");
    let _ = writeln!(
        s,
        "array=$(sbatch --parsable {})",
        quote(&array.display().to_string())
    );
    s.push_str("array=${array%%;*}\n");
    let _ = writeln!(
        s,
        "join=$(sbatch --parsable --kill-on-invalid-dep=yes --dependency=afterok:\"$array\" {})",
        quote(&then.display().to_string())
    );
    s.push_str("join=${join%%;*}\n");
    let _ = writeln!(
        s,
        "echo \"submitted job array $array and, after it, job $join; results: \"{}",
        quote(results)
    );
    s
}

/// `submit.sh` for one job per node (`sbatch --nodelist=NODE`), then a step that runs after
/// all of them ended (succeeded or not: one failed drive does not hide the others).
pub fn submit_nodes_then(jobs: &[(String, PathBuf)], then: &Path, results: &str) -> String {
    let mut s = String::from("#!/bin/bash\n# Submits one job per node, then the step that compares their results once all have ended.\nset -euo pipefail\nids=\"\"\n");
    for (node, script) in jobs {
        let _ = writeln!(
            s,
            "id=$(sbatch --parsable --nodelist={} {}); ids=\"$ids:${{id%%;*}}\"",
            quote(node),
            quote(&script.display().to_string())
        );
    }
    let _ = writeln!(
        s,
        "join=$(sbatch --parsable --dependency=afterany\"$ids\" {})",
        quote(&then.display().to_string())
    );
    s.push_str("join=${join%%;*}\n");
    let _ = writeln!(
        s,
        "echo \"submitted jobs ${{ids#:}} and, after them, job $join; results: \"{}",
        quote(results)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote("--gc"), "--gc");
        assert_eq!(quote("zones:80@20,20@80"), "zones:80@20,20@80");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("$HOME"), "'$HOME'");
        // What bash makes of each quoted word is the word itself, whatever it holds.
        for w in [
            "$(touch x)",
            "`touch x`",
            "a\"b",
            "it's",
            "a b",
            "two\nlines",
            "\\",
            "*",
        ] {
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("printf %s {}", quote(w)))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), w);
        }
        assert!(check_one_line("--slurm-opt", "--time=1").is_ok());
        for bad in ["a\nb", "a\rb", "a\0b"] {
            assert!(check_one_line("--slurm-opt", bad).is_err());
        }
        assert_eq!(
            word(&Word::Task("/r/shard-{task}.json".into())),
            "\"/r/shard-${SLURM_ARRAY_TASK_ID}.json\""
        );
        assert_eq!(
            word(&Word::Task("a\"$b{task}".into())),
            "\"a\\\"\\$b${SLURM_ARRAY_TASK_ID}\""
        );
    }

    #[test]
    fn array_script_shape() {
        let spec = JobSpec {
            name: "ssdiq-sim".into(),
            workdir: "/w".into(),
            logs: "/w/out/logs".into(),
            cpus: 2,
            sbatch: vec!["--partition=short".into()],
            binary: "/opt/ssdiq".into(),
        };
        let s = array_script(
            &spec,
            "a sweep",
            4,
            &[
                Word::Lit("sim".into()),
                Word::Task("--shard={task}/4".into()),
            ],
        );
        assert!(s.starts_with("#!/bin/bash\n"));
        for line in [
            "#SBATCH --array=1-4",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --chdir=/w",
            "#SBATCH --output=/w/out/logs/%x-%A_%a.out",
            "#SBATCH --partition=short",
            "if [ -z \"${SSDIQ:-}\" ]; then SSDIQ=/opt/ssdiq; fi",
            "\"$SSDIQ\" sim \"--shard=${SLURM_ARRAY_TASK_ID}/4\"",
        ] {
            assert!(s.lines().any(|l| l == line), "missing {line:?} in\n{s}");
        }
    }
}
