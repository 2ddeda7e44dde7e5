//! Latency under load: percentile curves on a nines axis (the whole distribution, tail
//! included) and latency per interval over time (stalls show as spikes or gaps).

use crate::chart::line::Stroke;
use crate::chart::{Axis, LineChart, Series, Unit};
use crate::model::{steps, OpSummary, StepResult};

use super::Drive;

/// `read` -> "Read", for titles.
fn title_case(op: &str) -> String {
    let mut c = op.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The (percentile, ns) points of a stream's distribution that a nines axis can show; the
/// maximum is placed at the percentile of the last of `ios` samples, `100 (1 - 1/ios)`.
pub fn percentile_points(o: &OpSummary) -> Vec<[f64; 2]> {
    let mut pts: Vec<[f64; 2]> = o
        .cdf
        .iter()
        .filter(|c| c.p < 100.0)
        .map(|c| [c.p, c.ns as f64])
        .collect();
    if o.ios > 1 {
        let p_max = 100.0 * (1.0 - 1.0 / o.ios as f64);
        if pts.last().is_none_or(|l| l[0] < p_max) {
            pts.push([p_max, o.lat_ns.max as f64]);
        }
    }
    pts
}

/// The percentiles of one probe stream (`read`, `write`) under load, one line per drive.
pub fn tail(drives: &[Drive], probe: &str) -> LineChart {
    let mut c = LineChart::new(
        format!("{} latency under load, by percentile", title_case(probe)),
        Axis::nines("percentile"),
        Axis::log("latency").unit(Unit::Nanos),
    );
    for d in drives {
        let Some(o) = d
            .run
            .step(steps::LATENCY_UNDER_LOAD)
            .and_then(|s| s.probes.get(probe))
        else {
            continue;
        };
        c.series
            .push(Series::new(&d.name, d.colour, percentile_points(o)));
    }
    c
}

/// A probe's latency over one interval of the step; `None` where nothing completed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub t_s: f64,
    pub mean_ns: f64,
    pub p99_ns: f64,
    /// Known where the result keeps the interval's distribution, not only its P99.
    pub p999_ns: Option<f64>,
}

/// The probe's intervals: the result's probe intervals (60 s in the reference, with their
/// P99.9) where it has them, else its whole seconds from the per-second rows (a second cut
/// short by the end of a round is left out; a second without completions is a stall).
pub fn per_second(step: &StepResult, probe: &str) -> Vec<(f64, Option<Interval>)> {
    if !step.probe_intervals.is_empty() {
        return step
            .probe_intervals
            .iter()
            .filter(|p| !p.partial)
            .map(|p| {
                let i = p.ops.get(probe).filter(|o| o.ios > 0).map(|o| Interval {
                    t_s: p.t_s,
                    mean_ns: o.lat_ns.mean,
                    p99_ns: o.lat_ns.p99 as f64,
                    p999_ns: Some(o.lat_ns.p99_9 as f64),
                });
                (p.t_s, i)
            })
            .collect();
    }
    let stream = format!("probe_{probe}");
    let full = super::steps::full_seconds(step);
    step.seconds
        .iter()
        .filter(|p| p.stream == stream && full(p.t_s))
        .map(|p| {
            let i = (p.ios > 0).then_some(Interval {
                t_s: p.t_s,
                mean_ns: p.lat_mean_ns,
                p99_ns: p.lat_p99_ns as f64,
                p999_ns: None,
            });
            (p.t_s, i)
        })
        .collect()
}

/// Runs of consecutive intervals with completions: a stall is a gap, not a line across it.
fn runs_of(
    points: &[(f64, Option<Interval>)],
    pick: impl Fn(&Interval) -> Option<f64>,
) -> Vec<Vec<[f64; 2]>> {
    let mut out: Vec<Vec<[f64; 2]>> = vec![Vec::new()];
    for (t, i) in points {
        match i.as_ref().and_then(&pick) {
            Some(v) => out.last_mut().expect("never empty").push([*t, v]),
            None if out.last().is_some_and(|r| !r.is_empty()) => out.push(Vec::new()),
            None => {}
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

type Pick = fn(&Interval) -> Option<f64>;

/// Latency of a probe stream per interval over the latency-under-load step: P99.9 (dashed,
/// where known), P99 (solid) and mean (thin), one colour per drive.
pub fn over_time(drives: &[Drive], probe: &str) -> LineChart {
    let mut c = LineChart::new(
        format!("{} latency under load, per interval", title_case(probe)),
        Axis::linear("time [s]"),
        Axis::log("latency").unit(Unit::Nanos),
    );
    for d in drives {
        let Some(step) = d.run.step(steps::LATENCY_UNDER_LOAD) else {
            continue;
        };
        let points = per_second(step, probe);
        let stats: [(&str, Stroke, Pick); 3] = [
            ("P99.9", Stroke::Dashed, |i| i.p999_ns),
            ("P99", Stroke::Solid, |i| Some(i.p99_ns)),
            ("mean", Stroke::Thin, |i| Some(i.mean_ns)),
        ];
        for (stat, stroke, pick) in stats {
            let label = if drives.len() > 1 {
                format!("{} {stat}", d.name)
            } else {
                stat.to_string()
            };
            for run in runs_of(&points, pick) {
                let markers = run.len() <= 30;
                let mut s = Series::new(&label, d.colour, run).stroke(stroke);
                s.markers = markers && stroke == Stroke::Solid;
                c.series.push(s);
            }
        }
    }
    c
}
