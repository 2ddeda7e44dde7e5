//! `ssdiq run TARGET --slurm DIR --slurm-nodes n1,n2:/dev/nvme1n1`: one Slurm job per node
//! (pinned with --nodelist, --exclusive so nothing else disturbs the drive), each writing
//! its results into DIR/results/NODE-TARGET, then a job that puts every drive side by side
//! with `ssdiq report` once all have ended.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ssdiq_sweep::slurm::{job_script, quote, submit_nodes_then, Word};
use ssdiq_sweep::slurm_nodes;

use super::slurm_cli::{
    absolute, argv_without, check_scripts, job_spec, prepare_dir, write_script,
};
use crate::error::usage;

/// `allow_destroy`: the device the command line allowed to be overwritten; if it is TARGET,
/// each node's job allows its own target instead.
pub fn write(
    dir: &Path,
    list: &str,
    target: &str,
    allow_destroy: Option<&Path>,
    sbatch: &[String],
) -> anyhow::Result<ExitCode> {
    let nodes = slurm_nodes::nodes(list, target, &|t| {
        ssdiq_emu::TargetSpec::parse(t)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
    .map_err(usage)?;
    let mut opts = sbatch.to_vec();
    opts.push("--exclusive".into());
    // The job settings are checked before anything is created.
    let spec = job_spec("ssdiq-run", &absolute(dir)?, 1, &opts)?;
    let mut scripts: Vec<String> = nodes
        .iter()
        .map(|(node, t)| format!("run-{}.sbatch", slurm_nodes::result_name(node, t)))
        .collect();
    scripts.extend(["report.sbatch", "submit.sh", "report.md", "report.html"].map(String::from));
    let inputs: Vec<PathBuf> = nodes
        .iter()
        .flat_map(|(_, t)| ssdiq_emu::target_inputs(t))
        .collect();
    let names: Vec<&str> = scripts.iter().map(String::as_str).collect();
    check_scripts(dir, &names, &inputs)?;
    let dir = prepare_dir(dir, &["results", "logs"], "results")?;
    let results = dir.join("results");
    let per_node_allow = allow_destroy.is_some_and(|a| a == Path::new(target));
    let mut drop = vec!["--slurm", "--slurm-nodes", "--slurm-opt", "--out"];
    if per_node_allow {
        drop.push("--allow-destroy");
    }
    let mut base = argv_without(&drop, &["--quiet"]);
    // The positional target is given per node.
    if let Some(i) = base.iter().skip(1).position(|a| a == target) {
        base.remove(i + 1);
    }
    let mut jobs = Vec::new();
    for (node, t) in &nodes {
        let name = slurm_nodes::result_name(node, t);
        let mut cmd: Vec<Word> = base.iter().cloned().map(Word::Lit).collect();
        cmd.push(Word::Lit(t.clone()));
        if per_node_allow {
            cmd.push(Word::Lit("--allow-destroy".into()));
            cmd.push(Word::Lit(t.clone()));
        }
        cmd.push(Word::Lit("--out".into()));
        cmd.push(Word::Lit(results.join(&name).display().to_string()));
        cmd.push(Word::Lit("--quiet".into()));
        let path = dir.join(format!("run-{name}.sbatch"));
        write_script(
            &path,
            &job_script(
                &spec,
                &format!("the SSD-iq benchmark of {t} on node {node}"),
                &format!("ssdiq-run-{node}"),
                &[cmd],
            ),
        )?;
        jobs.push((node.clone(), path));
    }
    let mut report_spec = spec.clone();
    report_spec.sbatch = sbatch.to_vec();
    let report = vec![
        Word::Lit("report".into()),
        Word::Raw(format!(
            "{}/*/run.json",
            quote(&results.display().to_string())
        )),
        Word::Lit("--markdown".into()),
        Word::Lit(dir.join("report.md").display().to_string()),
        Word::Lit("--html".into()),
        Word::Lit(dir.join("report.html").display().to_string()),
        Word::Lit("--color".into()),
        Word::Lit("never".into()),
    ];
    let report_path = dir.join("report.sbatch");
    write_script(
        &report_path,
        &job_script(
            &report_spec,
            "compares the drives' results (run after every node's job ended)",
            "ssdiq-report",
            &[report],
        ),
    )?;
    let submit = dir.join("submit.sh");
    write_script(
        &submit,
        &submit_nodes_then(
            &jobs,
            &report_path,
            &dir.join("report.html").display().to_string(),
        ),
    )?;
    println!(
        "wrote {} node job{} and {} into {}\nsubmit with: bash {}",
        jobs.len(),
        if jobs.len() == 1 { "" } else { "s" },
        report_path.display(),
        dir.display(),
        quote(&submit.display().to_string())
    );
    Ok(ExitCode::SUCCESS)
}
