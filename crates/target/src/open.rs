//! The one place a command's target is checked before it is used: `run`, `study`, `io` and
//! `store` all come through [`open`], whatever they then build on it (an executor, a suite
//! target, a store device).
//!
//! Invariants:
//! - Nothing is written here, and every refusal is a [`crate::Refused`] (exit 2).
//! - `--allow-destroy` must name the target's block device again, and is refused on an
//!   emulated drive or a file.
//! - An emulated drive refuses the flags of file targets (`--recreate`; `--size` too, except
//!   for `io`, where it is the range of the job).
//! - A file gets its [`FilePlan`] (created, used in place, recreated), decided here.
//! - A block device a command may write must pass `nvme::safety::check_destructive`: no
//!   filesystem, partition table or mount unless `--allow-destroy` names it.

use std::path::{Path, PathBuf};

use ssdiq_emu::{Profile, TargetSpec};
use ssdiq_nvme::safety::{check_destructive, SafetyError};

use crate::error::refused;
use crate::file_plan::{plan, FilePlan, Use};

/// What the command asks of its target.
#[derive(Clone, Copy, Debug)]
pub struct Access<'a> {
    /// Which command, for the file plan's rules and its messages.
    pub command: Use,
    /// `--size` in bytes (for `io`, the end of the job's range: offset plus size).
    pub size: Option<u64>,
    /// `--recreate`.
    pub recreate: bool,
    /// `--overwrite` (`io`): an existing file may be written in place.
    pub overwrite: bool,
    /// `--allow-destroy DEVICE`.
    pub allow_destroy: Option<&'a Path>,
    /// True if the command may write the target (a read-only `io` job may read a mounted
    /// device).
    pub writes: bool,
}

/// A target that passed every check.
#[derive(Debug)]
pub enum Opened {
    /// The emulated drive, its profile read and checked.
    Emu { text: String, profile: Box<Profile> },
    /// A file or block device, and what happens to a file before the command runs
    /// ([`crate::apply`]).
    Path { path: PathBuf, plan: FilePlan },
}

/// Checks `spec` for a command with `access`; see the module invariants.
pub fn open(spec: TargetSpec, access: &Access) -> anyhow::Result<Opened> {
    if let Some(a) = access.allow_destroy {
        crate::allow_destroy::check(&spec, a)?;
    }
    match spec {
        TargetSpec::Emu { text, profile } => {
            for (flag, given) in [
                ("--recreate", access.recreate),
                ("--overwrite", access.overwrite),
            ] {
                if given {
                    return Err(refused(format!(
                        "invalid {flag}: {text} is an emulated drive; {flag} is for file targets"
                    )));
                }
            }
            if access.size.is_some() && access.command != Use::Io {
                return Err(refused(format!(
                    "invalid --size: {text} has its own capacity; --size is for file targets"
                )));
            }
            Ok(Opened::Emu { text, profile })
        }
        TargetSpec::Path(path) => {
            let plan = plan(
                &path,
                access.size,
                access.recreate,
                access.command,
                access.writes && !access.overwrite,
            )?;
            if access.writes {
                check_destructive(&path, access.allow_destroy).map_err(|e| match e {
                    SafetyError::Refused(m) => refused(m),
                    other => anyhow::Error::new(other),
                })?;
            }
            Ok(Opened::Path { path, plan })
        }
    }
}
