//! The errors of this crate, one type per kind of failure, each a one-line message that
//! names the bad value and what was expected.

use ssdiq_engine::EngineError;

#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("cannot read spec \"{path}\": {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("invalid spec \"{path}\": {reason}")]
    Invalid { path: String, reason: String },
    /// A `--spec-*` flag out of range.
    #[error("{0}")]
    Flag(String),
}

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// The run cannot start with these options (bad size, block size, ...): bad input.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("reset of {target} failed: {reason}")]
    Reset { target: String, reason: String },
}

/// A result document that cannot be read back (`result_file`): bad input.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ResultError(pub String);
