//! Validated points of a sweep: each one a simulator configuration and the parameters its
//! result records. Every check that could fail mid-sweep runs here, before anything starts.

use std::collections::HashMap;
use std::sync::Arc;

use itertools::iproduct;

use ssdiq_flash::{pattern_classes, Classes};
use ssdiq_flash::{FtlConfig, GcMode, GcPolicy, Geometry, SimConfig};
use ssdiq_schema::{SimParams, SimTrace};
use ssdiq_trace::scan::{scan, CompactLimit, CompactOver, Scan};
use ssdiq_trace::Compaction;
use ssdiq_trace::MapKind;
use ssdiq_trace::Mapping;
use ssdiq_workload::units::format_size;
use ssdiq_workload::{PageStream, Pattern, StreamConfig};

use crate::axes::{Axes, BufSpec, TraceWorkload, Warmup, Workload, Writes};
use crate::error::{invalid, SweepError};

/// Series points per drive write.
const POINTS_PER_DRIVE_WRITE: u32 = 10;

/// A trace read once, shared by every point that uses it.
#[derive(Clone, Debug)]
struct Scanned {
    scan: Arc<Scan>,
    compaction: Option<Arc<Compaction>>,
    sequence: Option<Arc<Vec<u64>>>,
}

/// A trace as one point uses it.
#[derive(Clone, Debug)]
pub struct TracePoint {
    pub scan: Arc<Scan>,
    pub mapping: Mapping,
    /// One pass in memory (compact map), walked instead of parsing the file per run.
    pub sequence: Option<Arc<Vec<u64>>>,
}

/// One run of the sweep.
#[derive(Clone, Debug)]
pub struct Point {
    /// Position in the sweep's order, from 0.
    pub index: usize,
    pub params: SimParams,
    pub cfg: SimConfig,
    pub trace: Option<TracePoint>,
}

impl Point {
    /// "gc pattern": how progress lines name the run.
    pub fn label(&self) -> String {
        format!("{} {}", self.params.gc_label(), self.params.pattern)
    }
}

/// Every point of the sweep, in order: the product of the drive axes (capacity, page, block,
/// provisioning, reserve), the GC axes (policy, mode, GC frontier share) and the run axes
/// (workload, warm-up, writes, seed, buffer), the last varying fastest. Traces are read once
/// each (per page size) here.
pub fn points(axes: &Axes) -> Result<Vec<Point>, SweepError> {
    let mut scans: HashMap<(usize, u64), Scanned> = HashMap::new();
    let mut out = Vec::with_capacity(axes.len());
    let drives = iproduct!(
        &axes.capacities,
        &axes.pages,
        &axes.blocks,
        &axes.provisions,
        &axes.reserves
    );
    let gcs = iproduct!(
        &axes.policies,
        &axes.modes,
        &axes.gc_frontier_shares,
        &axes.wear_level_gaps
    );
    let runs = iproduct!(
        axes.workloads.iter().enumerate(),
        &axes.warmups,
        &axes.writes,
        &axes.seeds,
        &axes.buffers
    );
    for (drive, gc, run) in iproduct!(drives, gcs, runs) {
        let (&cap, &page, &block, &prov, &reserve) = drive;
        let (&policy, &mode, &share, &wear_level_gap) = gc;
        let ((w, workload), &warmup, &writes, &seed, &buf) = run;
        let g =
            Geometry::new(cap, page, block, prov, reserve).map_err(|e| invalid(e.to_string()))?;
        let trace = match workload {
            Workload::Trace(t) => Some(trace_scan(&mut scans, w, t, page, axes)?),
            Workload::Pattern(_) => None,
        };
        out.push(point(
            out.len(),
            Setting {
                g,
                block_bytes: block,
                policy,
                mode,
                gc_frontier: axes.gc_frontier,
                gc_frontier_share: share,
                wear_level_gap,
                workload,
                trace: trace.as_ref(),
                warmup,
                writes,
                seed,
                buf,
            },
        )?);
    }
    Ok(out)
}

