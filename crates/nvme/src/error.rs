//! The crate's error type.

/// Everything that can go wrong talking to an NVMe device.
#[derive(Debug, thiserror::Error)]
pub enum NvmeError {
    /// A system call failed (open, ioctl, sysfs read).
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The path is not an NVMe controller or namespace.
    #[error("{path} is not an NVMe device: {why}")]
    NotNvme { path: String, why: String },
    /// The controller completed the command with an error status.
    #[error("{command} failed: NVMe status {status:#06x} ({})", status_text(*status))]
    Status { command: &'static str, status: u16 },
    /// The drive does not implement the feature (detected from its identify data).
    #[error("{0}")]
    Unsupported(String),
    /// A log page or identify structure that does not parse.
    #[error("{0}")]
    Decode(String),
    /// A log page whose GUID does not match the specification's.
    #[error("log page {log:#04x} has GUID {found}, not the OCP one: a vendor-specific page")]
    GuidMismatch { log: u8, found: String },
    /// A parameter out of range (e.g. an LBA format index the namespace does not have).
    #[error("{0}")]
    InvalidArgument(String),
}

impl NvmeError {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        NvmeError::Io {
            what: what.into(),
            source,
        }
    }

    /// The NVMe status field if this is a completion error.
    pub fn status(&self) -> Option<u16> {
        match self {
            NvmeError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// Human-readable name of an NVMe completion status (SCT/SC with the DNR and More bits).
pub fn status_text(status: u16) -> String {
    let sct = (status >> 8) & 0x7;
    let sc = status & 0xFF;
    let name = match (sct, sc) {
        (0, 0x00) => "success",
        (0, 0x01) => "invalid command opcode",
        (0, 0x02) => "invalid field in command",
        (0, 0x04) => "data transfer error",
        (0, 0x06) => "internal error",
        (0, 0x0B) => "invalid namespace or format",
        (0, 0x0D) => "sanitize in progress",
        (0, 0x80) => "LBA out of range",
        (0, 0x81) => "capacity exceeded",
        (0, 0x82) => "namespace not ready",
        (1, 0x09) => "invalid log page",
        (1, 0x0A) => "invalid format",
        (1, 0x1D) => "sanitize prohibited",
        (1, 0x29) => "FDP disabled",
        (1, 0x2A) => "invalid placement handle list",
        (1, 0x80) => "conflicting attributes",
        (1, 0x81) => "invalid protection information",
        (1, 0x82) => "write to read-only range",
        (2, 0x81) => "unrecovered read error",
        (2, 0x80) => "write fault",
        (2, 0x86) => "access denied",
        (2, 0x87) => "deallocated or unwritten block",
        _ => "",
    };
    let mut s = if name.is_empty() {
        format!("type {sct:#x} code {sc:#04x}")
    } else {
        name.to_string()
    };
    if status & 0x4000 != 0 {
        s.push_str(", do not retry");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names() {
        assert_eq!(status_text(0x4001), "invalid command opcode, do not retry");
        assert_eq!(
            status_text(0x4002),
            "invalid field in command, do not retry"
        );
        assert_eq!(status_text(0x0129), "FDP disabled");
        assert_eq!(status_text(0x0377), "type 0x3 code 0x77");
        let e = NvmeError::Status {
            command: "sanitize",
            status: 0x4001,
        };
        assert_eq!(
            e.to_string(),
            "sanitize failed: NVMe status 0x4001 (invalid command opcode, do not retry)"
        );
        assert_eq!(e.status(), Some(0x4001));
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SafetyError {
    /// The device must not be written; the message says why, in one line.
    #[error("{0}")]
    Refused(String),
    /// The check itself could not be made (then nothing is written either).
    #[error("cannot check {path}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}
