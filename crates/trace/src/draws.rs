//! A trace as the flash simulator's page draws: every page a write touches is one page
//! write, every page a trim touches (and the trace wrote) one trim; reads are skipped (they
//! move no data on flash). At the end of the file the trace starts over, so a run can ask
//! for more writes than one pass holds.
//!
//! Invariant: the draws of a pass are a function of the trace and the map alone; a run that
//! asks for exactly [`Scan::write_pages`] page writes replays the trace's writes once.

use std::sync::Arc;

use ssdiq_workload::{Draw, DrawSource, Op};

use crate::error::TraceError;
use crate::map::{Compaction, MapKind};
use crate::reader::{TraceOptions, TraceReader};
use crate::scan::{Scan, TRIM};

/// Where pages land (see `crate::map`).
#[derive(Clone, Debug)]
pub enum Mapping {
    Compact(Arc<Compaction>),
    Modulo,
    Direct,
}

impl Mapping {
    /// The mapping of `kind` for a target of `target_pages` pages, checking that the trace
    /// fits where it must; `what` names the target in errors.
    pub fn new(
        kind: MapKind,
        scan: &Scan,
        compaction: Option<Arc<Compaction>>,
        target_pages: u64,
        what: &str,
    ) -> Result<Mapping, TraceError> {
        let err = |what: String| TraceError::Content {
            path: scan.options.path.display().to_string(),
            what,
        };
        let unit = scan.unit;
        let size = |pages: u64| ssdiq_workload::units::format_size(pages.saturating_mul(unit));
        match kind {
            MapKind::Compact => {
                let c = compaction.expect("compact mapping needs the scan's compaction");
                if c.len() > target_pages {
                    return Err(err(format!(
                        "its footprint of {} pages ({}) does not fit {what} of {} pages ({}); use a larger target or --trace-map modulo",
                        c.len(),
                        size(c.len()),
                        target_pages,
                        size(target_pages)
                    )));
                }
                Ok(Mapping::Compact(c))
            }
            MapKind::Modulo => Ok(Mapping::Modulo),
            MapKind::Direct => {
                if scan.direct_pages() > target_pages {
                    return Err(err(format!(
                        "it addresses {} (up to byte {}), beyond {what} of {}; use --trace-map compact or modulo, or a larger target",
                        size(scan.direct_pages()),
                        scan.max_end,
                        size(target_pages)
                    )));
                }
                Ok(Mapping::Direct)
            }
        }
    }

    /// The target page of trace page `page` on `device`, for a target of `n` pages; `None`
    /// where the page has no place (a trim of a page the compacted trace never wrote, or one
    /// beyond the target with `direct`).
    #[inline]
    pub fn page(&self, device: u32, page: u64, n: u64) -> Option<u64> {
        match self {
            Mapping::Compact(c) => c.get(device, page),
            Mapping::Modulo => Some(page % n),
            Mapping::Direct => (page < n).then_some(page),
        }
    }
}

pub struct TraceDraws {
    options: TraceOptions,
    reader: TraceReader,
    /// The scan's in-memory pass (compact map), walked instead of the file, and where.
    memory: Option<(Arc<Vec<u64>>, usize)>,
    mapping: Mapping,
    unit: u64,
    target_pages: u64,
    /// The request being drawn: its op, device and pages `next..=last`.
    op: Op,
    device: u32,
    next: u64,
    last: u64,
    passes: u64,
    error: Option<TraceError>,
}

impl TraceDraws {
    /// Draws of the scanned trace onto `target_pages` pages of `scan.unit` bytes; `memory`
    /// is the scan's sequence (shared by the runs of a sweep), used with the compact map.
    pub fn new(
        scan: &Scan,
        mapping: Mapping,
        target_pages: u64,
        memory: Option<Arc<Vec<u64>>>,
    ) -> Result<Self, TraceError> {
        if scan.write_pages == 0 {
            return Err(TraceError::Content {
                path: scan.options.path.display().to_string(),
                what: "it holds no write, so there is nothing to simulate".into(),
            });
        }
        let options = scan.resolved();
        let memory = match mapping {
            Mapping::Compact(_) => memory.map(|m| (m, 0)),
            _ => None,
        };
        Ok(TraceDraws {
            reader: TraceReader::open(&options)?,
            memory,
            options,
            mapping,
            unit: scan.unit,
            target_pages,
            op: Op::Read,
            device: 0,
            next: 1,
            last: 0,
            passes: 0,
            error: None,
        })
    }

    /// Whole passes over the file completed so far.
    pub fn passes(&self) -> u64 {
        self.passes
    }

    /// The error that stopped the draws, if one did.
    pub fn take_error(&mut self) -> Option<TraceError> {
        self.error.take()
    }

    fn fail(&mut self, e: TraceError) -> Draw {
        self.error = Some(e);
        // Changes nothing: the simulator sees `failed()` and stops.
        Draw::Trim { start: 0, pages: 0 }
    }
}

impl DrawSource for TraceDraws {
    #[inline]
    fn next_draw(&mut self) -> Draw {
        if self.error.is_some() {
            return Draw::Trim { start: 0, pages: 0 };
        }
        if let Some((seq, pos)) = &mut self.memory {
            if *pos == seq.len() {
                *pos = 0;
                self.passes += 1;
            }
            let e = seq[*pos];
            *pos += 1;
            return if e & TRIM != 0 {
                Draw::Trim {
                    start: e & !TRIM,
                    pages: 1,
                }
            } else {
                Draw::Page(e)
            };
        }
        loop {
            while self.next <= self.last {
                let p = self.next;
                self.next += 1;
                let Some(t) = self.mapping.page(self.device, p, self.target_pages) else {
                    continue;
                };
                return match self.op {
                    Op::Trim => Draw::Trim { start: t, pages: 1 },
                    _ => Draw::Page(t),
                };
            }
            match self.reader.next_record() {
                Ok(Some(r)) => {
                    if r.op == Op::Read {
                        continue;
                    }
                    let (first, last) = r.pages(self.unit);
                    self.op = r.op;
                    self.device = r.device;
                    self.next = first;
                    self.last = last;
                    if r.op == Op::Trim && !matches!(self.mapping, Mapping::Compact(_)) {
                        // A discard wider than the target trims each target page once.
                        self.last = last.min(first.saturating_add(self.target_pages - 1));
                    }
                }
                Ok(None) => {
                    self.passes += 1;
                    match TraceReader::open(&self.options) {
                        Ok(r) => self.reader = r,
                        Err(e) => return self.fail(e),
                    }
                }
                Err(e) => return self.fail(e),
            }
        }
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }
}
