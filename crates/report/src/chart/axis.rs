//! Axes: how data values map to plot coordinates, where the ticks go and what they say.
//!
//! Invariants:
//! - Plot coordinates are linear: a log axis plots `log10(v)`, a nines axis plots
//!   `-log10(1 - p/100)` (0 at the 0th percentile, 2 at P99, 3 at P99.9, ...). Renderers draw
//!   straight lines in plot space, so a log or nines curve is exact between its points.
//! - Ticks are few (at most about eight), at round values, labelled without needless decimals
//!   and with units where the unit is a time (`100 µs`, `2 ms`).
//! - A linear axis that measures an amount (throughput, WAF, seconds) starts at zero unless
//!   told otherwise; a log axis starts at the round value just below the data.

use serde::Serialize;

/// How values are spaced along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    Linear,
    Log,
    /// Percentiles in [0, 100), spaced by their number of nines (50, 90, 99, 99.9, ...).
    Nines,
}

/// What the values are, for tick labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// A plain number (MB/s, WAF, seconds, drive writes).
    Number,
    /// A latency in nanoseconds, labelled in ns, µs, ms or s.
    Nanos,
    /// A percentage (0-100) labelled with a percent sign.
    Percent,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
    pub unit: Unit,
    /// A linear axis includes zero.
    pub from_zero: bool,
    /// Values the axis must include beyond the data (a threshold, a spec value).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<f64>,
    /// A linear axis ends here at most when the data does (a percentage of a whole at 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
}

impl Axis {
    /// A linear axis from zero.
    pub fn linear(label: impl Into<String>) -> Self {
        Axis {
            label: label.into(),
            scale: Scale::Linear,
            unit: Unit::Number,
            from_zero: true,
            include: Vec::new(),
            at_most: None,
        }
    }

    pub fn log(label: impl Into<String>) -> Self {
        Axis {
            scale: Scale::Log,
            from_zero: false,
            ..Axis::linear(label)
        }
    }

    pub fn nines(label: impl Into<String>) -> Self {
        Axis {
            scale: Scale::Nines,
            from_zero: false,
            ..Axis::linear(label)
        }
    }

    pub fn unit(mut self, unit: Unit) -> Self {
        self.unit = unit;
        self
    }

    /// The linear axis starts at the data rather than at zero.
    pub fn not_from_zero(mut self) -> Self {
        self.from_zero = false;
        self
    }

    /// The axis never runs past `max` while the data stays within it.
    pub fn at_most(mut self, max: f64) -> Self {
        self.at_most = Some(max);
        self
    }

    pub fn including(mut self, values: impl IntoIterator<Item = f64>) -> Self {
        self.include.extend(values);
        self
    }

    /// The plot coordinate of a value; `None` for values the axis cannot show (a log axis
    /// at or below zero, a nines axis at 100% or beyond).
    pub fn to_plot(&self, v: f64) -> Option<f64> {
        let p = match self.scale {
            Scale::Linear => v,
            Scale::Log if v > 0.0 => v.log10(),
            Scale::Nines if (0.0..100.0).contains(&v) => -(1.0 - v / 100.0).log10(),
            _ => return None,
        };
        p.is_finite().then_some(p)
    }

    /// The plotted range and the ticks for data spanning `values` (data units), with a little
    /// room above the largest value (a value axis: a line at the maximum stays off the frame).
    pub fn layout(&self, values: impl IntoIterator<Item = f64>) -> Layout {
        self.layout_with(values, true)
    }

    /// As [`Axis::layout`], ending at the first tick at or above the data (a time axis).
    pub fn layout_tight(&self, values: impl IntoIterator<Item = f64>) -> Layout {
        self.layout_with(values, false)
    }

