//! Returning the device of `ssdiq store` to a known state before each row.
//!
//! Why every row: a row's zones aligned to the drive's GC unit (NoWA, How to Write to SSDs
//! §5) line up with the drive's superblocks only if the drive's write pointer starts at a
//! superblock boundary. A row that starts where the last row (or an earlier run) left the
//! drive starts mid-superblock; every aligned group then straddles two superblocks for the
//! rest of the row, and the drive relocates (on FEMU, 16 zones per 2 MiB line: SSD WAF 2.17
//! after another row, 1.00 on a reset drive; docs/femu.md).
//!
//! Invariants:
//! - The emulated drive needs no reset: each row builds a new one. A zoned namespace has its
//!   zones reset when the row opens it.
//! - A whole block device (or NVMe generic char device) is reset as `ssdiq run` resets it
//!   (sanitize or format when that reaches only this namespace, then every LBA discarded).
//!   A file, or the part of a block device `--size` names, has every LBA the store uses
//!   discarded: a format would reach beyond what the row uses.
//! - The returned text says what was done; it is printed and kept in the row's JSON.

use ssdiq_emu::TargetSpec;
use ssdiq_engine::{TargetFacts, TargetKind};
use ssdiq_store::BackendChoice;
use ssdiq_store::Options;
use ssdiq_suite::{DeviceTarget, SuiteTarget};
use ssdiq_target::FilePlan;

use super::run_target::suite_usage;
use super::store::{open_device, Args};

/// Resets the row's device (module doc) and says how.
pub fn before_row(
    a: &Args,
    spec: &TargetSpec,
    o: &Options,
    plan: FilePlan,
) -> anyhow::Result<String> {
    let TargetSpec::Path(path) = spec else {
        return Ok("a new emulated drive".into());
    };
    if o.backend == BackendChoice::Zns {
        return Ok("every zone reset".into());
    }
    if a.no_reset {
        return Ok("none (--no-reset): the device as it was left".into());
    }
    let facts = TargetFacts::probe(path)?;
    let namespace = matches!(facts.kind, TargetKind::Block | TargetKind::NvmeChar);
    if namespace && a.drive.size.is_none() {
        let mut whole = DeviceTarget::open(path, None).map_err(suite_usage)?;
        return whole
            .reset()
            .map_err(|e| anyhow::anyhow!("resetting {} before the row: {e}", path.display()));
    }
    let mut d = open_device(a, spec, o, plan)?;
    let used = d.info().capacity;
    d.trim(0, used)
        .map_err(|e| anyhow::anyhow!("discarding {} before the row: {e}", path.display()))?;
    Ok(match facts.kind {
        TargetKind::File => "every block of the file discarded".into(),
        _ => format!(
            "the {} the store uses discarded (part of the device: no format)",
            ssdiq_workload::units::format_size(used)
        ),
    })
}
