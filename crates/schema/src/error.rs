//! The errors of this crate: a value of a document's type that does not parse.

use std::fmt;

/// A GC policy name that does not parse (`GcPolicy::from_str`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    pub input: String,
    pub reason: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid GC policy \"{}\": {}", self.input, self.reason)
    }
}

impl std::error::Error for PolicyError {}