    fn layout_with(&self, values: impl IntoIterator<Item = f64>, headroom: bool) -> Layout {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for p in values
            .into_iter()
            .chain(self.include.iter().copied())
            .filter_map(|v| self.to_plot(v))
        {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        if !lo.is_finite() {
            (lo, hi) = match self.scale {
                Scale::Linear => (0.0, 1.0),
                Scale::Log => (0.0, 1.0),
                Scale::Nines => (0.0, 2.0),
            };
        }
        match self.scale {
            Scale::Linear => self.linear_layout(lo, hi, headroom),
            Scale::Log => self.log_layout(lo, hi),
            Scale::Nines => self.nines_layout(hi),
        }
    }

    fn linear_layout(&self, mut lo: f64, mut hi: f64, headroom: bool) -> Layout {
        if self.from_zero {
            lo = lo.min(0.0);
            hi = hi.max(0.0);
        }
        if hi - lo < 1e-12 * hi.abs().max(1.0) {
            // One value: show it mid-axis (or from zero) rather than on a zero-width range.
            let pad = if hi == 0.0 { 1.0 } else { hi.abs() * 0.5 };
            hi += pad;
            if !self.from_zero {
                lo -= pad;
            }
        }
        let data_hi = hi;
        // Headroom so a line at the maximum does not sit on the frame.
        let raw_hi = if headroom { hi + 0.03 * (hi - lo) } else { hi };
        let step = nice_step((raw_hi - lo) / 6.0);
        let lo = (lo / step + 1e-9).floor() * step;
        let mut hi = (raw_hi / step - 1e-9).ceil() * step;
        let decimals = decimals_for(step);
        let n = ((hi - lo) / step).round() as i64;
        let mut ticks: Vec<Tick> = (0..=n)
            .map(|i| {
                let v = lo + i as f64 * step;
                Tick {
                    pos: v,
                    label: self.format(v, decimals),
                }
            })
            .collect();
        if let Some(max) = self.at_most.filter(|&m| hi > m && data_hi <= m) {
            hi = max;
            ticks.retain(|t| t.pos <= max + 1e-9);
        }
        Layout { lo, hi, ticks }
    }

    fn log_layout(&self, lo: f64, hi: f64) -> Layout {
        // Round outward to 1, 2 or 5 times a power of ten.
        let lo = round_log(lo, false);
        let mut hi = round_log(hi, true);
        if hi - lo < 0.3 {
            hi = round_log(lo + 0.31, true);
        }
        let span = hi - lo;
        // A narrow range (10-20 µs) gets intermediate ticks: two labels would leave the
        // reader guessing where a line sits.
        let mantissas: &[f64] = if span <= 0.55 {
            &[1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0]
        } else if span <= 1.05 {
            &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]
        } else if span <= 2.05 {
            &[1.0, 2.0, 5.0]
        } else {
            &[1.0]
        };
        let decade_step = if span > 7.0 { 2 } else { 1 };
        let mut ticks = Vec::new();
        let first = lo.floor() as i32;
        for e in first..=hi.ceil() as i32 {
            if (e - first) % decade_step != 0 {
                continue;
            }
            for &m in mantissas {
                let pos = (m * 10f64.powi(e)).log10();
                if pos >= lo - 1e-9 && pos <= hi + 1e-9 {
                    let v = m * 10f64.powi(e);
                    // 1.5 needs a decimal that 1 or 2 do not.
                    let fraction = (m - m.floor()) * 10f64.powi(e);
                    let decimals = decimals_for(if fraction > 0.0 { fraction } else { v });
                    ticks.push(Tick {
                        pos,
                        label: self.format(v, decimals),
                    });
                }
            }
        }
        if ticks.len() < 2 {
            // A range inside one decade without 2 or 5 in it: label its ends.
            ticks = [lo, hi]
                .iter()
                .map(|&pos| {
                    let v = 10f64.powf(pos);
                    Tick {
                        pos,
                        label: self.format(v, decimals_for(v / 10.0)),
                    }
                })
                .collect();
        }
        Layout { lo, hi, ticks }
    }

    fn nines_layout(&self, hi: f64) -> Layout {
        let hi = hi.ceil().max(2.0);
        let mut ticks = vec![Tick {
            pos: 0.0,
            label: "0".into(),
        }];
        ticks.push(Tick {
            pos: 2f64.log10(),
            label: "50".into(),
        });
        for n in 1..=hi as i32 {
            let p = 100.0 * (1.0 - 10f64.powi(-n));
            ticks.push(Tick {
                pos: n as f64,
                label: trim_decimals(&format!("{p:.*}", (n - 2).max(0) as usize)),
            });
        }
        Layout { lo: 0.0, hi, ticks }
    }

    /// A value in this axis's unit, with `decimals` decimals for plain numbers.
    pub fn format(&self, v: f64, decimals: usize) -> String {
        match self.unit {
            Unit::Number => format_number(v, decimals),
            Unit::Percent => format!("{}%", format_number(v, decimals)),
            Unit::Nanos => format_nanos(v),
        }
    }
}

/// Where an axis runs (plot coordinates) and its ticks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Layout {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<Tick>,
}

impl Layout {
    /// The label of the tick at `pos` (plotters asks by position).
    pub fn label_at(&self, pos: f64) -> String {
        self.ticks
            .iter()
            .min_by(|a, b| (a.pos - pos).abs().total_cmp(&(b.pos - pos).abs()))
            .map(|t| t.label.clone())
            .unwrap_or_default()
    }

    pub fn positions(&self) -> Vec<f64> {
        self.ticks.iter().map(|t| t.pos).collect()
    }

