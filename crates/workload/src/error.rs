//! The errors of this crate, one type per kind of failure, each a one-line message that
//! names the bad value and what was expected.

/// `invalid pattern "zipf:-1": THETA must be > 0`
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid pattern \"{input}\": {reason}")]
pub struct PatternError {
    pub input: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid data pattern \"{input}\": {reason}")]
pub struct DataPatternError {
    pub input: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} \"{input}\": {reason}")]
pub struct UnitError {
    pub what: &'static str,
    pub input: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid --rw \"{input}\": {reason}")]
pub struct MixError {
    pub input: String,
    pub reason: String,
}
