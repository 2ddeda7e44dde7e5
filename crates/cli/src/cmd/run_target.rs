//! Opening the target of `ssdiq run`: the emulated SSD (`emu:...`) or a file / block device,
//! checked by `ssdiq_target::open` before anything can be written.

use std::path::{Path, PathBuf};

use ssdiq_emu::{Profile, TargetSpec};

use ssdiq_suite::{DeviceTarget, EmuTarget, SuiteError, SuiteTarget};

use crate::error::{usage, OrUsage};
use ssdiq_emu::memory::drive_bytes;
use ssdiq_target::{check_memory, Access, Opened, Use};

/// The flags `run` and `study` share for the drive they open.
#[derive(clap::Args)]
pub struct DriveArgs {
    /// Size of a file target (created, or recreated with --recreate).
    #[arg(long)]
    pub size: Option<String>,
    /// Replace what exists: an existing file target (emptied on reset: its content is lost)
    /// and earlier results in --out. Without it, both are refused.
    #[arg(long)]
    pub recreate: bool,
    /// Allow overwriting this block device even if it looks in use (name it again).
    #[arg(long, value_name = "DEVICE")]
    pub allow_destroy: Option<PathBuf>,
}

impl DriveArgs {
    /// `--size` in bytes, checked.
    pub fn size_bytes(&self) -> anyhow::Result<Option<u64>> {
        self.size
            .as_deref()
            .map(ssdiq_workload::units::parse_size)
            .transpose()
            .or_usage()
    }

    /// Opens `target` with these flags ([`open`]).
    /// Opens `target` for `command` (run or study: named in a refusal).
    pub fn open(
        &self,
        target: &str,
        command: &'static str,
    ) -> anyhow::Result<Box<dyn SuiteTarget>> {
        open(
            target,
            command,
            self.size_bytes()?,
            self.allow_destroy.as_deref(),
            self.recreate,
        )
    }
}

/// Suite errors raised before anything was written are bad input (exit 2).
pub fn suite_usage(e: SuiteError) -> anyhow::Error {
    if e.is_usage() {
        usage(e.to_string())
    } else {
        e.into()
    }
}

/// Opens `target` for `run` or `study` (`command`, named in a refusal) through
/// `ssdiq_target::open`, then builds the suite's target on it.
pub fn open(
    target: &str,
    command: &'static str,
    size: Option<u64>,
    allow_destroy: Option<&Path>,
    recreate: bool,
) -> anyhow::Result<Box<dyn SuiteTarget>> {
    let spec = TargetSpec::parse(target).map_err(|e| usage(e.to_string()))?;
    // --recreate also lets earlier results in --out go; only a file target is recreated.
    let recreate_file = recreate
        && spec
            .path()
            .is_some_and(|p| std::fs::metadata(p).map_or(true, |m| m.is_file()));
    let access = Access {
        command: Use::Run(command),
        size,
        recreate: recreate_file,
        overwrite: false,
        allow_destroy,
        writes: true,
    };
    match ssdiq_target::open(spec, &access)? {
        Opened::Emu { text, profile } => open_emu(text, *profile),
        Opened::Path { path, .. } => Ok(Box::new(
            DeviceTarget::open(&path, size).map_err(suite_usage)?,
        )),
    }
}

fn open_emu(target: String, profile: Profile) -> anyhow::Result<Box<dyn SuiteTarget>> {
    // The drive is reset at the start of the run: its FTL is built twice at that moment.
    let need = drive_bytes(&profile).map_err(|e| usage(format!("{target}: {e}")))?;
    check_memory(&target, need.peak_with_reset(), "use a smaller capacity")?;
    Ok(Box::new(
        EmuTarget::from_profile(target, profile).map_err(suite_usage)?,
    ))
}
