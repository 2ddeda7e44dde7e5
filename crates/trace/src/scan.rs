//! The pass over a trace before it is used: validates every line (so bad input is reported
//! before anything runs or is written), counts what the consumers need to plan, and builds
//! the `compact` map.

use rustc_hash::FxHashMap;
use ssdiq_workload::Op;

use crate::error::TraceError;
use crate::format::Format;
use crate::map::Compaction;
use crate::reader::{TraceOptions, TraceReader};

/// Which pages get a place in the `compact` map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactOver {
    /// Written pages only (the simulator: reads do not touch the FTL).
    Writes,
    /// Read and written pages (a replay reads pages it never wrote, too).
    Accessed,
}

/// The most distinct pages the `compact` map may hold, and what sets that bound (named in
/// the error): the target, or the memory available. The map then never grows past it, however
/// large a request is.
#[derive(Clone, Debug)]
pub struct CompactLimit {
    pub pages: u64,
    pub what: String,
}

/// What one pass found, in pages of `unit` bytes.
#[derive(Clone, Debug)]
pub struct Scan {
    pub options: TraceOptions,
    /// The format, detected or given.
    pub format: Format,
    pub unit: u64,
    pub records: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub read_pages: u64,
    pub write_pages: u64,
    pub trim_pages: u64,
    /// One past the highest byte any read or write touches.
    pub max_end: u64,
    /// Time of the last record, ns since the first.
    pub duration_ns: u64,
    pub compaction: Option<Compaction>,
    /// With `CompactOver::Writes`: one pass of the trace as the simulator draws it, in
    /// compacted pages ([`TRIM`] marks a trim), so every run of a sweep walks an array
    /// instead of parsing and hashing the file again. `None` past [`SEQUENCE_LIMIT`] draws
    /// (the runs then stream the file).
    pub sequence: Option<Vec<u64>>,
}

/// Flag of a trim in [`Scan::sequence`].
pub const TRIM: u64 = 1 << 63;
/// Draws kept in memory at most: 8 bytes each, so 1 GiB.
pub const SEQUENCE_LIMIT: usize = 1 << 27;
/// A trim whose page is resolved once the map is complete (low bits: index into the keys).
const PENDING: u64 = 1 << 62;

impl Scan {
    /// Pages the trace's reads and writes span with the `direct` map.
    pub fn direct_pages(&self) -> u64 {
        self.max_end.div_ceil(self.unit)
    }

    /// The options with the format fixed, so later passes skip detection.
    pub fn resolved(&self) -> TraceOptions {
        TraceOptions {
            format: Some(self.format),
            ..self.options.clone()
        }
    }
}

