//! Metrics of a measured window: snapshots of the store's, the space manager's and the
//! device's counters at its start and end, and what the paper's Table 1 derives from them.
//!
//! Definitions (paper §2, §7.1):
//! - user writes = pages written by eviction or checkpoint, 4 KiB each (logical page bytes);
//! - DB WAF = bytes the store wrote to the device (user slots, double-write, DB GC) / user
//!   write bytes; with compression it drops below 1;
//! - SSD WAF = media bytes / host bytes, from the device's own counters;
//! - total WAF = DB WAF x SSD WAF; logical and physical bytes per operation = device bytes and
//!   media bytes the window wrote, per operation.

use crate::device::{BufferSamples, WriteCounters};
use crate::driver::Clock;
use crate::space::SpaceCounters;
use crate::store::{Store, StoreCounters};
pub use ssdiq_schema::store::{Drilldown, Metrics};

const PAGE: f64 = 4096.0;

/// Counters at one moment.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    pub store: StoreCounters,
    pub space: SpaceCounters,
    pub device: Option<WriteCounters>,
    pub buffer: Option<BufferSamples>,
    pub clock: Clock,
}

impl Snapshot {
    pub fn take(store: &mut Store, clock: Clock) -> Snapshot {
        Snapshot {
            store: store.counters,
            space: store.space().map(|s| s.counters).unwrap_or_default(),
            device: store.device().counters(),
            buffer: store.device().buffer_samples(),
            clock,
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// The measured window: what changed between two snapshots.
pub fn between(a: &Snapshot, b: &Snapshot) -> Metrics {
    let s = |f: fn(&StoreCounters) -> u64| f(&b.store) - f(&a.store);
    let g = |f: fn(&SpaceCounters) -> u64| f(&b.space) - f(&a.space);
    let ops = b.clock.ops - a.clock.ops;
    let seconds = (b.clock.ns - a.clock.ns) as f64 / 1e9;
    let user_pages = s(|c| c.user_pages);
    let user_bytes = s(|c| c.user_bytes);
    let dwb = s(|c| c.dwb_bytes);
    let gc = g(|c| c.gc_slots) * PAGE as u64;
    let comp = g(|c| c.compensation_slots) * PAGE as u64;
    let db_bytes = user_bytes + dwb + gc;
    let (host, media) = match (a.device, b.device) {
        (Some(x), Some(y)) => (
            Some(y.host_bytes - x.host_bytes),
            match (x.media_bytes, y.media_bytes) {
                (Some(p), Some(q)) => Some(q - p),
                _ => None,
            },
        ),
        _ => (None, None),
    };
    let ssd_waf = match (host, media) {
        (Some(h), Some(m)) if h > 0 => Some(m as f64 / h as f64),
        _ => None,
    };
    let db_waf = ratio(db_bytes as f64, user_pages as f64 * PAGE);
    let hits = s(|c| c.hits);
    let misses = s(|c| c.misses);
    let vv = g(|c| c.victim_valid_pages);
    let vp = g(|c| c.victim_pages);
    Metrics {
        ops,
        seconds,
        ops_per_s: ratio(ops as f64, seconds),
        db_waf,
        ssd_waf,
        total_waf: ssd_waf.map(|w| w * db_waf),
        logical_bytes_per_op: ratio(db_bytes as f64, ops as f64),
        physical_bytes_per_op: media.map(|m| ratio(m as f64, ops as f64)),
        hit_ratio: ratio(hits as f64, (hits + misses) as f64),
        user_pages,
        compressed_fraction: ratio(s(|c| c.user_stored_bytes) as f64, user_pages as f64 * PAGE),
        victim_valid_ratio: (vp > 0).then(|| vv as f64 / vp as f64),
        gc_rounds: g(|c| c.gc_rounds),
        compensation_victims: g(|c| c.compensation_victims),
        host_bytes: host,
        media_bytes: media,
        read_bytes_per_op: ratio(
            (s(|c| c.read_bytes) + g(|c| c.gc_read_bytes)) as f64,
            ops as f64,
        ),
        drive_buffer_fill: match (a.buffer, b.buffer) {
            (Some(x), Some(y)) if y.writes > x.writes && y.capacity_pages > 0 => Some(
                (y.buffered_pages - x.buffered_pages) as f64
                    / (y.writes - x.writes) as f64
                    / y.capacity_pages as f64,
            ),
            _ => None,
        },
        drilldown: Drilldown {
            user_bytes,
            double_write_bytes: dwb,
            db_gc_bytes: gc,
            compensation_bytes: comp,
            ssd_gc_bytes: match (host, media) {
                (Some(h), Some(m)) => Some(m.saturating_sub(h)),
                _ => None,
            },
        },
    }
}
