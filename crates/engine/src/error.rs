//! Engine errors. `Invalid` and `Refused` are raised before any I/O is issued, so a caller may
//! treat them as bad input (the CLI exits 2); `Io` happens while setting up or running.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The job cannot run on this target (bs not a multiple of the logical block size, qd 0,
    /// size beyond the device, ...). One line naming the bad value and what was expected.
    #[error("{0}")]
    Invalid(String),
    /// A safety check refused to write to the target. One line saying why.
    #[error("{0}")]
    Refused(String),
    /// An operating-system call failed outside the measured I/O (open, ring setup, ...).
    #[error("{what}")]
    Io {
        what: String,
        #[source]
        source: io::Error,
    },
}

impl EngineError {
    pub fn io(what: impl Into<String>, source: io::Error) -> Self {
        EngineError::Io {
            what: what.into(),
            source,
        }
    }

    /// True for errors detected before any I/O was issued.
    pub fn is_usage(&self) -> bool {
        matches!(self, EngineError::Invalid(_) | EngineError::Refused(_))
    }
}
