//! `ssdiq run TARGET --slurm DIR --slurm-nodes n1,n2:/dev/nvme1n1`: one Slurm job per node
//! (pinned with --nodelist, --exclusive so nothing else disturbs the drive), each writing
//! its results into DIR/results/NODE-TARGET, then a job that puts every drive side by side
//! with `ssdiq report` once all have ended.

use std::path::Path;
use std::process::ExitCode;

use ssdiq_sweep::slurm::{job_script, quote, submit_nodes_then, Word};

use super::slurm_cli::{absolute, argv_without, job_spec, prepare_dir, write_script};
use crate::error::usage;

/// NODE or NODE:TARGET entries. A target may carry emulator options after commas
/// (`n1:emu:default,op=0.07,n2`): an item of the form `key=value` continues the target before
/// it. Emulated targets are checked here (an unknown profile or option fails now, not on the
/// cluster), and no two entries may share a node and target (their results would share a
/// directory).
fn nodes(list: &str, default_target: &str) -> anyhow::Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for item in list.split(',').map(str::trim) {
        let option = item.contains('=') && !item.contains(':');
        if let (true, Some(last)) = (option, out.last_mut()) {
            last.1.push(',');
            last.1.push_str(item);
            continue;
        }
        let (node, target) = match item.split_once(':') {
            Some((n, t)) => (n, t),
            None => (item, default_target),
        };
        let valid = !node.is_empty()
            && node
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
        if !valid || target.is_empty() {
            return Err(usage(format!(
                "invalid --slurm-nodes entry \"{item}\": expected NODE or NODE:TARGET"
            )));
        }
        out.push((node.to_string(), target.to_string()));
    }
    for (i, (node, target)) in out.iter().enumerate() {
        // Checked here, where the node is named; each node's job parses it again on its own
        // machine.
        ssdiq_emu::TargetSpec::parse(target)
            .map_err(|e| usage(format!("invalid --slurm-nodes target of {node}: {e}")))?;
        if out[..i]
            .iter()
            .any(|(n, t)| result_name(n, t) == result_name(node, target))
        {
            return Err(usage(format!(
                "invalid --slurm-nodes: {node}:{target} is given twice (both jobs would write one results directory)"
            )));
        }
    }
    Ok(out)
}

/// A directory name for a node's results: "node-dev-nvme0n1".
fn result_name(node: &str, target: &str) -> String {
    let t: String = target
        .trim_start_matches('/')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{node}-{t}")
}

/// `allow_destroy`: the device the command line allowed to be overwritten; if it is TARGET,
/// each node's job allows its own target instead.
pub fn write(
    dir: &Path,
    list: &str,
    target: &str,
    allow_destroy: Option<&Path>,
    sbatch: &[String],
) -> anyhow::Result<ExitCode> {
    let nodes = nodes(list, target)?;
    let mut opts = sbatch.to_vec();
    opts.push("--exclusive".into());
    // The job settings are checked before anything is created.
    let spec = job_spec("ssdiq-run", &absolute(dir)?, 1, &opts)?;
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
        let name = result_name(node, t);
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
