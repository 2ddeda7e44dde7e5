//! The errors of this crate, one type per kind of failure, each a one-line message that
//! names the bad value and what was expected.

/// Why a page read back is not the page that was asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("page {pid}: bad magic (not a page written by the store)")]
    Magic { pid: u64 },
    #[error("page {pid}: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    Checksum {
        pid: u64,
        stored: u32,
        computed: u32,
    },
    #[error("page {want}: the location holds page {got}")]
    WrongPage { want: u64, got: u64 },
    #[error("page {pid}: version {got} read, {want} was written last")]
    Stale { pid: u64, want: u64, got: u64 },
    #[error("page {pid}: decompression failed: {reason}")]
    Decompress { pid: u64, reason: String },
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("invalid store configuration: {0}")]
    Config(String),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Space(#[from] SpaceError),
    #[error("corrupt read: {0}")]
    Corrupt(#[from] PageError),
    #[error("page {0} has no stored copy and is not in memory (lost)")]
    Lost(u64),
    #[error("the replayed stored sizes ran out")]
    ReplayEnded,
    /// A phase that would never end with these flags (bad input found while running).
    #[error("{0}")]
    NoProgress(String),
}

#[derive(Debug, thiserror::Error)]
pub enum SpaceError {
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error("out of space: no zone holds an invalid page to collect ({0} zones full of live pages); lower the fill")]
    Full(u32),
    #[error("zone append to zone {zone} landed at {got}, expected {want}")]
    Misplaced { zone: u32, got: u64, want: u64 },
}

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("{0}")]
    Invalid(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Nvme(#[from] ssdiq_nvme::NvmeError),
    #[error(transparent)]
    Engine(#[from] ssdiq_engine::EngineError),
}

/// A flag of the store's configuration that does not parse or is out of range (`flags`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FlagError(pub String);
