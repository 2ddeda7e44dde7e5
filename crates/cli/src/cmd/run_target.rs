//! Opening the target of `ssdiq run`: the emulated SSD (`emu:...`) or a file / block device,
//! with the same safety checks as `ssdiq io` before anything can be written.

use std::path::{Path, PathBuf};

use ssdiq_suite::{DeviceTarget, EmuTarget, SuiteError, SuiteTarget};

use crate::error::usage;

/// Suite errors raised before anything was written are bad input (exit 2).
pub fn suite_usage(e: SuiteError) -> anyhow::Error {
    if e.is_usage() {
        usage(e.to_string())
    } else {
        e.into()
    }
}

pub fn open(
    target: &str,
    size: Option<u64>,
    allow_destroy: Option<&Path>,
) -> anyhow::Result<Box<dyn SuiteTarget>> {
    if target.starts_with("emu:") {
        if size.is_some() {
            return Err(usage(format!(
                "invalid --size: {target} has its own capacity; --size is for file targets"
            )));
        }
        return open_emu(target);
    }
    let path = PathBuf::from(target);
    let t = DeviceTarget::open(&path, size).map_err(suite_usage)?;
    if let Some(a) = allow_destroy {
        if !t.is_block() {
            return Err(usage(format!(
                "invalid --allow-destroy \"{}\": {} is not a block device",
                a.display(),
                path.display()
            )));
        }
    }
    if t.is_block() {
        ssdiq_nvme::safety::check_destructive(&path, allow_destroy).map_err(|e| match e {
            ssdiq_nvme::safety::SafetyError::Refused(m) => usage(m),
            other => anyhow::Error::new(other),
        })?;
    }
    Ok(Box::new(t))
}

fn open_emu(target: &str) -> anyhow::Result<Box<dyn SuiteTarget>> {
    Ok(Box::new(EmuTarget::open(target).map_err(suite_usage)?))
}
