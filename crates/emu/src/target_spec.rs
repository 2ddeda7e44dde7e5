//! A command's target, parsed once ([`TargetSpec`]): the emulated SSD with its checked profile,
//! or a path (a file or a block device). Commands match on it; nothing downstream looks at the
//! target string again to learn what it is.
//!
//! Invariants: an `Emu` spec's profile parsed and passed its checks, so opening it can only
//! fail on resources (memory); the original text is kept for messages and result documents.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::profile::{Profile, ProfileError};
use crate::target::{is_emu_target, target_inputs};

#[derive(Clone, Debug)]
pub enum TargetSpec {
    /// `emu:PROFILE[,key=value...]`, as given, and its profile.
    Emu { text: String, profile: Box<Profile> },
    /// Anything else: a file or a block device (not checked here: opening it says).
    Path(PathBuf),
}

impl TargetSpec {
    /// Parses `target`; an `emu:` target's profile is read and checked now (one-line errors
    /// naming the target).
    pub fn parse(target: &str) -> Result<TargetSpec, ProfileError> {
        if target.trim().is_empty() {
            return Err(ProfileError(
                "empty target: expected emu:PROFILE, a file or a block device".into(),
            ));
        }
        if is_emu_target(target) {
            Ok(TargetSpec::Emu {
                text: target.to_string(),
                profile: Box::new(Profile::from_target(target)?),
            })
        } else {
            Ok(TargetSpec::Path(PathBuf::from(target)))
        }
    }

    pub fn is_emu(&self) -> bool {
        matches!(self, TargetSpec::Emu { .. })
    }

    /// The emulated drive's profile.
    pub fn profile(&self) -> Option<&Profile> {
        match self {
            TargetSpec::Emu { profile, .. } => Some(profile),
            TargetSpec::Path(_) => None,
        }
    }

    /// The file or device.
    pub fn path(&self) -> Option<&Path> {
        match self {
            TargetSpec::Path(p) => Some(p),
            TargetSpec::Emu { .. } => None,
        }
    }

    /// The files reading this target reads ([`target_inputs`]).
    pub fn inputs(&self) -> Vec<PathBuf> {
        match self {
            TargetSpec::Emu { text, .. } => target_inputs(text),
            TargetSpec::Path(p) => vec![p.clone()],
        }
    }
}

/// The target as given.
impl fmt::Display for TargetSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetSpec::Emu { text, .. } => f.write_str(text),
            TargetSpec::Path(p) => write!(f, "{}", p.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulated_targets_carry_their_checked_profile() {
        let t = TargetSpec::parse("emu:default,op=0.2").unwrap();
        assert!(t.is_emu() && t.path().is_none());
        assert!((t.profile().unwrap().drive.op - 0.2).abs() < 1e-12);
        assert_eq!(t.to_string(), "emu:default,op=0.2");
        assert!(t.inputs().is_empty(), "a built-in profile reads no file");
        let e = TargetSpec::parse("emu:default,op=-1")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("emu:default,op=-1: invalid op"), "{e}");
    }

    #[test]
    fn anything_else_is_a_path() {
        let t = TargetSpec::parse("/dev/nvme0n1").unwrap();
        assert_eq!(t.path(), Some(Path::new("/dev/nvme0n1")));
        assert!(t.profile().is_none());
        assert_eq!(t.inputs(), vec![PathBuf::from("/dev/nvme0n1")]);
        assert_eq!(t.to_string(), "/dev/nvme0n1");
    }
}
