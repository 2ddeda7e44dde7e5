//! A trace set up for replay by the engine (`ssdiq io TARGET --trace FILE`): read once
//! (validated, its span and footprint known) before the target is touched, then replayed as
//! the job's request source. Every error is a [`TraceError`]; bad flags are
//! [`TraceError::Invalid`].

use std::sync::Arc;

use ssdiq_engine::{Replay, Speed};
use ssdiq_schema::io::ReplayReport;
use ssdiq_workload::units::{format_duration_approx, format_size, format_size_approx, parse_size};

use crate::draws::Mapping;
use crate::error::TraceError;
use crate::map::{Compaction, MapKind};
use crate::reader::TraceOptions;
use crate::replay::{ReplayCounts, TraceReplay};
use crate::scan::{scan, CompactLimit, CompactOver, Scan};

fn usage(msg: String) -> TraceError {
    TraceError::Invalid(msg)
}

/// Memory one page of the `compact` map may take at its peak: a 12-byte entry, the table's
/// slack, and the copy while it grows.
const COMPACT_ENTRY_BYTES: u64 = 48;

/// The scanned trace and how to replay it.
pub struct TraceSetup {
    pub scan: Scan,
    compaction: Option<Arc<Compaction>>,
    pub map: MapKind,
    speed: Speed,
    max_units: u64,
    counts: std::sync::OnceLock<Arc<ReplayCounts>>,
}

/// Most pages one replay may issue (reads, writes and trims): days of I/O at any speed.
const MAX_REPLAY_PAGES: u64 = 100_000_000_000;

impl TraceSetup {
    /// Reads the trace of `options` once in units of `bs`, to replay with `map` at `speed`
    /// (`--replay-speed`) in requests of at most `max_io` (`--trace-max-io`). `room`: the
    /// bytes the target can offer and what they are, where known; `memory`: the bytes
    /// available and where the figure comes from (the `compact` map may outgrow neither).
    pub fn new(
        options: &TraceOptions,
        map: MapKind,
        bs: u64,
        speed: &str,
        max_io: &str,
        room: Option<(u64, String)>,
        memory: (u64, &str),
    ) -> Result<TraceSetup, TraceError> {
        let speed = Speed::parse(speed).map_err(usage)?;
        let max_io_bytes = parse_size(max_io).ok().filter(|&m| m > 0).ok_or_else(|| {
            usage(format!(
                "invalid --trace-max-io \"{max_io}\": expected a size like 1MiB"
            ))
        })?;
        if max_io_bytes < bs || !max_io_bytes.is_multiple_of(bs) {
            return Err(usage(format!(
                "invalid --trace-max-io \"{max_io}\": must be a multiple of --bs ({})",
                format_size(bs)
            )));
        }
        // The map takes a hash entry per distinct page: it may not outgrow the target, nor
        // the memory there is.
        let (avail, source) = memory;
        let mut limit = CompactLimit {
            pages: avail / COMPACT_ENTRY_BYTES,
            what: format!(
                "the memory available ({}, {source}) at {COMPACT_ENTRY_BYTES} bytes a page",
                format_size_approx(avail as f64)
            ),
        };
        if let Some((bytes, what)) = room.filter(|r| r.0 / bs < limit.pages) {
            limit = CompactLimit {
                pages: bytes / bs,
                what,
            };
        }
        let compact = (map == MapKind::Compact).then_some((CompactOver::Accessed, &limit));
        let mut scan = scan(options, bs, compact)?;
        // A record may ask for any length; mapped by modulo onto the target, one of 2^64
        // bytes would replay for ever.
        let pages = scan.read_pages + scan.write_pages + scan.trim_pages;
        if pages > MAX_REPLAY_PAGES {
            return Err(usage(format!(
                "invalid --trace: its requests add up to {pages} pages of {} ({}), more than a replay may issue ({MAX_REPLAY_PAGES:.0e} pages, days of I/O); check the trace's request sizes",
                format_size(bs),
                format_size_approx(pages as f64 * bs as f64)
            )));
        }
        // A timed replay lasts the trace's span over the speed: as long as any job may run.
        if let Speed::Scale(f) = speed {
            let secs = scan.duration_ns as f64 / f / 1e9;
            if secs > ssdiq_engine::MAX_JOB_NS as f64 / 1e9 {
                return Err(usage(format!(
                    "invalid --replay-speed \"{}\": the trace spans {} and would replay for {}, longer than a job may run (30 days); give a higher speed or max",
                    f,
                    span_text(scan.duration_ns as f64 / 1e9),
                    format_duration_approx(secs)
                )));
            }
        }
        Ok(TraceSetup {
            compaction: scan.compaction.take().map(Arc::new),
            scan,
            map,
            speed,
            max_units: max_io_bytes / bs,
            counts: std::sync::OnceLock::new(),
        })
    }

    /// The range a new file target needs when no --size is given: the trace's span
    /// (direct) or footprint (compact); `None` for modulo, which needs a size to fold onto.
    pub fn natural_range(&self) -> Option<u64> {
        let bs = self.scan.unit;
        match self.map {
            MapKind::Direct => Some(self.scan.direct_pages().max(1) * bs),
            MapKind::Compact => Some(self.compaction.as_ref().map_or(1, |c| c.len().max(1)) * bs),
            MapKind::Modulo => None,
        }
    }

    /// What [`Self::natural_range`] measures, for messages.
    pub fn natural_range_what(&self) -> &'static str {
        match self.map {
            MapKind::Direct => "the span of its offsets, --trace-map direct",
            MapKind::Compact => "its footprint, --trace-map compact",
            MapKind::Modulo => "nothing: --trace-map modulo folds it",
        }
    }

    /// The replay onto a range of `range_bytes` of the target.
    pub fn replay(&self, range_bytes: u64, target: &str) -> Result<Arc<Replay>, TraceError> {
        let bs = self.scan.unit;
        let units = range_bytes / bs;
        let mapping = Mapping::new(
            self.map,
            &self.scan,
            self.compaction.clone(),
            units,
            &format!("{target} ({} used)", format_size(units * bs)),
        )?;
        let source = TraceReplay::new(&self.scan, mapping, units, self.max_units)?;
        let writes = self.writes();
        let _ = self.counts.set(source.counts());
        Ok(Arc::new(Replay::new(
            Box::new(source),
            self.speed,
            self.max_units * bs,
            writes,
        )))
    }

    /// True if the trace writes or trims.
    pub fn writes(&self) -> bool {
        self.scan.writes + self.scan.trims > 0
    }

    pub fn report(&self, replay: &Replay) -> ReplayReport {
        use std::sync::atomic::Ordering::Relaxed;
        let counts = self.counts.get().cloned().unwrap_or_default();
        let o = &self.scan.options;
        ReplayReport {
            file: o.path.display().to_string(),
            format: self.scan.format.to_string(),
            device: o.device.clone(),
            map: self.map,
            records: self.scan.records,
            records_replayed: counts.records.load(Relaxed),
            split_records: counts.split.load(Relaxed),
            summary: replay.summary(),
        }
    }
}

/// A trace's span, precise below a second (a short trace spans milliseconds).
fn span_text(secs: f64) -> String {
    if secs < 1.0 {
        format!("{:.3} ms", secs * 1e3)
    } else {
        format_duration_approx(secs)
    }
}
