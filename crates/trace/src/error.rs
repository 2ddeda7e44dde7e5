//! What can go wrong reading a trace, each naming the file (and the line, for a bad line).

use crate::format::FORMAT_NAMES;

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("cannot read trace \"{path}\": {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("trace \"{path}\" line {line}: {expected}; the line is \"{text}\"")]
    BadLine {
        path: String,
        line: u64,
        expected: String,
        text: String,
    },
    #[error("cannot tell the format of trace \"{path}\": {why}; name it with --trace-format ({FORMAT_NAMES})")]
    Unknown { path: String, why: String },
    #[error("trace \"{path}\": {what}")]
    Content { path: String, what: String },
    /// A replay flag that does not parse or does not fit (`replay_setup`).
    #[error("{0}")]
    Invalid(String),
}

impl TraceError {
    /// True when the trace (not the machine) is at fault: bad input, exit code 2.
    pub fn is_input(&self) -> bool {
        match self {
            TraceError::Io { source, .. } => {
                matches!(
                    source.kind(),
                    std::io::ErrorKind::NotFound
                        | std::io::ErrorKind::PermissionDenied
                        | std::io::ErrorKind::InvalidData
                        | std::io::ErrorKind::InvalidInput
                        | std::io::ErrorKind::UnexpectedEof
                ) || source.raw_os_error() == Some(21)
            }
            _ => true,
        }
    }
}

/// The text of a bad line for an error message: lossy UTF-8, at most 120 characters.
pub(crate) fn excerpt(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(line);
    let mut out: String = s.chars().take(120).collect();
    if s.chars().count() > 120 {
        out.push_str("...");
    }
    out
}
