//! The `emu:` target grammar, parsed in this one place: `emu:NAME[,key=value...]` (a shipped
//! profile) or `emu:path/to/profile.toml[,key=value...]` (a file: the head ends in `.toml` or
//! holds a `/`). Everything else in the workspace asks [`is_emu_target`] or parses through
//! [`EmuTarget::parse`] / [`Profile::from_target`], never the string itself.
//!
//! Invariants: every error is one line naming the target or the bad part and what was
//! expected; a profile file is read once, with the engine's size limit for text inputs.

use ssdiq_engine::textfile::{read_text, CONFIG_LIMIT};

use crate::profile::{builtin, builtin_names, Profile, ProfileError};

/// What every emulated target starts with.
pub const EMU_PREFIX: &str = "emu:";

/// True if `target` names the emulated SSD (it may still be malformed).
pub fn is_emu_target(target: &str) -> bool {
    target.starts_with(EMU_PREFIX)
}

/// An `emu:` target split into its profile's TOML text and its `key=value` overrides, unparsed:
/// what `ssdiq info` reads each parameter's source comment from.
/// True if an `emu:` target's head is a profile file rather than a built-in name.
fn names_a_file(head: &str) -> bool {
    head.ends_with(".toml") || head.contains('/')
}

/// The profile file an `emu:` target reads (`emu:path/p.toml,op=0.1` -> `path/p.toml`);
/// `None` for a built-in profile or a target that is not emulated.
pub fn profile_file(target: &str) -> Option<&std::path::Path> {
    let head = target.strip_prefix(EMU_PREFIX)?.split(',').next()?.trim();
    names_a_file(head).then(|| std::path::Path::new(head))
}

/// The files reading `target` reads, from its text alone: an emulated drive's profile file
/// (`emu:path.toml,...`), or the file or device itself; nothing for a built-in profile.
pub fn target_inputs(target: &str) -> Vec<std::path::PathBuf> {
    match profile_file(target) {
        Some(f) => vec![f.to_path_buf()],
        None if is_emu_target(target) => Vec::new(),
        None => vec![std::path::PathBuf::from(target)],
    }
}

#[derive(Clone, Debug)]
pub struct EmuTarget {
    /// The target as given.
    pub target: String,
    /// The profile's name or the file's path.
    pub head: String,
    pub text: String,
    pub overrides: Vec<(String, String)>,
}

impl EmuTarget {
    pub fn parse(target: &str) -> Result<EmuTarget, ProfileError> {
        let bad = |m: String| ProfileError(m);
        let rest = target.strip_prefix(EMU_PREFIX).ok_or_else(|| {
            bad(format!(
                "invalid emulated target \"{target}\": expected emu:PROFILE[,key=value...]"
            ))
        })?;
        let mut parts = rest.split(',');
        let head = parts.next().unwrap_or("").trim();
        let text = if names_a_file(head) {
            read_text(std::path::Path::new(head), CONFIG_LIMIT)
                .map_err(|e| bad(format!("cannot read emu profile \"{head}\": {e}")))?
        } else {
            builtin(head)
                .ok_or_else(|| {
                    bad(format!(
                        "unknown emu profile \"{head}\": expected one of {} or a path to a .toml file (`ssdiq info emu:list` lists them)",
                        builtin_names()
                    ))
                })?
                .to_string()
        };
        let mut overrides = Vec::new();
        for p in parts {
            let (k, v) = p.split_once('=').ok_or_else(|| {
                bad(format!(
                    "invalid emu option \"{p}\" in \"{target}\": expected key=value"
                ))
            })?;
            overrides.push((k.trim().to_string(), v.trim().to_string()));
        }
        Ok(EmuTarget {
            target: target.to_string(),
            head: head.to_string(),
            text,
            overrides,
        })
    }

    /// The profile, parsed and checked; errors name the target.
    pub fn profile(&self) -> Result<Profile, ProfileError> {
        let overrides: Vec<(&str, &str)> = self
            .overrides
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        Profile::parse_checked(&self.text, &overrides)
            .map_err(|e| ProfileError(format!("{}: {e}", self.target)))
    }
}

impl Profile {
    /// The profile an `emu:` target names, parsed and checked, without building the drive
    /// (which allocates about 9 bytes per page: see [`crate::memory::drive_bytes`]).
    pub fn from_target(target: &str) -> Result<Profile, ProfileError> {
        EmuTarget::parse(target)?.profile()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_split_into_profile_and_overrides() {
        let t = EmuTarget::parse("emu:default, op=0.2 ,capacity=1GiB").unwrap();
        assert_eq!(t.head, "default");
        assert_eq!(
            t.overrides,
            vec![
                ("op".to_string(), "0.2".to_string()),
                ("capacity".to_string(), "1GiB".to_string())
            ]
        );
        assert!((t.profile().unwrap().drive.op - 0.2).abs() < 1e-12);
        assert!(is_emu_target("emu:x") && !is_emu_target("/dev/nvme0n1"));
        for (bad, says) in [
            ("/dev/sda", "expected emu:PROFILE"),
            ("emu:nope", "unknown emu profile \"nope\""),
            ("emu:default,op", "invalid emu option \"op\""),
            ("emu:/nonexistent/p.toml", "cannot read emu profile"),
        ] {
            let e = EmuTarget::parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let e = Profile::from_target("emu:default,op=-1")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("emu:default,op=-1: invalid op"), "{e}");
    }
}
