//! The errors of this crate, one type per kind of failure, each a one-line message that
//! names the bad value and what was expected.

use ssdiq_schema::GcPolicy;
use ssdiq_workload::PatternError;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    #[error("invalid geometry: {0}")]
    Invalid(String),
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FtlError {
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    #[error("GC policy {0} is an analytic figure, not a simulated FTL")]
    NotSimulated(GcPolicy),
    #[error("streams must be between 1 and 1000")]
    NoStreams,
    #[error("GC policy {0} merges victims in place: a GC frontier does not apply")]
    FrontierWithTwoR(GcPolicy),
    #[error("invalid GC frontier share {0}: expected a share between 0 and 1")]
    FrontierShare(String),
    #[error("a GC frontier share of {0} needs a GC frontier")]
    ShareWithoutFrontier(String),
    /// dchoices:D with more samples than blocks: every GC would draw D random blocks.
    #[error("invalid GC policy \"{0}\": it samples {1} blocks per victim, but the drive has only {2} blocks")]
    TooManyChoices(GcPolicy, u32, u32),
}

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Ftl(#[from] FtlError),
    #[error(transparent)]
    Pattern(#[from] PatternError),
    #[error("the separated model needs a pattern of known write frequencies, not {0}")]
    NoBound(String),
    #[error("invalid writes {0}: must be > 0")]
    Writes(f64),
    #[error("invalid warm-up {0}: must be >= 0")]
    Warmup(f64),
}
