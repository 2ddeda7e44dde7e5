//! The errors of this crate, each a one-line message.

#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// The input cannot be fitted (wrong document, nothing measured, unknown base).
    #[error("{0}")]
    Input(String),
    /// A twin's profile does not parse or build.
    #[error("twin profile: {0}")]
    Profile(String),
    /// Running the protocol on the twin failed.
    #[error("measuring the twin: {0}")]
    Twin(String),
}
