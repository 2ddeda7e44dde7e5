//! `--allow-destroy DEVICE` of `run` and `io`: it must name the target's block device again.
//! Checked before anything else is done with the target, so a typo is one line and exit 2
//! (not an error after setup, and never silently ignored).

use std::path::Path;

use ssdiq_emu::TargetSpec;
use ssdiq_nvme::safety::written_block_device;

use crate::error::refused as usage;

/// Usage error unless `allowed` is the block device `target` is (compared by device number,
/// so a symlink to the device counts).
pub fn check(spec: &TargetSpec, allowed: &Path) -> anyhow::Result<()> {
    let shown = allowed.display();
    let Some(path) = spec.path() else {
        return Err(usage(format!(
            "invalid --allow-destroy \"{shown}\": {spec} is an emulated drive; nothing real is written"
        )));
    };
    let target = path.display();
    // An NVMe generic char device counts as its namespace's block device, either way round.
    let Ok(Some((_, t))) = written_block_device(path) else {
        return Err(usage(format!(
            "invalid --allow-destroy \"{shown}\": {target} is not a block device"
        )));
    };
    let Some((_, a)) = written_block_device(allowed)
        .map_err(|e| usage(format!("invalid --allow-destroy \"{shown}\": {e}")))?
    else {
        return Err(usage(format!(
            "invalid --allow-destroy \"{shown}\": not a block device"
        )));
    };
    if t != a {
        return Err(usage(format!(
            "invalid --allow-destroy \"{shown}\": it names another device than {target}"
        )));
    }
    Ok(())
}
