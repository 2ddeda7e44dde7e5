//! The nodes of `ssdiq run --slurm-nodes n1,n2:/dev/nvme1n1`: which node runs which target,
//! and the directory each writes its results into.

/// NODE or NODE:TARGET entries. A target may carry emulator options after commas
/// (`n1:emu:default,op=0.07,n2`): an item of the form `key=value` continues the target before
/// it. Each target passes `check_target` here (an unknown profile or option fails now, not
/// on the cluster), and no two entries may share a node and target (their results would
/// share a directory).
pub fn nodes(
    list: &str,
    default_target: &str,
    check_target: &dyn Fn(&str) -> Result<(), String>,
) -> Result<Vec<(String, String)>, String> {
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
            return Err(format!(
                "invalid --slurm-nodes entry \"{item}\": expected NODE or NODE:TARGET"
            ));
        }
        out.push((node.to_string(), target.to_string()));
    }
    for (i, (node, target)) in out.iter().enumerate() {
        // Checked here, where the node is named; each node's job parses it again on its own
        // machine.
        check_target(target).map_err(|e| format!("invalid --slurm-nodes target of {node}: {e}"))?;
        if out[..i]
            .iter()
            .any(|(n, t)| result_name(n, t) == result_name(node, target))
        {
            return Err(format!(
                "invalid --slurm-nodes: {node}:{target} is given twice (both jobs would write one results directory)"
            ));
        }
    }
    Ok(out)
}

/// A directory name for a node's results: "node-dev-nvme0n1".
pub fn result_name(node: &str, target: &str) -> String {
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