/// Reads the whole trace once. `compact`: build the `compact` map over those pages, within
/// its limit.
pub fn scan(
    opts: &TraceOptions,
    unit: u64,
    compact: Option<(CompactOver, &CompactLimit)>,
) -> Result<Scan, TraceError> {
    let (compact, limit) = compact.unzip();
    assert!(unit > 0, "page unit must be > 0");
    let mut reader = TraceReader::open(opts)?;
    let mut s = Scan {
        options: opts.clone(),
        format: reader.format(),
        unit,
        records: 0,
        reads: 0,
        writes: 0,
        trims: 0,
        read_pages: 0,
        write_pages: 0,
        trim_pages: 0,
        max_end: 0,
        duration_ns: 0,
        compaction: compact.map(|_| Compaction::default()),
        sequence: (compact == Some(CompactOver::Writes)).then(Vec::new),
    };
    // Trims recorded before the map is complete: their (device, page).
    let mut pending: Vec<(u32, u64)> = Vec::new();
    // Requests per device: several devices share one address space only when asked.
    let mut devices: FxHashMap<u32, u64> = FxHashMap::default();
    while let Some(r) = reader.next_record()? {
        s.records += 1;
        *devices.entry(r.device).or_default() += 1;
        s.duration_ns = s.duration_ns.max(r.time_ns);
        let (first, last) = r.pages(unit);
        let pages = last - first + 1;
        match r.op {
            Op::Read => {
                s.reads += 1;
                s.read_pages += pages;
            }
            Op::Write | Op::WriteZeroes => {
                s.writes += 1;
                s.write_pages += pages;
            }
            Op::Trim => {
                s.trims += 1;
                s.trim_pages += pages;
                if let Some(seq) = s.sequence.as_mut() {
                    if seq.len() as u64 + pages > SEQUENCE_LIMIT as u64 {
                        s.sequence = None;
                    } else {
                        for p in first..=last {
                            seq.push(TRIM | PENDING | pending.len() as u64);
                            pending.push((r.device, p));
                        }
                    }
                }
                continue;
            }
        }
        s.max_end = s.max_end.max(r.end());
        let maps = match compact {
            Some(CompactOver::Accessed) => true,
            Some(CompactOver::Writes) => r.op != Op::Read,
            None => false,
        };
        if let (true, Some(c), Some(limit)) = (maps, s.compaction.as_mut(), limit) {
            // A request that alone outgrows the map is refused before any page is mapped.
            if pages > limit.pages {
                return Err(beyond_limit(
                    opts, &reader, &r, s.records, pages, unit, limit,
                ));
            }
            if s.sequence
                .as_ref()
                .is_some_and(|q| q.len() as u64 + pages > SEQUENCE_LIMIT as u64)
            {
                s.sequence = None;
            }
            for p in first..=last {
                if c.len() >= limit.pages && c.get(r.device, p).is_none() {
                    return Err(beyond_limit(
                        opts, &reader, &r, s.records, pages, unit, limit,
                    ));
                }
                let Some(i) = c.assign(r.device, p) else {
                    return Err(TraceError::Content {
                        path: opts.path.display().to_string(),
                        what: format!(
                            "page {p} of device {} at record {} is beyond what the compact map holds (2^32 distinct pages, 2^48 pages per device)",
                            reader.device_name(r.device),
                            s.records
                        ),
                    });
                };
                if let Some(seq) = s.sequence.as_mut() {
                    seq.push(i);
                }
            }
        }
    }
    // Trims act on the pages the whole trace writes (as when streaming with the complete
    // map); trims of pages it never writes have no place and are dropped.
    if let (Some(seq), Some(c)) = (s.sequence.as_mut(), s.compaction.as_ref()) {
        seq.retain_mut(|e| {
            if *e & PENDING == 0 {
                return true;
            }
            let (dev, page) = pending[(*e & !(TRIM | PENDING)) as usize];
            match c.get(dev, page) {
                Some(i) => {
                    *e = TRIM | i;
                    true
                }
                None => false,
            }
        });
    }
    if devices.len() > 1 && opts.device.as_deref() != Some(crate::reader::ALL_DEVICES) {
        let mut devices: Vec<(u32, u64)> = devices.into_iter().collect();
        devices.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let listed: Vec<String> = devices
            .iter()
            .take(8)
            .map(|&(d, n)| format!("{} ({n} requests)", reader.device_name(d)))
            .collect();
        return Err(TraceError::Content {
            path: opts.path.display().to_string(),
            what: format!(
                "holds {} devices, {}{}: choose one with --trace-device, or --trace-device all for all of them on one drive",
                devices.len(),
                listed.join(", "),
                if devices.len() > 8 { ", ..." } else { "" }
            ),
        });
    }
    if s.records == 0 {
        return Err(TraceError::Content {
            path: opts.path.display().to_string(),
            what: match &opts.device {
                Some(d) => format!("no request of device \"{d}\" in {} lines", reader.lines()),
                None => format!("no request in {} lines", reader.lines()),
            },
        });
    }
    Ok(s)
}

fn beyond_limit(
    opts: &TraceOptions,
    reader: &TraceReader,
    r: &crate::record::TraceRecord,
    record: u64,
    pages: u64,
    unit: u64,
    limit: &CompactLimit,
) -> TraceError {
    TraceError::Content {
        path: opts.path.display().to_string(),
        what: format!(
            "record {record} ({} of {} bytes at offset {} of device {}) takes the compact map past {} distinct pages of {unit} bytes, what {} holds{}; use a larger target or --trace-map modulo",
            match r.op {
                Op::Read => "a read",
                Op::Trim => "a trim",
                _ => "a write",
            },
            r.len,
            r.offset,
            reader.device_name(r.device),
            limit.pages,
            limit.what,
            if pages > limit.pages {
                format!(" (the request alone spans {pages} pages)")
            } else {
                String::new()
            }
        ),
    }
}
