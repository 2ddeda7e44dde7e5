//! Bad input found before anything was written: the CLI reports it in one line, exit 2.

use std::fmt;

/// A refusal: bad input, or a target or output that must not be written. Nothing was
/// written when it is raised.
#[derive(Debug)]
pub struct Refused(pub String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Shorthand: `return Err(refused(format!(...)))`.
pub fn refused(msg: impl Into<String>) -> anyhow::Error {
    Refused(msg.into()).into()
}
