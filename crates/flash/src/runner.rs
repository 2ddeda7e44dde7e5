//! One simulation run: sequential fill, `warmup_drive_writes` x logical capacity of workload
//! page writes, then `drive_writes` x logical capacity of measured ones, all through an
//! optional LRU write buffer into the FTL, with a WAF series every tenth of a drive write.
//!
//! WAF definitions (all over measured workload writes only; fill and warm-up are excluded):
//! - running WAF: flash programs / host writes over the last series interval;
//! - cumulative WAF: since the workload started;
//! - `waf`: over the final half of the workload writes (the first half is warm-up).
//!
//! Host writes are counted at the interface, so writes absorbed by the buffer lower WAF.

use serde::Serialize;
use ssdiq_workload::{Draw, DrawSource, PageStream, Pattern, StreamConfig};

use crate::analytic::{greedy_waf, optimal_split};
use crate::buffer::{Buffered, WriteBuffer};
use crate::classes::{pattern_classes, Classes};
pub use crate::error::SimError;
use crate::ftl::{Ftl, FtlConfig, GcMode};
use crate::geometry::Geometry;
use ssdiq_schema::GcPolicy;

#[derive(Clone, Debug)]
pub struct SimConfig {
    pub geometry: Geometry,
    pub policy: GcPolicy,
    /// A separate GC frontier.
    pub gc_frontier: bool,
    /// The share of relocated pages the GC frontier takes (1: all).
    pub gc_frontier_share: f64,
    /// When GC stops collecting (naive single log or batched).
    pub gc_mode: GcMode,
    /// Static wear levelling's erase-count gap (0: off; [`FtlConfig::wear_level_gap`]).
    pub wear_level_gap: u32,
    pub pattern: Pattern,
    /// Workload writes after the fill that are not measured, in units of the logical capacity
    /// (SSD-iq's simulator warms up with one physical capacity: 1 / fill).
    pub warmup_drive_writes: f64,
    /// Measured workload writes after the warm-up, in units of the logical capacity.
    pub drive_writes: f64,
    pub seed: u64,
    /// LRU write buffer size in pages (0: none).
    pub buffer_pages: u64,
    /// Series points per drive write.
    pub points_per_drive_write: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesPoint {
    /// Drive writes of workload done.
    pub drive_writes: f64,
    pub host_writes: u64,
    pub flash_writes: u64,
    pub running_waf: f64,
    pub cumulative_waf: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimReport {
    /// "simulated", or "analytic" for the `separated-model` figure.
    pub method: &'static str,
    /// WAF over the final half of the workload writes.
    pub waf: f64,
    pub cumulative_waf: f64,
    /// Workload host page writes (interface), excluding the fill.
    pub host_writes: u64,
    /// Flash page programs (host + GC) during the workload.
    pub flash_writes: u64,
    pub erases: u64,
    pub gc_relocations: u64,
    pub buffer_hits: u64,
    pub trims: u64,
    /// Mean valid pages of GC victims over the whole workload.
    pub mean_victim_valid: f64,
    /// Greedy's mean-field WAF at the effective fill, for comparison (uniform model).
    pub greedy_model_waf: f64,
    pub series: Vec<SeriesPoint>,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// Brings `ftl` to uniform-random steady state the way benchmarks do: a sequential fill, then
/// `drive_writes` x logical capacity of uniform random page writes drawn from `rng`.
pub fn fill_and_warm(ftl: &mut Ftl, drive_writes: u64, rng: &mut ssdiq_workload::SeededRng) {
    let u = ftl.geometry().logical_pages;
    for l in 0..u {
        ftl.write(l, 0);
    }
    for _ in 0..drive_writes * u {
        ftl.write(rng.below(u), 0);
    }
}

pub fn simulate(
    cfg: &SimConfig,
    on_point: impl FnMut(&SeriesPoint),
) -> Result<SimReport, SimError> {
    if !(cfg.drive_writes > 0.0 && cfg.drive_writes.is_finite()) {
        return Err(SimError::Writes(cfg.drive_writes));
    }
    if !(cfg.warmup_drive_writes >= 0.0 && cfg.warmup_drive_writes.is_finite()) {
        return Err(SimError::Warmup(cfg.warmup_drive_writes));
    }
    let g = cfg.geometry;
    let u = g.logical_pages;
    let model = greedy_waf(g.effective_fill(1), g.pages_per_block);
    if cfg.policy == GcPolicy::SeparatedModel {
        return separated_model(cfg, model);
    }
    let mut stream = PageStream::new(
        &cfg.pattern,
        StreamConfig::single(u, g.page_bytes, cfg.seed),
    )?;
    run(cfg, &mut stream, model, on_point)
}

/// One run whose page draws come from `source` (a trace) instead of `cfg.pattern`, which is
/// not used. The `separated-model` figure needs a pattern's frequency classes and is refused. If the
/// source fails, the run stops early; its caller reports the source's error.
pub fn simulate_with<S: DrawSource>(
    cfg: &SimConfig,
    source: &mut S,
    on_point: impl FnMut(&SeriesPoint),
) -> Result<SimReport, SimError> {
    if !(cfg.drive_writes > 0.0 && cfg.drive_writes.is_finite()) {
        return Err(SimError::Writes(cfg.drive_writes));
    }
    if cfg.policy == GcPolicy::SeparatedModel {
        return Err(SimError::NoBound("a trace".into()));
    }
    let g = cfg.geometry;
    let model = greedy_waf(g.effective_fill(1), g.pages_per_block);
    run(cfg, source, model, on_point)
}

fn run<S: DrawSource>(
    cfg: &SimConfig,
    stream: &mut S,
    model: f64,
    mut on_point: impl FnMut(&SeriesPoint),
) -> Result<SimReport, SimError> {
    let g = cfg.geometry;
    let u = g.logical_pages;
    let mut ftl = Ftl::new(FtlConfig {
        geometry: g,
        policy: cfg.policy,
        streams: 1,
        gc_frontier: cfg.gc_frontier,
        gc_frontier_share: cfg.gc_frontier_share,
        mode: cfg.gc_mode,
        wear_level_gap: cfg.wear_level_gap,
        seed: cfg.seed ^ 0x5EED_0F6C,
    })?;
    // Sequential fill (SSD-iq §3.1: steady state within about one more drive write).
    for lpn in 0..u {
        ftl.write(lpn, 0);
    }
    let mut buf = WriteBuffer::new(cfg.buffer_pages as usize);
    let use_buf = cfg.buffer_pages > 0;
    // One loop for warm-up and measurement: a single call site keeps the generator inlined.
    let mut warm_left = (cfg.warmup_drive_writes * u as f64).round() as u64;
    let mut c0 = ftl.counters().clone();
    let total = (cfg.drive_writes * u as f64).round().max(1.0) as u64;
    let half = total / 2;
    // Mark k sits at round(k u / points): exact tenths, no drift, last mark = total.
    let per_dw = cfg.points_per_drive_write.max(1) as u64;
    let mark = |k: u64| ((k as u128 * u as u128 / per_dw as u128) as u64).clamp(1, total);
    let mut k_mark = 1u64;
    let mut next_mark = mark(1);
    let (mut host, mut hits) = (0u64, 0u64);
    let (mut last_host, mut last_flash) = (0u64, 0u64);
    let mut half_flash = 0u64;
    let mut series = Vec::new();
    let flash_now =
        |ftl: &Ftl, c0: &crate::Counters| ftl.counters().flash_programs() - c0.flash_programs();
    let mut ahead = Lookahead::new(stream);
    while host < total && !ahead.stream.failed() {
        let draw = ahead.next(|p| {
            if !use_buf {
                ftl.prefetch(p)
            }
        });
        match draw {
            Draw::Page(p) => {
                let hit = host_write(&mut ftl, &mut buf, use_buf, p);
                if warm_left > 0 {
                    warm_left -= 1;
                    if warm_left == 0 {
                        c0 = ftl.counters().clone();
                    }
                    continue;
                }
                host += 1;
                hits += u64::from(hit);
                if host == half {
                    half_flash = flash_now(&ftl, &c0);
                }
                if host == next_mark {
                    let flash = flash_now(&ftl, &c0);
                    let pt = SeriesPoint {
                        drive_writes: host as f64 / u as f64,
                        host_writes: host,
                        flash_writes: flash,
                        running_waf: ratio(flash - last_flash, host - last_host),
                        cumulative_waf: ratio(flash, host),
                    };
                    on_point(&pt);
                    series.push(pt);
                    last_host = host;
                    last_flash = flash;
                    while mark(k_mark) <= host && host < total {
                        k_mark += 1;
                    }
                    next_mark = if host == total {
                        u64::MAX
                    } else {
                        mark(k_mark)
                    };
                }
            }
            Draw::Trim { start, pages } => trim(&mut ftl, &mut buf, use_buf, start, pages),
        }
    }
    let c = ftl.counters();
    let flash = flash_now(&ftl, &c0);
    let victims: u64 = c
        .victim_valid
        .iter()
        .zip(&c0.victim_valid)
        .map(|(a, b)| a - b)
        .sum();
    let victim_pages: f64 = c
        .victim_valid
        .iter()
        .zip(&c0.victim_valid)
        .enumerate()
        .map(|(v, (a, b))| v as f64 * (a - b) as f64)
        .sum();
    Ok(SimReport {
        method: "simulated",
        waf: ratio(flash - half_flash, total - half),
        cumulative_waf: ratio(flash, total),
        host_writes: total,
        flash_writes: flash,
        erases: c.erases - c0.erases,
        gc_relocations: c.gc_programs - c0.gc_programs,
        buffer_hits: hits,
        trims: c.trims - c0.trims,
        mean_victim_valid: if victims == 0 {
            0.0
        } else {
            victim_pages / victims as f64
        },
        greedy_model_waf: model,
        series,
    })
}

/// One host page write through the optional buffer; true if the buffer absorbed it.
#[inline(always)]
fn host_write(ftl: &mut Ftl, buf: &mut WriteBuffer, use_buf: bool, p: u64) -> bool {
    if !use_buf {
        ftl.write(p, 0);
        return false;
    }
    match buf.write(p) {
        Buffered::Hit => true,
        Buffered::Stored => false,
        Buffered::Evict(q) => {
            ftl.write(q, 0);
            false
        }
    }
}

fn trim(ftl: &mut Ftl, buf: &mut WriteBuffer, use_buf: bool, start: u64, pages: u64) {
    for l in start..start + pages {
        if use_buf {
            buf.discard(l);
        }
        ftl.trim(l);
    }
}

/// Draws a few writes ahead of the FTL so each write's map entry can be loaded before it is
/// needed: the generator is pure, so drawing early changes nothing but timing.
struct Lookahead<'a, S: DrawSource> {
    stream: &'a mut S,
    ring: [Draw; LOOKAHEAD],
    pos: usize,
}

const LOOKAHEAD: usize = 8;

impl<'a, S: DrawSource> Lookahead<'a, S> {
    fn new(stream: &'a mut S) -> Self {
        let ring = std::array::from_fn(|_| stream.next_draw());
        Self {
            stream,
            ring,
            pos: 0,
        }
    }

    #[inline]
    fn next(&mut self, hint: impl FnOnce(u64)) -> Draw {
        let fresh = self.stream.next_draw();
        if let Draw::Page(p) = fresh {
            hint(p);
        }
        let d = std::mem::replace(&mut self.ring[self.pos], fresh);
        self.pos = (self.pos + 1) % LOOKAHEAD;
        d
    }
}

/// The `separated-model` figure: frequency classes of the pattern, each its own greedy system with
/// this block size, the spare space split optimally (docs/sources.md#wa-models, hot/cold limit (c), with finite b).
fn separated_model(cfg: &SimConfig, model: f64) -> Result<SimReport, SimError> {
    let g = cfg.geometry;
    let waf = match pattern_classes(&cfg.pattern, g.logical_pages) {
        Classes::Random(c) => {
            optimal_split(1.0 / g.effective_fill(1), &c, Some(g.pages_per_block)).waf
        }
        Classes::Sequential => 1.0,
        Classes::Unknown => return Err(SimError::NoBound(format!("pattern {}", cfg.pattern))),
    };
    Ok(SimReport {
        method: "analytic",
        waf,
        cumulative_waf: waf,
        host_writes: 0,
        flash_writes: 0,
        erases: 0,
        gc_relocations: 0,
        buffer_hits: 0,
        trims: 0,
        mean_victim_valid: f64::NAN,
        greedy_model_waf: model,
        series: Vec::new(),
    })
}