fn trace_scan(
    cache: &mut HashMap<(usize, u64), Scanned>,
    w: usize,
    t: &TraceWorkload,
    page: u64,
    axes: &Axes,
) -> Result<Scanned, SweepError> {
    if let Some(s) = cache.get(&(w, page)) {
        return Ok(s.clone());
    }
    // No drive of the sweep holds more pages than its raw capacity: a footprint beyond the
    // largest is refused while the map is still that small.
    let largest = axes.capacities.iter().copied().max().unwrap_or(0);
    let limit = CompactLimit {
        pages: largest / page,
        what: format!("the largest --capacity ({})", format_size(largest)),
    };
    let compact = (t.map == MapKind::Compact).then_some((CompactOver::Writes, &limit));
    let mut sc = scan(&t.options, page, compact)?;
    let s = Scanned {
        compaction: sc.compaction.take().map(Arc::new),
        sequence: sc.sequence.take().map(Arc::new),
        scan: Arc::new(sc),
    };
    cache.insert((w, page), s.clone());
    Ok(s)
}

/// The values of one point.
struct Setting<'a> {
    g: Geometry,
    block_bytes: u64,
    policy: GcPolicy,
    mode: GcMode,
    gc_frontier: bool,
    gc_frontier_share: f64,
    wear_level_gap: u32,
    workload: &'a Workload,
    trace: Option<&'a Scanned>,
    warmup: Warmup,
    writes: Writes,
    seed: u64,
    buf: BufSpec,
}

