//! blktrace events as text: `blkparse`'s default output and the kernel's `blk` tracer read
//! through tracefs (what a kernel in lockdown, which refuses blktrace's debugfs relay files,
//! still allows).
//!
//! blkparse: `  8,0    3        1     0.000000000   697  D  WS 223490 + 8 [kjournald]`
//! ftrace:   `  dd-20357 [001] d..1.  2120.820142:   7,0    D  WS 0 + 128 [dd]`
//!
//! One event kind stands for the request (D by default: what the driver was handed, after
//! merging); other events are skipped. RWBS: the first of R, W or D (discard) is the op; a
//! flush or an event without sectors is skipped. Sectors are 512 bytes. blkparse ends with a
//! per-CPU summary ("CPU0 (8,0):", "Total (8,0):", ...), which is skipped.

use ssdiq_workload::Op;

use super::{bad, request, sectors, LineResult};
use crate::fields::{seconds_ns, split_ws, uint};
use crate::format::{BlkAction, Format};
use crate::record::major_minor;

pub struct BlkParser {
    action: u8,
    ftrace: bool,
    format: Format,
    /// blkparse's summary has started: everything after it is skipped.
    trailer: bool,
}

impl BlkParser {
    pub fn new(action: BlkAction, ftrace: bool) -> BlkParser {
        BlkParser {
            action: action.letter(),
            ftrace,
            format: if ftrace {
                Format::FtraceBlk(action)
            } else {
                Format::Blkparse(action)
            },
            trailer: false,
        }
    }

    #[inline]
    pub fn parse(&mut self, line: &[u8]) -> LineResult {
        if self.trailer {
            return Ok(None);
        }
        let mut f = [&b""[..]; 14];
        let n = split_ws(line, &mut f);
        if n == 0 {
            return Ok(None);
        }
        // Both layouts normalised to [dev, action, rwbs, sector, "+", count].
        let mut ev = [&b""[..]; 6];
        let (time, m) = if self.ftrace {
            let Some(t) = ftrace_time(&f[..n]) else {
                return Err(bad(self.format, "the line", "has no \"SECONDS:\" field"));
            };
            let rest = &f[t + 1..n];
            let m = rest.len().min(6);
            ev[..m].copy_from_slice(&rest[..m]);
            (&f[t][..f[t].len() - 1], m)
        } else {
            if device(f[0]).is_none() {
                return self.not_an_event(f[0], line);
            }
            if n < 6 {
                return Err(bad(self.format, "the line", "is cut short"));
            }
            ev[0] = f[0];
            let m = (n - 4).min(6);
            ev[1..m].copy_from_slice(&f[5..5 + m - 1]);
            (f[3], m)
        };
        let time_ns = seconds_ns(time)
            .ok_or_else(|| bad(self.format, "the timestamp", "is not seconds"))?;
        if m < 2 {
            return Err(bad(self.format, "the line", "has no action"));
        }
        let dev =
            device(ev[0]).ok_or_else(|| bad(self.format, "MAJ,MIN", "is not a device number"))?;
        if ev[1] != [self.action] {
            return Ok(None);
        }
        let Some(op) = ev.get(2).filter(|_| m > 2).and_then(|r| rwbs_op(r)) else {
            return Ok(None);
        };
        if m < 6 || ev[4] != b"+" {
            return Err(bad(self.format, "the event", "has no \"SECTOR + COUNT\""));
        }
        let sector = uint(ev[3]).ok_or_else(|| bad(self.format, "SECTOR", "is not a number"))?;
        let count = uint(ev[5]).ok_or_else(|| bad(self.format, "COUNT", "is not a number"))?;
        request(
            self.format,
            time_ns,
            dev,
            op,
            sectors(self.format, "SECTOR", sector)?,
            sectors(self.format, "COUNT", count)?,
        )
    }

    /// A blkparse line that does not start with a device: the summary (skipped to the end),
    /// blkparse's "Input file ... added" notes, or an error.
    #[cold]
    fn not_an_event(&mut self, first: &[u8], line: &[u8]) -> LineResult {
        if (first.starts_with(b"CPU") && first.len() > 3 && first[3].is_ascii_digit())
            || first == b"Total"
        {
            self.trailer = true;
            return Ok(None);
        }
        if line.starts_with(b"Input file") {
            return Ok(None);
        }
        Err(bad(
            self.format,
            "the first field",
            "is not a MAJ,MIN device number",
        ))
    }
}

/// Index of the ftrace timestamp: the first field "SECONDS:" after the task and CPU fields.
fn ftrace_time(f: &[&[u8]]) -> Option<usize> {
    f.iter().position(|t| {
        t.len() > 1 && t.ends_with(b":") && t[0].is_ascii_digit() && seconds_ns(&t[..t.len() - 1]).is_some()
    })
}

/// "8,0" -> device id.
#[inline]
fn device(f: &[u8]) -> Option<u32> {
    let i = memchr::memchr(b',', f)?;
    major_minor(uint(&f[..i])?, uint(&f[i + 1..])?)
}

/// The op of an RWBS string: the first of R, W or D (discard); `None` for a flush or none.
#[inline]
fn rwbs_op(r: &[u8]) -> Option<Op> {
    r.iter().find_map(|c| match c {
        b'R' => Some(Op::Read),
        b'W' => Some(Op::Write),
        b'D' => Some(Op::Trim),
        _ => None,
    })
}
