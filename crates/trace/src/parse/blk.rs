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
use crate::fields::{seconds_ns, sector_count, split_ws, uint};
use crate::format::{BlkAction, Format};
use crate::record::major_minor;

pub struct BlkParser {
    action: u8,
    ftrace: bool,
    format: Format,
    /// blkparse's summary has started: everything after it is skipped.
    trailer: bool,
    /// The last device field and its id: traces name one device on line after line.
    last_dev: ([u8; 16], usize, u32),
    /// The last device column (0..7) of a default-layout line whose event was skipped.
    last_dev_column: [u8; 7],
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
            last_dev: ([0; 16], usize::MAX, 0),
            // Never a device column: the first line takes the checking path.
            last_dev_column: [0; 7],
        }
    }

    /// The device id of a "MAJ,MIN" field, remembering the last one.
    #[inline]
    fn device(&mut self, f: &[u8]) -> Option<u32> {
        let (bytes, len, id) = &self.last_dev;
        if f.len() == *len && f == &bytes[..*len] {
            return Some(*id);
        }
        let id = device(f)?;
        if f.len() <= 16 {
            let mut b = [0; 16];
            b[..f.len()].copy_from_slice(f);
            self.last_dev = (b, f.len(), id);
        }
        Some(id)
    }

    #[inline]
    pub fn parse(&mut self, line: &[u8]) -> LineResult {
        if self.trailer {
            return Ok(None);
        }
        // Most lines are other events than the chosen one: in the default layout, those of
        // the last such line's device end here, read from fixed columns.
        let fixed = self.fixed_columns(line);
        if let Some((d, a)) = fixed {
            if (line[a - 1] != b' ' || line[a] != self.action)
                && line[d..d + 7] == self.last_dev_column
            {
                return Ok(None);
            }
        }

        // Up to the RWBS field; the rest ("SECTOR + COUNT [PROCESS]") is split only for the
        // chosen event, and other events (most lines of a blkparse file) end early.
        let mut f = [&b""[..]; 8];
        let (time, ev) = if self.ftrace {
            let Some(t) = ftrace_time(line) else {
                return Err(bad(self.format, "the line", "has no \"SECONDS:\" field"));
            };
            let n = split_ws(&line[t.end + 1..], &mut f[..4]);
            (&line[t.start..t.end], (n, [f[0], f[1], f[2], f[3]]))
        } else if fixed.is_some() {
            use crate::fields::trim;
            let (dev, action) = (trim(&line[..7]), trim(&line[41..44]));
            // RWBS from column 45 (it may be wider than its 3 columns), the rest after it.
            let tail = trim(&line[44..]);
            let end = tail
                .iter()
                .position(|&b| b == b' ' || b == b'\t')
                .unwrap_or(tail.len());
            let (rwbs, rest) = (&tail[..end], &tail[end..]);
            let n = if rest.is_empty() { 3 } else { 4 };
            (trim(&line[20..35]), (n, [dev, action, rwbs, rest]))
        } else {
            let n = split_ws(line, &mut f);
            if n == 0 {
                return Ok(None);
            }
            if self.device(f[0]).is_none() {
                return self.not_an_event(f[0], line);
            }
            if n < 6 {
                return Err(bad(self.format, "the line", "is cut short"));
            }
            (f[3], (n - 4, [f[0], f[5], f[6], f[7]]))
        };
        let (n, [dev, action, rwbs, rest]) = ev;
        if n < 2 {
            return Err(bad(self.format, "the line", "has no action"));
        }
        let dev = self
            .device(dev)
            .ok_or_else(|| bad(self.format, "MAJ,MIN", "is not a device number"))?;
        if action != [self.action] {
            if let Some((d, _)) = fixed {
                self.last_dev_column.copy_from_slice(&line[d..d + 7]);
            }
            return Ok(None);
        }
        let time_ns =
            seconds_ns(time).ok_or_else(|| bad(self.format, "the timestamp", "is not seconds"))?;
        let Some(op) = (n > 2).then(|| rwbs_op(rwbs)).flatten() else {
            return Ok(None);
        };
        let Some((sector, count)) = (n >= 4).then(|| sector_count(rest)).flatten() else {
            return Err(bad(
                self.format,
                "the event",
                "has no \"SECTOR + COUNT\" (whole numbers)",
            ));
        };
        request(
            self.format,
            time_ns,
            dev,
            op,
            sectors(self.format, "SECTOR", sector)?,
            sectors(self.format, "COUNT", count)?,
        )
    }

    /// Where a default-layout line has its device column (7 bytes) and the last letter of its
    /// action: blkparse's "%D %2c %8s %5T.%9t %5p %2a %3d " (see [`fixed_layout`]), or the
    /// blk tracer's "SECONDS: %3d,%-3d %2a %3d " after the first colon.
    #[inline]
    fn fixed_columns(&self, line: &[u8]) -> Option<(usize, usize)> {
        if !self.ftrace {
            return fixed_layout(line).then_some((0, 43));
        }
        let c = memchr::memchr(b':', line)?;
        let ok = c > 0
            && line.len() > c + 13
            && line[c - 1].is_ascii_digit()
            && line[c + 1] == b' '
            && line[c + 9] == b' '
            && line[c + 12] == b' '
            && line[c + 11].is_ascii_alphabetic();
        ok.then_some((c + 2, c + 11))
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

/// True for a blkparse line in the default layout "%D %2c %8s %5T.%9t %5p %2a %3d ": the
/// separators sit at fixed columns, so the device (0..7), timestamp (20..35) and action
/// (41..44) are read without splitting the line at its runs of blanks, which cost more than
/// everything else the reader does. A line whose numbers outgrew their columns takes the
/// general path.
#[inline]
fn fixed_layout(line: &[u8]) -> bool {
    line.len() >= 48
        && line[7] == b' '
        && line[10] == b' '
        && line[19] == b' '
        && line[25] == b'.'
        && line[35] == b' '
        && line[41] == b' '
        && line[44] == b' '
        && line[43].is_ascii_alphabetic()
}

/// Where the ftrace timestamp "SECONDS:" is: the first colon followed by a blank whose
/// field before it is a number of seconds (task names may hold colons, "kworker/u8:2").
fn ftrace_time(line: &[u8]) -> Option<std::ops::Range<usize>> {
    for c in memchr::memchr_iter(b':', line) {
        if !line.get(c + 1).is_some_and(|&b| b == b' ' || b == b'\t') {
            continue;
        }
        let start = line[..c]
            .iter()
            .rposition(|&b| b == b' ' || b == b'\t')
            .map_or(0, |i| i + 1);
        let t = &line[start..c];
        if !t.is_empty() && t[0].is_ascii_digit() && seconds_ns(t).is_some() {
            return Some(start..c);
        }
    }
    None
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
