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

/// MB/s of a step over its time, one colour per drive. A step the protocol runs several times
/// (before and after each write workload) shows every run, end to end on the time axis: the
/// table's median and range come from all of them, so the chart must show the drop that pulls
/// the median down. With one drive each run has its own colour and its name in the legend.
pub fn throughput<'a>(drives: &[Drive<'a>], step_name: &str, title: &str) -> LineChart {
    let runs_of = |d: &Drive<'a>| -> Vec<&'a StepResult> {
        d.run.steps.iter().filter(|s| s.name == step_name).collect()
    };
    if drives.iter().all(|d| runs_of(d).len() <= 1) {
        return single_run_throughput(drives, step_name, title);
    }
    let mut c = LineChart::new(
        title,
        Axis::linear("time [s], the step's runs end to end"),
        Axis::linear("MB/s"),
    );
    let one_drive = drives.len() == 1;
    for d in drives {
        let mut offset = 0.0;
        for (i, step) in runs_of(d).into_iter().enumerate() {
            let (colour, label) = if one_drive {
                (palette::series(i), occurrence(d, step))
            } else if i == 0 {
                (d.colour, d.name.clone())
            } else {
                (d.colour, String::new())
            };
            let shift = |pts: Vec<[f64; 2]>| -> Vec<[f64; 2]> {
                pts.into_iter().map(|[t, v]| [t + offset, v]).collect()
            };
            let seconds = shift(per_second_mb_s(step));
            let rounds = shift(step.series.iter().map(|p| [p.t_s, p.mb_s]).collect());
            let end = step
                .elapsed_s
                .or_else(|| step.series.last().map(|p| p.t_s))
                .or_else(|| step.seconds.iter().map(|p| p.t_s).reduce(f64::max))
                .unwrap_or(0.0);
            if rounds.len() >= 2 {
                if seconds.len() >= 2 {
                    c.series
                        .push(Series::new("", colour, seconds).stroke(Stroke::Thin));
                }
                c.series.push(Series::new(label, colour, rounds).markers());
            } else {
                c.series.push(Series::new(label, colour, seconds));
            }
            offset += end;
        }
    }
    c
}

/// Which run of its step `step` is: `before uniform`, `after Zipf 0.8`, with the repetition
/// when the run was repeated.
fn occurrence(d: &Drive, step: &StepResult) -> String {
    let workload = d
        .run
        .steps
        .iter()
        .find(|s| {
            s.pass == step.pass
                && s.repetition == step.repetition
                && s.name.starts_with("rand_write_")
        })
        .map(|s| s.name.trim_start_matches("rand_write_").to_string());
    let mut label = match (&step.stage, workload) {
        (Some(stage), Some(w)) => format!("{stage} {w}"),
        (Some(stage), None) => format!("pass {} {stage}", step.pass.unwrap_or(1)),
        (None, Some(w)) => format!("with {w}"),
        (None, None) => format!("pass {}", step.pass.unwrap_or(1)),
    };
    if let Some(r) = step.repetition.filter(|&r| r > 1) {
        label = format!("repeat {r}, {label}");
    }
    label
}

/// MB/s of a step that ran once per drive.
fn single_run_throughput(drives: &[Drive], step_name: &str, title: &str) -> LineChart {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{steps, SeriesPoint};
    use crate::run_charts;

    fn run_of(name: &str, pass: u32, stage: Option<&str>, mb_s: f64) -> StepResult {
        StepResult {
            name: name.into(),
            pass: Some(pass),
            stage: stage.map(String::from),
            elapsed_s: Some(3.0),
            series: (1..=3)
                .map(|t| SeriesPoint {
                    t_s: t as f64,
                    mb_s,
                    iops: 0.0,
                    waf: None,
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_step_run_before_and_after_each_workload_shows_every_run() {
        let mut r = crate::markdown::tests::sample();
        r.steps = vec![
            run_of(steps::SEQ_READ, 1, Some("before"), 7000.0),
            run_of(steps::RAND_WRITE_UNIFORM, 1, None, 300.0),
            run_of(steps::SEQ_READ, 1, Some("after"), 2200.0),
            run_of(steps::SEQ_READ, 2, Some("before"), 7000.0),
            run_of(steps::RAND_WRITE_ZIPF, 2, None, 300.0),
            run_of(steps::SEQ_READ, 2, Some("after"), 2900.0),
        ];
        let one = run_charts::drives(&[&r]);
        let c = throughput(&one, steps::SEQ_READ, "t");
        let labels: Vec<&str> = c.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "before uniform",
                "after uniform",
                "before zipf",
                "after zipf"
            ]
        );
        // End to end: the after-uniform run starts where the first ended, in its own colour.
        assert_eq!(c.series[1].points[0], [4.0, 2200.0]);
        assert_ne!(c.series[0].colour, c.series[1].colour);
        // Two drives: a colour per drive, named once, every run of each.
        let two = run_charts::drives(&[&r, &r]);
        let mut c = throughput(&two, steps::SEQ_READ, "t");
        assert_eq!(c.series.len(), 8);
        let named: Vec<&str> = c
            .series
            .iter()
            .map(|s| s.label.as_str())
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(named.len(), 2);
        // ... and each drive's mark, so one drive's line cannot hide another's.
        run_charts::mark_drives(&mut c, &two);
        assert_eq!(c.series[0].shape, Some(crate::chart::Shape::nth(0)));
        assert_eq!(c.series[7].shape, Some(crate::chart::Shape::nth(1)));
        assert!(c.svg((640, 360)).is_some());
    }
}
