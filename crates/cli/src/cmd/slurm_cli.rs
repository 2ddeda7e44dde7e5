//! What `sim --slurm` and `run --slurm` share: the command line a job repeats, absolute
//! paths, and writing the scripts.

use std::path::{Path, PathBuf};

use ssdiq_sweep::slurm::{check_one_line, JobSpec};

use crate::error::usage;
use crate::output::write_output;

/// The arguments this process was started with, after the binary name, without the named
/// flags: `with_value` flags drop their value too (`--json F` and `--json=F` both).
pub fn argv_without(with_value: &[&str], bare: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let name = a.split_once('=').map_or(a.as_str(), |(n, _)| n);
        if with_value.contains(&name) {
            if !a.contains('=') {
                args.next();
            }
            continue;
        }
        if bare.contains(&a.as_str()) {
            continue;
        }
        out.push(a);
    }
    out
}

pub fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    std::path::absolute(p).map_err(|e| usage(format!("invalid path \"{}\": {e}", p.display())))
}

/// None of the files `names` in `dir` is one of `inputs` (a profile or a trace the jobs read,
/// kept in the --slurm directory under a script's name): checked before anything is written.
pub fn check_scripts(dir: &Path, names: &[&str], inputs: &[PathBuf]) -> anyhow::Result<()> {
    let paths: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    let outputs: Vec<(&str, Option<&Path>)> = paths
        .iter()
        .map(|p| ("--slurm", Some(p.as_path())))
        .collect();
    crate::output::check_apart(&outputs, inputs)
}

/// Creates `dir` with `subdirs`; refuses if `fresh` (a subdirectory) already holds JSON
/// results of an earlier submission, which a later merge would mix in.
pub fn prepare_dir(dir: &Path, subdirs: &[&str], fresh: &str) -> anyhow::Result<PathBuf> {
    let dir = absolute(dir)?;
    let results = dir.join(fresh);
    if let Ok(entries) = std::fs::read_dir(&results) {
        if entries
            .filter_map(Result::ok)
            .any(|e| e.path().extension().is_some_and(|x| x == "json") || e.path().is_dir())
        {
            return Err(usage(format!(
                "\"{}\" holds results of an earlier submission; choose another --slurm DIR or remove them",
                results.display()
            )));
        }
    }
    for s in subdirs {
        std::fs::create_dir_all(dir.join(s))
            .map_err(|e| usage(format!("cannot create \"{}\": {e}", dir.join(s).display())))?;
    }
    Ok(dir)
}

/// The job settings: logs in DIR/logs, the current directory as the jobs' working directory.
/// Every text that lands in a script line must stay on that line.
pub fn job_spec(name: &str, dir: &Path, cpus: u32, sbatch: &[String]) -> anyhow::Result<JobSpec> {
    let spec = JobSpec {
        name: name.into(),
        workdir: std::env::current_dir()?,
        logs: dir.join("logs"),
        cpus,
        sbatch: sbatch.to_vec(),
        binary: std::env::current_exe()?,
    };
    let one_line = |what: &str, s: &str| check_one_line(what, s).map_err(usage);
    one_line("--slurm", &dir.display().to_string())?;
    one_line("working directory", &spec.workdir.display().to_string())?;
    one_line("ssdiq binary path", &spec.binary.display().to_string())?;
    for o in sbatch {
        one_line("--slurm-opt", o)?;
    }
    Ok(spec)
}

/// Writes a script (mode 0755 for `submit.sh`, so it runs as `DIR/submit.sh`).
pub fn write_script(path: &Path, text: &str) -> anyhow::Result<()> {
    write_output(path, text.as_bytes())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    Ok(())
}
