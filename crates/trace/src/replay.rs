//! A trace as the engine's timed requests: each record becomes one or more requests in
//! units of the job's block size, at the time the trace issued it.
//!
//! Invariants:
//! - A request covers whole units: the record's byte range widened outwards to unit
//!   boundaries (O_DIRECT needs aligned I/O).
//! - A record becomes several requests only where the target cannot take it in one: a read
//!   or write longer than `max_units` (the executor's buffers), wrapping around a `modulo`
//!   target, or pages that `compact` placed apart. All parts carry the record's time.
//! - Trims of pages without a place (never read or written under `compact`, beyond the
//!   target under `direct`) are dropped.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ssdiq_workload::{Op, Request, TimedRequest, TimedSource};

use crate::draws::Mapping;
use crate::error::TraceError;
use crate::reader::TraceReader;
use crate::scan::Scan;

pub struct TraceReplay {
    reader: TraceReader,
    mapping: Mapping,
    unit: u64,
    target_units: u64,
    max_units: u64,
    /// The record being split: time, op, device, units `next..=last`.
    at_ns: u64,
    op: Op,
    device: u32,
    next: u64,
    last: u64,
    counts: Arc<ReplayCounts>,
    error: Option<String>,
}

/// What a replay has done so far, readable while it runs (the replay itself moves into the
/// engine).
#[derive(Debug, Default)]
pub struct ReplayCounts {
    /// Records read from the trace.
    pub records: AtomicU64,
    /// Requests issued.
    pub requests: AtomicU64,
    /// Records that needed more than one request.
    pub split: AtomicU64,
}

impl TraceReplay {
    /// A replay of the scanned trace (`scan.unit` = the job's block size) onto a target of
    /// `target_units` units; requests are at most `max_units` units long.
    pub fn new(
        scan: &Scan,
        mapping: Mapping,
        target_units: u64,
        max_units: u64,
    ) -> Result<Self, TraceError> {
        Ok(TraceReplay {
            reader: TraceReader::open(&scan.resolved())?,
            mapping,
            unit: scan.unit,
            target_units,
            max_units: max_units.max(1),
            at_ns: 0,
            op: Op::Read,
            device: 0,
            next: 1,
            last: 0,
            counts: Arc::default(),
            error: None,
        })
    }

    /// The counters of this replay.
    pub fn counts(&self) -> Arc<ReplayCounts> {
        self.counts.clone()
    }

    /// The next run of consecutive target units of the current record.
    #[inline]
    fn next_run(&mut self) -> Option<Request> {
        while self.next <= self.last {
            let p = self.next;
            self.next += 1;
            let Some(start) = self.mapping.page(self.device, p, self.target_units) else {
                continue;
            };
            // Trims move no data: no buffer bounds them.
            let max = if self.op == Op::Trim {
                u64::MAX
            } else {
                self.max_units
            };
            let mut pages = 1;
            while pages < max
                && self.next <= self.last
                && start + pages < self.target_units
                && self.mapping.page(self.device, self.next, self.target_units)
                    == Some(start + pages)
            {
                pages += 1;
                self.next += 1;
            }
            return Some(Request {
                op: self.op,
                page: start,
                pages,
            });
        }
        None
    }
}

impl TimedSource for TraceReplay {
    fn next_timed(&mut self) -> Option<TimedRequest> {
        loop {
            if let Some(request) = self.next_run() {
                self.counts.requests.fetch_add(1, Ordering::Relaxed);
                return Some(TimedRequest {
                    at_ns: self.at_ns,
                    request,
                });
            }
            match self.reader.next_record() {
                Ok(Some(r)) => {
                    let (first, last) = r.pages(self.unit);
                    self.at_ns = r.time_ns;
                    self.op = r.op;
                    self.device = r.device;
                    self.next = first;
                    self.last = last;
                    if r.op == Op::Trim && !matches!(self.mapping, Mapping::Compact(_)) {
                        self.last = last.min(first.saturating_add(self.target_units - 1));
                    }
                    self.counts.records.fetch_add(1, Ordering::Relaxed);
                    if self.would_split(first, last) {
                        self.counts.split.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Ok(None) => return None,
                Err(e) => {
                    self.error = Some(e.to_string());
                    return None;
                }
            }
        }
    }

    fn error(&self) -> Option<String> {
        self.error.clone()
    }
}

impl TraceReplay {
    /// Whether units `first..=last` need more than one request (counted for the report).
    fn would_split(&self, first: u64, last: u64) -> bool {
        let n = last - first + 1;
        if n > self.max_units && self.op != Op::Trim {
            return true;
        }
        match &self.mapping {
            Mapping::Direct => false,
            Mapping::Modulo => first % self.target_units + n > self.target_units,
            Mapping::Compact(c) => {
                let base = c.get(self.device, first);
                (1..n).any(|k| c.get(self.device, first + k) != base.map(|b| b + k))
            }
        }
    }
}
