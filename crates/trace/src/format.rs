//! The trace formats ssdiq reads, by name, with the layout each expects.

use std::fmt;
use std::str::FromStr;

/// Which blktrace event stands for "the request": the block layer queueing it (Q), the
/// driver being handed it (D, after merging: what the device saw), or its completion (C).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlkAction {
    Queue,
    Issue,
    Complete,
}

impl BlkAction {
    pub fn letter(self) -> u8 {
        match self {
            BlkAction::Queue => b'Q',
            BlkAction::Issue => b'D',
            BlkAction::Complete => b'C',
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `blkparse` default text output.
    Blkparse(BlkAction),
    /// The kernel's `blk` tracer read from tracefs (`/sys/kernel/tracing/trace`).
    FtraceBlk(BlkAction),
    /// MSR Cambridge CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime.
    Msr,
    /// Alibaba block traces CSV: device_id,opcode,offset,length,timestamp.
    Alibaba,
    /// SPC (UMass) CSV: ASU,LBA,Size,Opcode,Timestamp.
    Spc,
    /// FIU SyLab text: ts pid process lba size op major minor md5.
    Fiu,
}

/// The names [`Format::from_str`] accepts, for error messages and `--help`.
pub const FORMAT_NAMES: &str = "blkparse, ftrace-blk, msr, alibaba, spc, fiu (blkparse:Q, blkparse:C and ftrace-blk:Q/C pick another blktrace event than D)";

impl Format {
    /// Auto-detection tries the formats in this order; the first that reads every sampled
    /// line wins (the layouts are distinct enough that at most one does).
    pub const DETECT_ORDER: [Format; 6] = [
        Format::Blkparse(BlkAction::Issue),
        Format::FtraceBlk(BlkAction::Issue),
        Format::Msr,
        Format::Alibaba,
        Format::Spc,
        Format::Fiu,
    ];

    /// Whether `line` has this format's shape: its separator and number of fields (what
    /// format detection weighs when no format reads a line).
    pub fn has_layout_of(self, line: &[u8]) -> bool {
        let commas = line.iter().filter(|&&b| b == b',').count();
        let words = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .count();
        match self {
            Format::Msr => commas == 6,
            Format::Alibaba | Format::Spc => commas == 4,
            Format::Blkparse(_) | Format::FtraceBlk(_) | Format::Fiu => words >= 9,
        }
    }

    /// The layout of one line, for "expected ..." errors.
    pub fn layout(self) -> &'static str {
        match self {
            Format::Blkparse(_) => "a blkparse event line \"MAJ,MIN CPU SEQ SECONDS PID ACTION RWBS SECTOR + COUNT [PROCESS]\"",
            Format::FtraceBlk(_) => "a blk tracer line \"TASK-PID [CPU] FLAGS SECONDS: MAJ,MIN ACTION RWBS SECTOR + COUNT [PROCESS]\"",
            Format::Msr => "MSR Cambridge CSV \"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\" (Windows filetime, Read|Write, bytes)",
            Format::Alibaba => "Alibaba CSV \"device_id,opcode,offset,length,timestamp\" (R|W, bytes, microseconds)",
            Format::Spc => "SPC CSV \"ASU,LBA,Size,Opcode,Timestamp\" (512-byte LBA, bytes, r|w, seconds)",
            Format::Fiu => "FIU text \"ts pid process lba size op major minor md5\" (nanoseconds, 512-byte sectors, R|W)",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let action = |a: BlkAction| match a {
            BlkAction::Issue => "",
            BlkAction::Queue => ":Q",
            BlkAction::Complete => ":C",
        };
        match self {
            Format::Blkparse(a) => write!(f, "blkparse{}", action(*a)),
            Format::FtraceBlk(a) => write!(f, "ftrace-blk{}", action(*a)),
            Format::Msr => f.write_str("msr"),
            Format::Alibaba => f.write_str("alibaba"),
            Format::Spc => f.write_str("spc"),
            Format::Fiu => f.write_str("fiu"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("invalid trace format \"{0}\": expected one of {FORMAT_NAMES}")]
pub struct FormatError(pub String);

impl FromStr for Format {
    type Err = FormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || FormatError(s.to_string());
        let (name, action) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        let blk = |a: Option<&str>| match a {
            None | Some("D") | Some("d") => Ok(BlkAction::Issue),
            Some("Q") | Some("q") => Ok(BlkAction::Queue),
            Some("C") | Some("c") => Ok(BlkAction::Complete),
            Some(_) => Err(bad()),
        };
        let plain = |f: Format| if action.is_none() { Ok(f) } else { Err(bad()) };
        match name.to_ascii_lowercase().as_str() {
            "blkparse" | "blktrace" => Ok(Format::Blkparse(blk(action)?)),
            "ftrace-blk" | "ftrace" => Ok(Format::FtraceBlk(blk(action)?)),
            "msr" | "msr-cambridge" => plain(Format::Msr),
            "alibaba" => plain(Format::Alibaba),
            "spc" => plain(Format::Spc),
            "fiu" => plain(Format::Fiu),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Format::DETECT_ORDER.into_iter().chain([
            Format::Blkparse(BlkAction::Queue),
            Format::FtraceBlk(BlkAction::Complete),
        ]) {
            assert_eq!(f.to_string().parse::<Format>().unwrap(), f);
        }
        assert!("csv".parse::<Format>().is_err());
        assert!("msr:Q".parse::<Format>().is_err());
        assert!("blkparse:X".parse::<Format>().is_err());
    }
}
