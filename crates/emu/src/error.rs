//! The errors of this crate, one type per kind of failure, each a one-line message that
//! names the bad value and what was expected.

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProfileError(pub String);