fn point(index: usize, s: Setting) -> Result<Point, SweepError> {
    let g = s.g;
    let buffer_pages = match s.buf {
        BufSpec::Fraction(f) => (f * g.physical_pages() as f64).round() as u64,
        BufSpec::Bytes(b) => b.div_ceil(g.page_bytes),
    };
    if buffer_pages >= g.logical_pages {
        return Err(invalid(format!(
            "invalid --write-buffer: {buffer_pages} pages would hold the whole logical space"
        )));
    }
    if s.gc_frontier && s.policy.is_two_r() {
        let flag = if s.gc_frontier_share < 1.0 {
            "--gc-frontier-share"
        } else {
            "--gc-frontier"
        };
        return Err(invalid(format!(
            "invalid {flag} with --gc {}: 2R merges victims in place, it has no GC frontier",
            s.policy
        )));
    }
    if s.policy != GcPolicy::SeparatedModel {
        let mut fc = FtlConfig::new(g, s.policy);
        fc.gc_frontier = s.gc_frontier;
        fc.gc_frontier_share = s.gc_frontier_share;
        fc.mode = s.mode;
        fc.wear_level_gap = s.wear_level_gap;
        fc.check().map_err(|e| invalid(e.to_string()))?;
    }
    let (pattern, label, drive_writes, trace) = match (s.workload, s.trace) {
        (Workload::Pattern(p), _) => {
            let dw = match s.writes {
                Writes::DriveWrites(d) => d,
                Writes::Passes(_) => {
                    return Err(invalid(
                        "invalid --writes: passes (like 1pass) count passes over a trace; give --trace, or drive writes like 10x",
                    ))
                }
            };
            check_pattern(p, &g, s.policy, s.seed)?;
            (p.clone(), p.to_string(), dw, None)
        }
        (
            Workload::Trace(t),
            Some(Scanned {
                scan,
                compaction,
                sequence,
            }),
        ) => {
            if s.policy == GcPolicy::SeparatedModel {
                return Err(invalid(
                    "invalid --gc separated-model: the separated model needs a pattern's write-frequency classes; a trace has none",
                ));
            }
            let mapping = Mapping::new(
                t.map,
                scan,
                compaction.clone(),
                g.logical_pages,
                &format!(
                    "the simulated drive's logical space ({} of {} physical)",
                    format_size(g.logical_bytes()),
                    format_size(g.physical_bytes())
                ),
            )?;
            if scan.write_pages == 0 {
                return Err(invalid(format!(
                    "trace \"{}\" holds no write, so there is nothing to simulate",
                    t.options.path.display()
                )));
            }
            let u = g.logical_pages as f64;
            let dw = match s.writes {
                Writes::DriveWrites(d) => d,
                Writes::Passes(p) => p * scan.write_pages as f64 / u,
            };
            let name = t
                .options
                .path
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_else(|| t.options.path.display().to_string());
            let info = SimTrace {
                file: t.options.path.display().to_string(),
                format: scan.format.to_string(),
                device: t.options.device.clone(),
                map: t.map.to_string(),
                pass_page_writes: scan.write_pages,
                written_pages: compaction.as_ref().map(|c| c.len()),
                passes: dw * u / scan.write_pages as f64,
            };
            (
                Pattern::Uniform,
                format!("trace:{name}"),
                dw,
                Some((
                    TracePoint {
                        scan: scan.clone(),
                        mapping,
                        sequence: sequence.clone(),
                    },
                    info,
                )),
            )
        }
        (Workload::Trace(_), None) => unreachable!("traces are scanned before their points"),
    };
    let (trace, trace_info) = match trace {
        Some((t, i)) => (Some(t), Some(i)),
        None => (None, None),
    };
    let warmup = match s.warmup {
        Warmup::DriveWrites(d) => d,
        Warmup::Physical => g.physical_pages() as f64 / g.logical_pages as f64,
    };
    let params = SimParams {
        capacity_bytes: g.physical_bytes(),
        logical_bytes: g.logical_bytes(),
        page_bytes: g.page_bytes,
        block_bytes: s.block_bytes,
        pages_per_block: g.pages_per_block,
        blocks: g.blocks,
        logical_pages: g.logical_pages,
        reserve_blocks: g.reserve_blocks,
        fill: g.fill(),
        op: g.op(),
        spare_factor: g.spare_factor(),
        gc: s.policy,
        gc_mode: match s.mode {
            GcMode::Naive => "naive",
            GcMode::Batched => "batched",
        }
        .into(),
        gc_frontier: s.gc_frontier || s.policy.implies_gc_frontier(),
        gc_frontier_share: (s.gc_frontier_share < 1.0).then_some(s.gc_frontier_share),
        wear_level_gap: (s.wear_level_gap > 0).then_some(s.wear_level_gap),
        pattern: label,
        warmup,
        writes: drive_writes,
        seed: s.seed,
        write_buffer_pages: buffer_pages,
        trace: trace_info,
    };
    Ok(Point {
        index,
        params,
        cfg: SimConfig {
            geometry: g,
            policy: s.policy,
            gc_frontier: s.gc_frontier,
            gc_frontier_share: s.gc_frontier_share,
            gc_mode: s.mode,
            wear_level_gap: s.wear_level_gap,
            pattern,
            warmup_drive_writes: warmup,
            drive_writes,
            seed: s.seed,
            buffer_pages,
            points_per_drive_write: POINTS_PER_DRIVE_WRITE,
        },
        trace,
    })
}

/// Pattern/geometry mismatches (zns zone size, empty zones) and patterns the separated model cannot evaluate.
fn check_pattern(p: &Pattern, g: &Geometry, policy: GcPolicy, seed: u64) -> Result<(), SweepError> {
    PageStream::new(p, StreamConfig::single(g.logical_pages, g.page_bytes, seed))
        .map_err(|e| invalid(e.to_string()))?;
    if policy == GcPolicy::SeparatedModel
        && matches!(pattern_classes(p, g.logical_pages), Classes::Unknown)
    {
        return Err(invalid(format!(
            "invalid --gc separated-model: the separated model needs a pattern of known write frequencies, not {p}"
        )));
    }
    Ok(())
}
