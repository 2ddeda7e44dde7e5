//! Sweep errors: bad input (exit 2, nothing run or written) or a failure while running.

use ssdiq_trace::TraceError;

#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// Bad parameters, a trace that does not fit, shards that do not belong together.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("run {index} ({label}): {message}")]
    Run {
        index: usize,
        label: String,
        message: String,
    },
    #[error("cannot read \"{path}\": {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl SweepError {
    /// True for bad input (the user's to fix), false for a failure while running.
    pub fn is_input(&self) -> bool {
        match self {
            SweepError::Invalid(_) => true,
            SweepError::Trace(e) => e.is_input(),
            SweepError::Run { .. } | SweepError::Io { .. } => false,
        }
    }
}

pub(crate) fn invalid(m: impl Into<String>) -> SweepError {
    SweepError::Invalid(m.into())
}
