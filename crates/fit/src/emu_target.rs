//! The emulated drive a profile's text describes: what every measurement of a twin (and of a
//! round trip's hidden drive) runs on.

use ssdiq_emu::Profile;
use ssdiq_suite::EmuTarget;

use crate::FitError;

/// The emulated drive of profile `text`, named `name` (`emu:twin`, `emu:hidden`) in results.
pub(crate) fn emu_target(text: &str, name: &str) -> Result<EmuTarget, FitError> {
    let profile = Profile::parse(text, &[]).map_err(|e| FitError::Profile(e.to_string()))?;
    EmuTarget::from_profile(name.into(), profile).map_err(|e| FitError::Profile(e.to_string()))
}
