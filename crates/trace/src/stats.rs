//! What a trace does: requests, read/write mix, footprint, request sizes, sequentiality,
//! inter-arrival times, and the write skew that decides its write amplification, measured
//! like `ssdiq pattern` measures a pattern (the workload crate's analysis).
//!
//! Definitions (stated in the output too):
//! - footprint: distinct pages of `page_bytes` that reads or writes touch (a request that
//!   covers part of a page touches it); trims do not count.
//! - sequential: a read (write) that starts where the previous read (write) of the same
//!   device ended.
//! - inter-arrival: the gap between consecutive records in file order; a record stamped
//!   earlier than the one before it counts as `backwards` with gap 0.
//! - write skew: page writes per written page; "top X%" is the share of page writes that
//!   the X% most written of the written pages received.
//!
//! Memory: one hash entry per distinct page of the short requests (up to 64 pages), a few
//! ranges per longer request ([`crate::page_counts`]), one entry per device.

use hdrhistogram::Histogram;
use rustc_hash::FxHashMap;
use ssdiq_workload::analysis::{top_shares, CountDistribution};
use ssdiq_workload::Op;

use crate::map::{PageKeys, PAGE_KEY_BITS};
use crate::page_counts::PageCounts;
use crate::record::TraceRecord;

pub use ssdiq_schema::trace::{
    DeviceCount, Footprint, InterArrival, OpStats, SizeBucket, TraceStats, WriteSkew,
};

/// Largest size bucket: requests above 2^29 bytes share the last one.
const MAX_SIZE_LOG2: u32 = 30;
const MIN_SIZE_LOG2: u32 = 9;
/// Devices listed by name (the busiest ones).
const DEVICES_LISTED: usize = 20;

/// Accumulates [`TraceStats`] one record at a time.
pub struct TraceStatsBuilder {
    page: u64,
    ops: [OpStats; 3],
    seq: [u64; 3],
    /// (device, op) -> end of its previous request.
    last_end: FxHashMap<u64, u64>,
    sizes: [[u64; 3]; (MAX_SIZE_LOG2 - MIN_SIZE_LOG2 + 1) as usize],
    keys: PageKeys,
    pages: PageCounts,
    devices: FxHashMap<u32, u64>,
    gaps: Histogram<u64>,
    /// Exact sum of the gaps (the histogram's mean is only as exact as its buckets).
    gap_sum_ns: u128,
    last_time: Option<u64>,
    max_time: u64,
    backwards: u64,
    min_offset: u64,
    max_end: u64,
    unmapped: u64,
}

