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

/// `e` and every source below it, joined by ": ", leaving out a source whose text the message
/// already holds: a message kept as a string (a result's `error`) still names the root cause,
/// the errno text ("No space left on device").
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        next = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_names_the_root_cause_once() {
        let e = EngineError::io(
            "layout: write at offset 0",
            io::Error::from_raw_os_error(28),
        );
        assert_eq!(e.to_string(), "layout: write at offset 0");
        let c = chain(&e);
        assert!(
            c.starts_with("layout: write at offset 0: No space left on device"),
            "{c}"
        );
        // A message that already holds its source's text does not repeat it.
        let inner = io::Error::other("disk gone");
        let e = EngineError::io("open: disk gone", inner);
        assert_eq!(chain(&e), "open: disk gone");
    }
}
