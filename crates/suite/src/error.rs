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
