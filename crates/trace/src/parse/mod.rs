//! Line parsers, one module per format. A parser turns one line (without its newline) into
//! a record, into nothing (a header, a comment, an event of another kind), or into the
//! reason the line is not what the format expects.
//!
//! Invariants: parsers never allocate on a good line; a record's times are nanoseconds in
//! the file's own epoch (the reader makes them relative); `len > 0`.

mod alibaba;
mod blk;
mod fiu;
mod msr;
mod spc;

use ssdiq_workload::Op;

use crate::format::Format;
use crate::record::TraceRecord;

/// `Ok(None)`: a line that holds no request. `Err(why)`: what is wrong with it.
pub type LineResult = Result<Option<TraceRecord>, String>;

pub enum Parser {
    Blk(blk::BlkParser),
    Msr(msr::MsrParser),
    Alibaba,
    Spc,
    Fiu,
}

impl Parser {
    pub fn new(format: Format) -> Parser {
        match format {
            Format::Blkparse(a) => Parser::Blk(blk::BlkParser::new(a, false)),
            Format::FtraceBlk(a) => Parser::Blk(blk::BlkParser::new(a, true)),
            Format::Msr => Parser::Msr(msr::MsrParser::default()),
            Format::Alibaba => Parser::Alibaba,
            Format::Spc => Parser::Spc,
            Format::Fiu => Parser::Fiu,
        }
    }

    /// Parses one line; `first` is true for the first non-blank line of the file, where the
    /// CSV formats accept a header.
    #[inline]
    pub fn parse(&mut self, line: &[u8], first: bool) -> LineResult {
        if line.is_empty() || line[0] == b'#' {
            return Ok(None);
        }
        let r = match self {
            Parser::Blk(p) => return p.parse(line),
            Parser::Msr(p) => p.parse(line),
            Parser::Alibaba => alibaba::parse(line),
            Parser::Spc => spc::parse(line),
            Parser::Fiu => fiu::parse(line),
        };
        match r {
            Err(_) if first && is_header(line) => Ok(None),
            r => r,
        }
    }

    /// The file's name for device `id`.
    pub fn device_name(&self, id: u32) -> String {
        match self {
            Parser::Blk(_) | Parser::Fiu => crate::record::major_minor_name(id),
            Parser::Msr(p) => p.device_name(id),
            Parser::Alibaba | Parser::Spc => id.to_string(),
        }
    }
}

/// A first line whose first field starts with a letter is a column header.
fn is_header(line: &[u8]) -> bool {
    crate::fields::trim(line)
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic())
}

/// "R"/"Read"/"r" and "W"/"Write"/"w", the op spellings of the CSV formats.
#[inline]
fn read_or_write(f: &[u8]) -> Option<Op> {
    match crate::fields::trim(f) {
        [b'R' | b'r'] => Some(Op::Read),
        [b'W' | b'w'] => Some(Op::Write),
        w if w.eq_ignore_ascii_case(b"read") => Some(Op::Read),
        w if w.eq_ignore_ascii_case(b"write") => Some(Op::Write),
        _ => None,
    }
}

/// The error text for a bad field: "<layout>: <field> <problem>".
#[cold]
fn bad(format: Format, field: &str, problem: &str) -> String {
    format!("expected {}; {field} {problem}", format.layout())
}

/// A request from byte offset and length; `Ok(None)` for a zero-length request (nothing to
/// replay), an error if the end overflows.
#[inline]
fn request(format: Format, time_ns: u64, device: u32, op: Op, offset: u64, len: u64) -> LineResult {
    if len == 0 {
        return Ok(None);
    }
    if offset.checked_add(len).is_none() {
        return Err(bad(format, "offset + size", "overflows 64 bits"));
    }
    Ok(Some(TraceRecord {
        time_ns,
        device,
        op,
        offset,
        len,
    }))
}

const SECTOR: u64 = 512;

/// Sectors to bytes, or the error for an overflow.
#[inline]
fn sectors(format: Format, field: &str, n: u64) -> Result<u64, String> {
    n.checked_mul(SECTOR)
        .ok_or_else(|| bad(format, field, "overflows 64 bits in bytes"))
}
