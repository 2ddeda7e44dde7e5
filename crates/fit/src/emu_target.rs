//! The emulated drive a profile's text describes: what every measurement of a twin (and of a
//! round trip's hidden drive) runs on.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use ssdiq_emu::Profile;
use ssdiq_schema::StudyDoc;
use ssdiq_suite::study::{self, StudyOptions};
use ssdiq_suite::{EmuTarget, Silent};

use crate::FitError;

/// The emulated drive of profile `text`, named `name` (`emu:twin`, `emu:hidden`) in results.
pub(crate) fn emu_target(text: &str, name: &str) -> Result<EmuTarget, FitError> {
    let profile = Profile::parse(text, &[]).map_err(|e| FitError::Profile(e.to_string()))?;
    EmuTarget::from_profile(name.into(), profile).map_err(|e| FitError::Profile(e.to_string()))
}

/// Study `name` of the catalogue on `target`, to its end; a study that ended in an error is
/// the twin's error.
pub(crate) fn run_study(
    target: &mut EmuTarget,
    name: &str,
    opts: &StudyOptions,
) -> Result<StudyDoc, FitError> {
    let s = study::find(name).expect("the catalogue has the fit's studies");
    let doc = study::run(s, target, opts, Arc::new(AtomicBool::new(false)), &Silent)
        .map_err(|e| FitError::Twin(e.to_string()))?;
    match &doc.error {
        Some(e) => Err(FitError::Twin(e.clone())),
        None => Ok(doc),
    }
}
