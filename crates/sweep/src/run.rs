//! Running points: each one a simulation, many at once on rayon's pool.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use ssdiq_flash::{simulate, simulate_with, SeriesPoint, SimReport};
use ssdiq_schema::{SimRun, SimSeriesPoint};
use ssdiq_trace::TraceDraws;

use crate::error::SweepError;
use crate::point::Point;

/// Runs one point; `on_series` sees each point of its WAF series as it is produced.
pub fn run_point(p: &Point, on_series: impl FnMut(&SeriesPoint)) -> Result<SimRun, SweepError> {
    let t0 = Instant::now();
    let fail = |message: String| SweepError::Run {
        index: p.index,
        label: p.label(),
        message,
    };
    let report = match &p.trace {
        None => simulate(&p.cfg, on_series).map_err(|e| fail(e.to_string()))?,
        Some(t) => {
            let mut draws = TraceDraws::new(
                &t.scan,
                t.mapping.clone(),
                p.cfg.geometry.logical_pages,
                t.sequence.clone(),
            )?;
            let r = simulate_with(&p.cfg, &mut draws, on_series);
            if let Some(e) = draws.take_error() {
                return Err(e.into());
            }
            r.map_err(|e| fail(e.to_string()))?
        }
    };
    Ok(sim_run(p, &report, t0.elapsed().as_secs_f64()))
}

fn sim_run(p: &Point, r: &SimReport, seconds: f64) -> SimRun {
    SimRun {
        params: p.params.clone(),
        method: r.method.to_string(),
        waf: r.waf,
        cumulative_waf: r.cumulative_waf,
        host_writes: r.host_writes,
        flash_writes: r.flash_writes,
        erases: r.erases,
        gc_relocations: r.gc_relocations,
        buffer_hits: r.buffer_hits,
        trims: r.trims,
        mean_victim_valid: r
            .mean_victim_valid
            .is_finite()
            .then_some(r.mean_victim_valid),
        greedy_model_waf: r.greedy_model_waf,
        seconds,
        series: r
            .series
            .iter()
            .map(|s| SimSeriesPoint {
                drive_writes: s.drive_writes,
                host_writes: s.host_writes,
                flash_writes: s.flash_writes,
                running_waf: s.running_waf,
                cumulative_waf: s.cumulative_waf,
            })
            .collect(),
    }
}

/// Runs `points` in parallel. A point not yet started when `stop` is set is skipped (its
/// slot is `None`); `admit(point)` is held while the point runs (a memory reservation: it may
/// block until the point fits); `on_series(point, series point)` and `on_done(point, run)`
/// report progress from the worker threads.
pub fn run_points<G>(
    points: &[&Point],
    stop: &AtomicBool,
    admit: impl Fn(&Point) -> G + Sync,
    on_series: impl Fn(&Point, &SeriesPoint) + Sync,
    on_done: impl Fn(&Point, &SimRun) + Sync,
) -> Result<Vec<Option<SimRun>>, SweepError> {
    points
        .par_iter()
        .map(|p| {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let _admitted = admit(p);
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let r = run_point(p, |s| on_series(p, s))?;
            on_done(p, &r);
            Ok(Some(r))
        })
        .collect()
}