fn op_index(op: Op) -> usize {
    match op {
        Op::Read => 0,
        Op::Write | Op::WriteZeroes => 1,
        Op::Trim => 2,
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl TraceStatsBuilder {
    /// Statistics over pages of `page_bytes` (> 0).
    pub fn new(page_bytes: u64) -> Self {
        assert!(page_bytes > 0, "page size must be > 0");
        TraceStatsBuilder {
            page: page_bytes,
            ops: Default::default(),
            seq: [0; 3],
            last_end: FxHashMap::default(),
            sizes: [[0; 3]; (MAX_SIZE_LOG2 - MIN_SIZE_LOG2 + 1) as usize],
            keys: PageKeys::default(),
            pages: PageCounts::default(),
            devices: FxHashMap::default(),
            // Gaps up to 2^50 ns (13 days); longer ones count as that.
            gaps: Histogram::new_with_bounds(1, 1 << 50, 3).expect("valid bounds"),
            gap_sum_ns: 0,
            last_time: None,
            max_time: 0,
            backwards: 0,
            min_offset: u64::MAX,
            max_end: 0,
            unmapped: 0,
        }
    }

    #[inline]
    pub fn add(&mut self, r: &TraceRecord) {
        let i = op_index(r.op);
        let o = &mut self.ops[i];
        o.requests += 1;
        o.bytes += r.len;
        *self.devices.entry(r.device).or_default() += 1;
        let log2 = (64 - (r.len - 1).leading_zeros()).clamp(MIN_SIZE_LOG2, MAX_SIZE_LOG2);
        self.sizes[(log2 - MIN_SIZE_LOG2) as usize][i] += 1;
        if let Some(t) = self.last_time {
            if r.time_ns < t {
                self.backwards += 1;
                self.gaps.saturating_record(0);
            } else {
                self.gaps.saturating_record(r.time_ns - t);
                self.gap_sum_ns += (r.time_ns - t) as u128;
            }
        }
        self.last_time = Some(r.time_ns);
        self.max_time = self.max_time.max(r.time_ns);
        if r.op == Op::Trim {
            return;
        }
        let key = (r.device as u64) << 2 | i as u64;
        let prev = self.last_end.insert(key, r.end());
        if prev == Some(r.offset) {
            self.seq[i] += 1;
        }
        self.min_offset = self.min_offset.min(r.offset);
        self.max_end = self.max_end.max(r.end());
        let (first, last) = r.pages(self.page);
        // Pages beyond 2^48 into a device have no key.
        let keyed_last = last.min((1 << PAGE_KEY_BITS) - 1);
        if first > keyed_last {
            self.unmapped += last - first + 1;
            return;
        }
        self.unmapped += last - keyed_last;
        let (Some(a), Some(b)) = (
            self.keys.key(r.device, first),
            self.keys.key(r.device, keyed_last),
        ) else {
            self.unmapped += keyed_last - first + 1;
            return;
        };
        self.pages.add(a, b, r.op != Op::Read);
    }

    /// The statistics; `device_name` names device ids as the file does.
    pub fn finish(
        self,
        file: &str,
        format: &str,
        device: Option<&str>,
        lines: u64,
        device_name: impl Fn(u32) -> String,
    ) -> TraceStats {
        let mut ops = self.ops;
        for (i, o) in ops.iter_mut().enumerate() {
            o.mean_bytes = ratio(o.bytes, o.requests);
            o.sequential_fraction = if i == 2 {
                0.0
            } else {
                ratio(self.seq[i], o.requests)
            };
        }
        let [read, write, trim] = ops;
        let requests = read.requests + write.requests + trim.requests;
        let (mut read_pages, mut written_pages, mut read_only) = (0u64, 0u64, 0u64);
        let mut page_writes = 0u64;
        let mut footprint_pages = 0u64;
        let mut writes = CountDistribution::default();
        self.pages.for_each(|c, n| {
            footprint_pages += n;
            page_writes = page_writes.saturating_add(c.writes.saturating_mul(n));
            if c.writes > 0 {
                written_pages += n;
                writes.add(c.writes, n);
            }
            if c.reads > 0 {
                read_pages += n;
                if c.writes == 0 {
                    read_only += n;
                }
            }
        });
        let dist = writes.finish();
        let top = top_shares(&dist, written_pages.max(1), page_writes);
        let mut sizes = Vec::new();
        let last_used = self
            .sizes
            .iter()
            .rposition(|b| b.iter().any(|&c| c > 0))
            .unwrap_or(0);
        for (k, b) in self.sizes.iter().enumerate().take(last_used + 1) {
            sizes.push(SizeBucket {
                up_to_bytes: if k as u32 == MAX_SIZE_LOG2 - MIN_SIZE_LOG2 {
                    u64::MAX
                } else {
                    1 << (k as u32 + MIN_SIZE_LOG2)
                },
                read: b[0],
                write: b[1],
                trim: b[2],
            });
        }
        let mut devices: Vec<(u32, u64)> = self.devices.iter().map(|(&d, &n)| (d, n)).collect();
        devices.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let us = |ns: u64| ns as f64 / 1e3;
        let g = &self.gaps;
        let duration_s = self.max_time as f64 / 1e9;
        TraceStats {
            file: file.to_string(),
            format: format.to_string(),
            device: device.map(str::to_string),
            lines,
            requests,
            duration_s,
            requests_per_s: if duration_s > 0.0 {
                requests as f64 / duration_s
            } else {
                0.0
            },
            device_count: devices.len() as u64,
            devices: devices
                .iter()
                .take(DEVICES_LISTED)
                .map(|&(d, n)| DeviceCount {
                    device: device_name(d),
                    requests: n,
                })
                .collect(),
            read_fraction: ratio(read.requests, read.requests + write.requests),
            read_bytes_fraction: ratio(read.bytes, read.bytes + write.bytes),
            read,
            write,
            trim,
            footprint: Footprint {
                page_bytes: self.page,
                pages: footprint_pages,
                bytes: footprint_pages * self.page,
                read_pages,
                written_pages,
                read_only_pages: read_only,
                min_offset: if self.max_end == 0 {
                    0
                } else {
                    self.min_offset
                },
                max_end: self.max_end,
                uncounted_pages: self.unmapped,
            },
            sizes,
            inter_arrival: InterArrival {
                mean_us: if g.is_empty() {
                    0.0
                } else {
                    self.gap_sum_ns as f64 / g.len() as f64 / 1e3
                },
                p50_us: us(g.value_at_quantile(0.5)),
                p90_us: us(g.value_at_quantile(0.9)),
                p99_us: us(g.value_at_quantile(0.99)),
                p99_9_us: us(g.value_at_quantile(0.999)),
                max_us: us(g.max()),
                backwards: self.backwards,
            },
            write_skew: WriteSkew {
                page_writes,
                written_pages,
                mean_writes_per_page: ratio(page_writes, written_pages),
                max_writes_per_page: dist.keys().next_back().copied().unwrap_or(0),
                top,
                count_histogram: dist.into_iter().collect(),
            },
        }
    }
}
