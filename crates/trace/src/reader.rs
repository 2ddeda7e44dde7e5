//! Streaming a trace file record by record: constant memory whatever its size.
//!
//! Invariants:
//! - One pass, front to back, through a 1 MiB buffer; lines are parsed in place, and only a
//!   line that straddles two buffer fills is copied. Gzip files (by their magic bytes) are
//!   decompressed on the fly.
//! - The first bad line ends the stream with an error naming the file, the line number and
//!   what the format expects there; nothing is skipped silently except what the format says
//!   holds no request (comments, headers, other blktrace events, blkparse's summary).
//! - Record times leave the reader relative to the first record it yields (the first one
//!   of the chosen device, with a device filter).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::error::{excerpt, TraceError};
use crate::format::Format;
use crate::parse::Parser;
use crate::record::TraceRecord;

const BUF_BYTES: usize = 1 << 20;
/// A longer line is not a text trace (a binary file, most likely).
const MAX_LINE: usize = 64 << 10;
/// Lines sampled to detect the format.
const DETECT_LINES: usize = 2000;
/// First four bytes of a binary blktrace file (magic 0x65617400 | version 7, little endian).
const BLKTRACE_MAGIC: [u8; 4] = [0x07, 0x74, 0x61, 0x65];

/// Which trace to read and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceOptions {
    pub path: PathBuf,
    /// `None`: detect from the first lines.
    pub format: Option<Format>,
    /// Only this device's requests (its name as the file writes it: "8,0", "hm,0", "3"), or
    /// [`ALL_DEVICES`] for every device's, which a trace of several devices needs to be used
    /// whole (the consumers refuse it otherwise rather than merge the devices unasked).
    pub device: Option<String>,
}

/// The `device` that takes every device of a trace.
pub const ALL_DEVICES: &str = "all";

impl TraceOptions {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        TraceOptions {
            path: path.into(),
            format: None,
            device: None,
        }
    }
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> TraceError + '_ {
    move |source| TraceError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The file as a byte stream, decompressed if it is gzip. An enum, not a trait object: the
/// reader asks for its buffer once per line, and a static call inlines.
enum Stream {
    Plain(BufReader<File>),
    Gzip(Box<BufReader<flate2::read::MultiGzDecoder<BufReader<File>>>>),
}

impl Stream {
    #[inline]
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        match self {
            Stream::Plain(r) => r.fill_buf(),
            Stream::Gzip(r) => r.fill_buf(),
        }
    }

    #[inline]
    fn consume(&mut self, n: usize) {
        match self {
            Stream::Plain(r) => r.consume(n),
            Stream::Gzip(r) => r.consume(n),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(r) => r.read(buf),
            Stream::Gzip(r) => r.read(buf),
        }
    }
}

impl BufRead for Stream {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Stream::fill_buf(self)
    }
    fn consume(&mut self, n: usize) {
        Stream::consume(self, n)
    }
}

/// Opens a trace file. Only regular files: a trace is read more than once (its format is
/// detected from its head, then its records are read; `io` scans it before replaying it), and
/// a pipe would lose what the first reading consumed.
fn open_stream(path: &Path) -> Result<Stream, TraceError> {
    // Checked before opening: opening a FIFO without a writer would block.
    if !std::fs::metadata(path).map_err(io_err(path))?.is_file() {
        return Err(TraceError::Content {
            path: path.display().to_string(),
            what: "not a regular file (a pipe, FIFO or device); a trace is read more than once (format detection, then its records), so save it to a file first".into(),
        });
    }
    let file = File::open(path).map_err(io_err(path))?;
    let mut raw = BufReader::with_capacity(BUF_BYTES, file);
    let head = raw.fill_buf().map_err(io_err(path))?;
    let mut stream = if head.starts_with(&[0x1f, 0x8b]) {
        let gz = flate2::read::MultiGzDecoder::new(raw);
        Stream::Gzip(Box::new(BufReader::with_capacity(BUF_BYTES, gz)))
    } else {
        Stream::Plain(raw)
    };
    // A UTF-8 byte order mark (spreadsheet exports write one) is not part of the first line.
    if stream
        .fill_buf()
        .map_err(io_err(path))?
        .starts_with(UTF8_BOM)
    {
        stream.consume(UTF8_BOM.len());
    }
    Ok(stream)
}

