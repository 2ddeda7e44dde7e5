//! `ssdiq sim ... --slurm DIR`: a Slurm job array whose task K runs shard K/N of the sweep,
//! and the merge as a job that starts once every task succeeded.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ssdiq_sweep::slurm::{array_script, job_script, quote, submit_array_then, Word};

use super::slurm_cli::{
    absolute, argv_without, check_scripts, job_spec, prepare_dir, write_script,
};
use crate::error::usage;

/// Array tasks when --slurm-tasks is not given: one per point, up to this many.
const MAX_DEFAULT_TASKS: usize = 1000;

pub struct SlurmArgs {
    pub tasks: Option<u32>,
    pub cpus: u32,
    pub sbatch: Vec<String>,
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// `inputs`: the files the sweep reads (traces), which no script may replace.
pub fn write(
    a: &SlurmArgs,
    dir: &Path,
    points: usize,
    inputs: &[PathBuf],
) -> anyhow::Result<ExitCode> {
    let tasks = match a.tasks {
        Some(0) => return Err(usage("invalid --slurm-tasks \"0\": must be >= 1")),
        Some(t) if t as usize > points => {
            return Err(usage(format!(
                "invalid --slurm-tasks \"{t}\": the sweep has only {points} points"
            )))
        }
        Some(t) => t,
        None => points.min(MAX_DEFAULT_TASKS) as u32,
    };
    if a.cpus == 0 {
        return Err(usage("invalid --slurm-cpus \"0\": must be >= 1"));
    }
    // The job settings are checked before anything is created.
    let spec = job_spec("ssdiq-sim", &absolute(dir)?, a.cpus, &a.sbatch)?;
    check_scripts(dir, &["sweep.sbatch", "merge.sbatch", "submit.sh"], inputs)?;
    let dir = prepare_dir(dir, &["shards", "logs"], "shards")?;
    let mut args: Vec<Word> = argv_without(
        &[
            "--slurm",
            "--slurm-tasks",
            "--slurm-cpus",
            "--slurm-opt",
            "--json",
            "--csv",
            "--html",
            "--shard",
        ],
        &["--quiet", "-q"],
    )
    .into_iter()
    .map(Word::Lit)
    .collect();
    let shards = dir.join("shards");
    args.push(Word::Task(format!("--shard={{task}}/{tasks}")));
    args.push(Word::Task(format!(
        "--json={}/shard-{{task}}.json",
        shards.display()
    )));
    args.push(Word::Lit("--quiet".into()));
    let out = |given: &Option<PathBuf>, name: &str| -> anyhow::Result<PathBuf> {
        match given {
            Some(p) => absolute(p),
            None => Ok(dir.join(name)),
        }
    };
    let (json, csv, html) = (
        out(&a.json, "sim.json")?,
        out(&a.csv, "sim.csv")?,
        out(&a.html, "sim.html")?,
    );
    let lit = |s: &str| Word::Lit(s.to_string());
    let path = |p: &Path| Word::Lit(p.display().to_string());
    let merge = vec![
        lit("sim"),
        lit("merge"),
        path(&shards),
        lit("--json"),
        path(&json),
        lit("--csv"),
        path(&csv),
        lit("--html"),
        path(&html),
    ];
    let array_path = dir.join("sweep.sbatch");
    let merge_path = dir.join("merge.sbatch");
    write_script(
        &array_path,
        &array_script(
            &spec,
            &format!("ssdiq sim sweep of {points} points in {tasks} shards (task K runs shard K/{tasks})"),
            tasks,
            &args,
        ),
    )?;
    let mut merge_spec = spec.clone();
    merge_spec.cpus = 1;
    write_script(
        &merge_path,
        &job_script(
            &merge_spec,
            "joins the shards into the sweep's JSON, CSV and HTML",
            "ssdiq-sim-merge",
            &[merge],
        ),
    )?;
    let submit = dir.join("submit.sh");
    write_script(
        &submit,
        &submit_array_then(&array_path, &merge_path, &json.display().to_string()),
    )?;
    println!(
        "wrote {} ({tasks} array tasks for {points} points), {} and {}\nsubmit with: bash {}",
        array_path.display(),
        merge_path.display(),
        submit.display(),
        quote(&submit.display().to_string())
    );
    Ok(ExitCode::SUCCESS)
}
