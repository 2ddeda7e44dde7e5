//! Throughput and write amplification of a step over time, every drive overlaid: per second
//! (thin) and per measurement round (dots, the steady-state detector's input), the steady
//! window shaded when one drive is shown.

use std::collections::BTreeMap;

use crate::chart::line::{Band, Stroke};
use crate::chart::palette;
use crate::chart::{Axis, LineChart, Series};
use crate::model::StepResult;

use super::Drive;

/// Whether the per-second point starting at `t_s` covers at least half a second (of the
/// step's interval, where the result states it). A round's last second is cut short by the
/// round's end; its few completions make a noisy point (rounds are concatenated, so these
/// sit inside the series, not only at its end). Results that mark such rows `partial` are
/// taken at their word.
pub fn full_seconds(step: &StepResult) -> impl Fn(f64) -> bool {
    let partial: Vec<u64> = step
        .seconds
        .iter()
        .filter(|p| p.partial)
        .map(|p| p.t_s.to_bits())
        .collect();
    let marked = step.interval_s.is_some();
    let interval = step.interval_s.unwrap_or(1.0);
    let mut starts: Vec<f64> = step.seconds.iter().map(|p| p.t_s).collect();
    starts.sort_by(f64::total_cmp);
    starts.dedup();
    let end = step
        .elapsed_s
        .or_else(|| step.series.last().map(|p| p.t_s))
        .unwrap_or(f64::INFINITY);
    move |t: f64| {
        if marked {
            return !partial.contains(&t.to_bits());
        }
        let i = starts.partition_point(|&s| s < t);
        let next = starts.get(i + 1).copied().unwrap_or(end);
        next.min(t + interval) - t >= 0.5 * interval
    }
}

/// Summed MB/s of the step's main streams (not the probes) per full second.
pub fn per_second_mb_s(step: &StepResult) -> Vec<[f64; 2]> {
    let full = full_seconds(step);
    let mut per: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    for p in step
        .seconds
        .iter()
        .filter(|p| !p.stream.starts_with("probe") && full(p.t_s))
    {
        per.entry(p.t_s.to_bits()).or_insert((p.t_s, 0.0)).1 += p.mb_s;
    }
    let mut pts: Vec<[f64; 2]> = per.into_values().map(|(t, v)| [t, v]).collect();
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]));
    pts
}

/// The steady window as a time range: from the end of the round before its first round to
/// the end of its last.
pub fn steady_window(step: &StepResult) -> Option<(f64, f64)> {
    let c = step.convergence.as_ref()?;
    let first = c.window_first? as usize;
    if step.series.is_empty() {
        return None;
    }
    let last = (first + 4).min(step.series.len() - 1);
    let from = if first == 0 {
        0.0
    } else {
        step.series.get(first - 1)?.t_s
    };
    Some((from, step.series.get(last)?.t_s))
}

fn label(drives: &[Drive], d: &Drive, what: &str) -> String {
    if drives.len() > 1 {
        d.name.clone()
    } else {
        what.to_string()
    }
}

fn band(drives: &[Drive], step_name: &str) -> Vec<Band> {
    match drives {
        [d] => d
            .run
            .step(step_name)
            .and_then(steady_window)
            .map(|(from, to)| Band {
                label: "steady window".into(),
                colour: palette::STEADY,
                from,
                to,
            })
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// MB/s of a step over its time, one colour per drive.
pub fn throughput(drives: &[Drive], step_name: &str, title: &str) -> LineChart {
    let mut c = LineChart::new(title, Axis::linear("time [s]"), Axis::linear("MB/s"));
    c.bands = band(drives, step_name);
    for d in drives {
        let Some(step) = d.run.step(step_name) else {
            continue;
        };
        let seconds = per_second_mb_s(step);
        let rounds: Vec<[f64; 2]> = step.series.iter().map(|p| [p.t_s, p.mb_s]).collect();
        if rounds.len() >= 2 {
            if seconds.len() >= 2 {
                let thin = if drives.len() > 1 { "" } else { "per second" };
                c.series
                    .push(Series::new(thin, d.colour, seconds).stroke(Stroke::Thin));
            }
            c.series
                .push(Series::new(label(drives, d, "per round"), d.colour, rounds).markers());
        } else {
            c.series.push(Series::new(
                label(drives, d, "per second"),
                d.colour,
                seconds,
            ));
        }
    }
    c
}

/// Write amplification per round (media / host writes of the round), one colour per drive.
pub fn waf(drives: &[Drive], step_name: &str, title: &str) -> LineChart {
    let mut c = LineChart::new(title, Axis::linear("time [s]"), Axis::linear("WAF"));
    c.bands = band(drives, step_name);
    for d in drives {
        let Some(step) = d.run.step(step_name) else {
            continue;
        };
        let pts: Vec<[f64; 2]> = step
            .series
            .iter()
            .filter_map(|p| Some([p.t_s, p.waf?]))
            .collect();
        if pts.len() >= 2 {
            c.series
                .push(Series::new(label(drives, d, "per round"), d.colour, pts).markers());
        }
    }
    c
}