const UTF8_BOM: &[u8] = &[0xef, 0xbb, 0xbf];

pub struct TraceReader {
    path: PathBuf,
    format: Format,
    src: Stream,
    parser: Parser,
    line: u64,
    seen_content: bool,
    t0: Option<u64>,
    carry: Vec<u8>,
    device: Option<String>,
    /// Device id -> whether it is the chosen device.
    device_match: FxHashMap<u32, bool>,
}

impl TraceReader {
    /// Opens a trace, detecting its format unless `opts.format` names it.
    pub fn open(opts: &TraceOptions) -> Result<TraceReader, TraceError> {
        let format = match opts.format {
            Some(f) => f,
            None => detect(&opts.path)?,
        };
        Ok(TraceReader {
            path: opts.path.clone(),
            format,
            src: open_stream(&opts.path)?,
            parser: Parser::new(format),
            line: 0,
            seen_content: false,
            t0: None,
            carry: Vec::new(),
            device: opts.device.clone().filter(|d| d != ALL_DEVICES),
            device_match: FxHashMap::default(),
        })
    }

    pub fn format(&self) -> Format {
        self.format
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lines read so far.
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// The file's name of device `id` ("8,0", "hm,0", "3").
    pub fn device_name(&self, id: u32) -> String {
        self.parser.device_name(id)
    }

    /// The next record (of the chosen device), `None` at the end of the file.
    #[inline]
    pub fn next_record(&mut self) -> Result<Option<TraceRecord>, TraceError> {
        loop {
            let Some(mut r) = self.next_any()? else {
                return Ok(None);
            };
            if self.device.is_some() && !self.is_chosen(r.device) {
                continue;
            }
            let t0 = *self.t0.get_or_insert(r.time_ns);
            r.time_ns = r.time_ns.saturating_sub(t0);
            return Ok(Some(r));
        }
    }

    fn is_chosen(&mut self, id: u32) -> bool {
        if let Some(&m) = self.device_match.get(&id) {
            return m;
        }
        let m = Some(self.parser.device_name(id)) == self.device;
        self.device_match.insert(id, m);
        m
    }

    /// The next record of any device, with the file's own timestamps.
    #[inline]
    fn next_any(&mut self) -> Result<Option<TraceRecord>, TraceError> {
        let TraceReader {
            path,
            src,
            parser,
            line,
            seen_content,
            carry,
            ..
        } = self;
        loop {
            let buf = src.fill_buf().map_err(io_err(path))?;
            let (result, used) = if buf.is_empty() {
                if carry.is_empty() {
                    return Ok(None);
                }
                // A last line without a newline.
                *line += 1;
                let r = parse_line(parser, carry, seen_content);
                let r = r.map_err(|e| bad_line(path, *line, e, carry));
                carry.clear();
                (r, 0)
            } else {
                match memchr::memchr(b'\n', buf) {
                    Some(i) => {
                        *line += 1;
                        let r = if carry.is_empty() {
                            let l = &buf[..i];
                            parse_line(parser, l, seen_content)
                                .map_err(|e| bad_line(path, *line, e, l))
                        } else {
                            carry.extend_from_slice(&buf[..i]);
                            let r = parse_line(parser, carry, seen_content)
                                .map_err(|e| bad_line(path, *line, e, carry));
                            carry.clear();
                            r
                        };
                        (r, i + 1)
                    }
                    None => {
                        carry.extend_from_slice(buf);
                        let n = buf.len();
                        src.consume(n);
                        if carry.len() > MAX_LINE {
                            return Err(bad_line(
                                path,
                                *line + 1,
                                format!("expected a text line; this one is longer than {MAX_LINE} bytes (is the file binary?)"),
                                &carry[..120],
                            ));
                        }
                        continue;
                    }
                }
            };
            src.consume(used);
            match result? {
                Some(r) => return Ok(Some(r)),
                None => continue,
            }
        }
    }
}

/// Parses one line (without its newline; a trailing CR is dropped).
#[inline]
fn parse_line(
    parser: &mut Parser,
    line: &[u8],
    seen_content: &mut bool,
) -> crate::parse::LineResult {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let first = !*seen_content;
    if first && !line.is_empty() && line[0] != b'#' {
        *seen_content = true;
    }
    parser.parse(line, first)
}

#[cold]
fn bad_line(path: &Path, line: u64, expected: String, text: &[u8]) -> TraceError {
    TraceError::BadLine {
        path: path.display().to_string(),
        line,
        expected,
        text: excerpt(text),
    }
}

/// Detects the format from the first lines: the first format of [`Format::DETECT_ORDER`]
/// that reads every sampled line and finds at least one request; failing that, the format
/// that read the most lines (with requests among them) before one failed, so that line is
/// reported as a bad line of that format.
pub fn detect(path: &Path) -> Result<Format, TraceError> {
    let mut src = open_stream(path)?;
    if src
        .fill_buf()
        .map_err(io_err(path))?
        .starts_with(&BLKTRACE_MAGIC)
    {
        return Err(TraceError::Unknown {
            path: path.display().to_string(),
            why: "it is a binary blktrace file; convert it with \"blkparse -i NAME -o NAME.txt\" first".into(),
        });
    }
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut sample = src.take(16 << 20);
    let mut text = Vec::new();
    while lines.len() < DETECT_LINES {
        text.clear();
        let n = (&mut sample)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut text)
            .map_err(io_err(path))?;
        if n == 0 {
            break;
        }
        lines.push(text.strip_suffix(b"\n").unwrap_or(&text).to_vec());
    }
    let unknown = |why: String| TraceError::Unknown {
        path: path.display().to_string(),
        why,
    };
    if lines
        .iter()
        .all(|l| l.iter().all(|b| b.is_ascii_whitespace()))
    {
        return Err(unknown("the file is empty".into()));
    }
    // Best failure: the format that read the most lines before one failed.
    let mut best: Option<(usize, Format, String, usize)> = None;
    for format in Format::DETECT_ORDER {
        let mut parser = Parser::new(format);
        let mut seen = false;
        let mut records = 0usize;
        let mut failed = None;
        for (i, l) in lines.iter().enumerate() {
            match parse_line(&mut parser, l, &mut seen) {
                Ok(Some(_)) => records += 1,
                Ok(None) => {}
                Err(e) => {
                    failed = Some((i, e));
                    break;
                }
            }
        }
        match failed {
            None if records > 0 => return Ok(format),
            None => {}
            // Among formats failing on the same line, one whose layout the line has (its
            // field count) is closer than one it does not.
            Some((i, e))
                if best.as_ref().is_none_or(|b| {
                    i > b.0
                        || (i == b.0
                            && format.has_layout_of(&lines[i])
                            && !b.1.has_layout_of(&lines[i]))
                }) =>
            {
                best = Some((i, format, e, records));
            }
            Some(_) => {}
        }
    }
    // A format that read records before a line failed is the file's format with a bad line:
    // the reader reports that line as such.
    if let Some((_, format, _, _)) = best.as_ref().filter(|b| b.3 > 0) {
        return Ok(*format);
    }
    Err(unknown(match best {
        Some((i, format, e, _)) => format!(
            "no format reads its first lines (closest: {format}, whose line {} fails: {e}; the line is \"{}\")",
            i + 1,
            excerpt(&lines[i])
        ),
        None => format!("its first {} lines hold no request", lines.len()),
    }))
}