    /// The ticks whose labels do not overlap on an axis `pixels` long, where a label takes
    /// `extent(label)` pixels along it (its width on an x axis, its height on a y axis). The
    /// first and last ticks stay; between them, from the first on, a tick is kept only if its
    /// label clears the last one kept and the last tick's.
    pub fn without_overlap(&self, pixels: f64, extent: impl Fn(&str) -> f64) -> Layout {
        let span = self.hi - self.lo;
        if self.ticks.len() <= 2 || span <= 0.0 || pixels <= 0.0 {
            return self.clone();
        }
        let px = |t: &Tick| (t.pos - self.lo) / span * pixels;
        let clear = |a: &Tick, b: &Tick| {
            (px(b) - px(a)).abs() >= (extent(&a.label) + extent(&b.label)) / 2.0
        };
        let last = self.ticks.last().expect("more than two ticks");
        let mut kept = vec![self.ticks[0].clone()];
        for t in &self.ticks[1..self.ticks.len() - 1] {
            if clear(kept.last().expect("the first"), t) && clear(t, last) {
                kept.push(t.clone());
            }
        }
        kept.push(last.clone());
        Layout {
            lo: self.lo,
            hi: self.hi,
            ticks: kept,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tick {
    /// Plot coordinate.
    pub pos: f64,
    pub label: String,
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let raw = raw.max(1e-12);
    let e = raw.log10().floor();
    let base = 10f64.powf(e);
    let m = raw / base;
    let nice = if m <= 1.0 + 1e-9 {
        1.0
    } else if m <= 2.0 + 1e-9 {
        2.0
    } else if m <= 5.0 + 1e-9 {
        5.0
    } else {
        10.0
    };
    nice * base
}

/// Decimals that show `step` (or a value) exactly: 0 for 1, 10, 500; 1 for 0.5; 2 for 0.25.
fn decimals_for(step: f64) -> usize {
    let step = step.abs();
    if step == 0.0 || step >= 1.0 {
        return 0;
    }
    for d in 1..=6 {
        let scaled = step * 10f64.powi(d);
        if (scaled - scaled.round()).abs() < 1e-6 * scaled.max(1.0) {
            return d as usize;
        }
    }
    6
}

/// `log10` position rounded outward to the nearest 1, 2 or 5 times a power of ten.
fn round_log(pos: f64, up: bool) -> f64 {
    let e = pos.floor();
    let candidates = [1.0f64, 2.0, 5.0, 10.0].map(|m| e + m.log10());
    if up {
        *candidates
            .iter()
            .find(|&&c| c >= pos - 1e-9)
            .unwrap_or(&(e + 1.0))
    } else {
        *candidates
            .iter()
            .rev()
            .find(|&&c| c <= pos + 1e-9)
            .unwrap_or(&e)
    }
}

fn trim_decimals(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// A plain number: `7000`, `2.5`, `0.05`; thousands not separated (tick labels stay short).
/// Zero is `0` whatever the decimals of its neighbours.
pub fn format_number(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.trim_start_matches(['-', '0', '.']).is_empty() {
        return "0".into();
    }
    s
}

/// A latency in nanoseconds in the unit that keeps it short: `800 ns`, `60 µs`, `1.5 ms`.
pub fn format_nanos(ns: f64) -> String {
    let (v, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{} {unit}", trim_decimals(&format!("{v:.digits$}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(l: &Layout) -> Vec<&str> {
        l.ticks.iter().map(|t| t.label.as_str()).collect()
    }

    /// Pixels between neighbouring labels' edges along an axis `pixels` long; negative where
    /// two overlap.
    fn gaps(l: &Layout, pixels: f64, extent: impl Fn(&str) -> f64) -> Vec<f64> {
        let px = |t: &Tick| (t.pos - l.lo) / (l.hi - l.lo) * pixels;
        l.ticks
            .windows(2)
            .map(|w| px(&w[1]) - px(&w[0]) - (extent(&w[0].label) + extent(&w[1].label)) / 2.0)
            .collect()
    }

    /// No two tick labels overlap on any nines range a percentile chart uses (P99 to nine
    /// nines), at every plot width a 640-pixel chart leaves beside its legend, nor on the y
    /// axes of a 360-pixel chart (issue 51: "99.9999" and "99.99999" ran together, "0" and
    /// "50" touched).
    #[test]
    fn thinned_tick_labels_never_overlap() {
        use crate::chart::frame::{x_label_extent, LABEL_H};
        for nines in 2..=9 {
            let top = 100.0 * (1.0 - 10f64.powi(-nines));
            let l = Axis::nines("percentile").layout([0.0, top]);
            let before = gaps(&l, 280.0, x_label_extent);
            assert!(
                before.iter().any(|g| *g < 0.0) || nines < 5,
                "{nines}: {before:?}"
            );
            for width in (250..=560).step_by(10) {
                let t = l.without_overlap(width as f64, x_label_extent);
                let g = gaps(&t, width as f64, x_label_extent);
                assert!(
                    g.iter().all(|g| *g >= 0.0),
                    "{nines} nines at {width} px: {:?} {g:?}",
                    labels(&t)
                );
                // The axis still says where it starts and ends.
                assert_eq!(t.ticks.first(), l.ticks.first());
                assert_eq!(t.ticks.last(), l.ticks.last());
            }
        }
        let y = Axis::log("latency")
            .unit(Unit::Nanos)
            .layout([57_000.0, 110_000.0]);
        for height in [150.0, 200.0, 300.0] {
            let t = y.without_overlap(height, |_| LABEL_H);
            assert!(gaps(&t, height, |_| LABEL_H).iter().all(|g| *g >= 0.0));
        }
    }

    #[test]
    fn a_capped_axis_stops_at_its_cap() {
        // Free blocks up to 100%: headroom would take the axis to 120%.
        assert!(Axis::linear("%").layout([3.0, 100.0]).hi > 100.0);
        let l = Axis::linear("%").at_most(100.0).layout([3.0, 100.0]);
        assert_eq!(l.hi, 100.0);
        assert!(l.ticks.iter().all(|t| t.pos <= 100.0));
        assert_eq!(labels(&l).last(), Some(&"100"));
        // Data beyond the cap is still shown whole.
        assert!(Axis::linear("%").at_most(100.0).layout([3.0, 130.0]).hi >= 130.0);
    }

    #[test]
    fn linear_ticks_are_round_and_start_at_zero() {
        let l = Axis::linear("MB/s").layout([6980.0, 7000.0]);
        assert_eq!(l.lo, 0.0);
        assert!(
            l.hi >= 7000.0 * 1.02,
            "headroom above a flat line: {}",
            l.hi
        );
        assert_eq!(labels(&l), ["0", "2000", "4000", "6000", "8000"]);
        let l = Axis::linear("WAF").layout([1.0, 4.95]);
        assert_eq!(labels(&l), ["0", "1", "2", "3", "4", "5", "6"]);
        let l = Axis::linear("dw").layout([0.0, 0.3]);
        assert_eq!(labels(&l)[..3], ["0", "0.1", "0.2"]);
        let l = Axis::linear("time").layout_tight([0.0, 196.0]);
        assert_eq!(l.hi, 200.0);
        let l = Axis::linear("x").not_from_zero().layout([10.0, 10.0]);
        assert!(l.lo < 10.0 && l.hi > 10.0);
    }

    #[test]
    fn log_ticks_are_decades_with_units() {
        let a = Axis::log("latency").unit(Unit::Nanos);
        let l = a.layout([9_000.0, 28_000_000.0]);
        assert_eq!(labels(&l), ["10 µs", "100 µs", "1 ms", "10 ms"]);
        assert!(l.lo <= 9_000f64.log10() && l.hi >= 28e6f64.log10());
        // Less than a decade of data still gets several labelled ticks.
        let l = a.layout([57_000.0, 110_000.0]);
        assert_eq!(labels(&l), ["50 µs", "70 µs", "100 µs", "150 µs", "200 µs"]);
        // Write latencies of 12.6-13.1 µs: not only the ends of a 10-20 µs axis.
        let l = a.layout([12_600.0, 13_100.0]);
        assert_eq!(labels(&l), ["10 µs", "12 µs", "15 µs", "20 µs"]);
        let n = Axis::log("WAF").layout([1.1, 1.9]);
        assert_eq!(labels(&n), ["1", "1.2", "1.5", "2"]);
        assert_eq!(a.to_plot(0.0), None);
    }

    #[test]
    fn nines_axis_spaces_percentiles_by_nines() {
        let a = Axis::nines("percentile");
        assert_eq!(a.to_plot(0.0), Some(0.0));
        assert!((a.to_plot(99.9).unwrap() - 3.0).abs() < 1e-9);
        assert_eq!(a.to_plot(100.0), None);
        let l = a.layout([50.0, 99.995]);
        assert_eq!(l.hi, 5.0);
        assert_eq!(
            labels(&l),
            ["0", "50", "90", "99", "99.9", "99.99", "99.999"]
        );
    }

    #[test]
    fn labels_have_no_needless_decimals() {
        assert_eq!(format_nanos(60_000.0), "60 µs");
        assert_eq!(format_nanos(1_500_000.0), "1.5 ms");
        assert_eq!(format_nanos(105_535.0), "106 µs");
        assert_eq!(format_nanos(800.0), "800 ns");
        assert_eq!(format_number(-0.0, 1), "0");
        assert_eq!(format_number(0.5, 1), "0.5");
        assert_eq!(Axis::linear("%").unit(Unit::Percent).format(95.0, 0), "95%");
    }
}
