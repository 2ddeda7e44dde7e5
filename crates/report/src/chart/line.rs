//! Line charts: series of (x, y) points on linear, log or nines axes, each series in its own
//! colour and stroke, optional shaded x-ranges (the steady-state window), legend at the right.
//!
//! A chart is data first (serializable: golden tests pin what is fed to the chart) and SVG
//! second ([`LineChart::svg`], drawn with plotters).

use plotters::prelude::*;
use serde::Serialize;

use super::axis::Axis;
use super::frame::Shape;
use super::frame::{self, Key};
use super::palette::Rgb;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stroke {
    /// 2 px, the main statistic.
    Solid,
    /// 2 px dashed, a second statistic of the same drive.
    Dashed,
    /// 1 px, a background statistic (an average beside its tail).
    Thin,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    pub label: String,
    pub colour: Rgb,
    pub stroke: Stroke,
    /// Dots on the points (few points, each a measurement: rounds, intervals).
    pub markers: bool,
    /// The drive's mark when several drives share a chart: on every point where the series
    /// has markers, else on a few points along the line, shifted per series so that lines
    /// lying on each other still show each drive's marks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// (x, y) in data units.
    pub points: Vec<[f64; 2]>,
}

impl Series {
    pub fn new(label: impl Into<String>, colour: Rgb, points: Vec<[f64; 2]>) -> Self {
        Series {
            label: label.into(),
            colour,
            stroke: Stroke::Solid,
            markers: false,
            shape: None,
            points,
        }
    }

    pub fn stroke(mut self, stroke: Stroke) -> Self {
        self.stroke = stroke;
        self
    }

    pub fn markers(mut self) -> Self {
        self.markers = true;
        self
    }
}

/// A line of more points than its plot has pixel columns drawn with at most four a column:
/// the first, the lowest, the highest and the last of each (the line looks the same, every
/// spike kept; an hour of per-second points is not 3,600 SVG vertices per series). `pts`
/// in plot coordinates, in x order.
fn decimate(pts: Vec<(f64, f64)>, (lo, hi): (f64, f64), columns: usize) -> Vec<(f64, f64)> {
    if pts.len() <= 4 * columns || hi <= lo {
        return pts;
    }
    let col = |x: f64| (((x - lo) / (hi - lo)) * columns as f64).floor() as i64;
    let mut out = Vec::with_capacity(4 * columns + 4);
    let mut i = 0;
    while i < pts.len() {
        let c = col(pts[i].0);
        let mut j = i;
        let (mut min, mut max) = (i, i);
        while j < pts.len() && col(pts[j].0) == c {
            if pts[j].1 < pts[min].1 {
                min = j;
            }
            if pts[j].1 > pts[max].1 {
                max = j;
            }
            j += 1;
        }
        let mut keep = [i, min, max, j - 1];
        keep.sort_unstable();
        let mut last = usize::MAX;
        for k in keep {
            if k != last {
                out.push(pts[k]);
                last = k;
            }
        }
        i = j;
    }
    out
}

/// A shaded x-range with its own legend key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Band {
    pub label: String,
    pub colour: Rgb,
    pub from: f64,
    pub to: f64,
}

/// A shaded y-range along x (a prediction's range): `low` and `high` at the same x values,
/// with its own legend key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Area {
    pub label: String,
    pub colour: Rgb,
    /// (x, low, high) in x order.
    pub points: Vec<[f64; 3]>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LineChart {
    /// Shown above the chart by the page (not drawn into the SVG).
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bands: Vec<Band>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub areas: Vec<Area>,
}

impl LineChart {
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Self {
        LineChart {
            title: title.into(),
            x,
            y,
            series: Vec::new(),
            bands: Vec::new(),
            areas: Vec::new(),
        }
    }

    pub fn with(mut self, s: Series) -> Self {
        self.series.push(s);
        self
    }

    /// Whether any series has a point both axes can show.
    pub fn has_data(&self) -> bool {
        self.series.iter().any(|s| {
            s.points
                .iter()
                .any(|p| self.x.to_plot(p[0]).is_some() && self.y.to_plot(p[1]).is_some())
        })
    }

    fn keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = Vec::new();
        for s in &self.series {
            let k = Key::Line {
                label: s.label.clone(),
                colour: s.colour,
                dashed: s.stroke == Stroke::Dashed,
                width: if s.stroke == Stroke::Thin { 1 } else { 2 },
                shape: s.shape,
            };
            if !s.label.is_empty() && !keys.contains(&k) {
                keys.push(k);
            }
        }
        for a in &self.areas {
            keys.push(Key::Swatch {
                label: a.label.clone(),
                colour: a.colour,
            });
        }
        for b in &self.bands {
            keys.push(Key::Swatch {
                label: b.label.clone(),
                colour: b.colour,
            });
        }
        keys
    }

    /// The chart as an SVG document of `size` pixels; `None` without data to draw.
    pub fn svg(&self, size: (u32, u32)) -> Option<String> {
        if !self.has_data() {
            return None;
        }
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let area_ys = || {
            self.areas
                .iter()
                .flat_map(|a| a.points.iter().flat_map(|p| [p[1], p[2]]))
        };
        let x = self.x.layout_tight(pts().map(|p| p[0]));
        let y = self.y.layout(pts().map(|p| p[1]).chain(area_ys()));
        let keys = self.keys();
        let legend_w = frame::legend_width(&keys, size.0 * 2 / 5);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
            root.fill(&WHITE).ok()?;
            let (plot_area, legend_area) = root.split_horizontally(size.0 - legend_w);
            let y_area = frame::y_label_width(y.ticks.iter().map(|t| t.label.as_str()));
            let (w, h) = frame::plot_extent(size.0 - legend_w, size.1, y_area, &self.x.label);
            let x = x.without_overlap(w, frame::x_label_extent);
            let y = y.without_overlap(h, |_| frame::LABEL_H);
            let mut chart = frame::plot(&plot_area, &x, &y, &self.x.label, &self.y.label, y_area)?;
            for b in &self.bands {
                let (Some(a), Some(z)) = (self.x.to_plot(b.from), self.x.to_plot(b.to)) else {
                    continue;
                };
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(a.max(x.lo), y.lo), (z.min(x.hi), y.hi)],
                        b.colour.plotters().mix(0.15).filled(),
                    )))
                    .ok()?;
            }
            for a in &self.areas {
                let edge = |i: usize| {
                    move |p: &[f64; 3]| Some((self.x.to_plot(p[0])?, self.y.to_plot(p[i])?))
                };
                let mut outline: Vec<(f64, f64)> = a.points.iter().filter_map(edge(1)).collect();
                outline.extend(a.points.iter().rev().filter_map(edge(2)));
                chart
                    .draw_series(std::iter::once(Polygon::new(
                        outline,
                        a.colour.plotters().mix(0.2).filled(),
                    )))
                    .ok()?;
            }
            let shaped = self.series.iter().filter(|s| s.shape.is_some()).count();
            let mut shaped_before = 0;
            for s in &self.series {
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter_map(|p| Some((self.x.to_plot(p[0])?, self.y.to_plot(p[1])?)))
                    .collect();
                let pts = decimate(pts, (x.lo, x.hi), w.max(1.0) as usize);
                let colour = s.colour.plotters();
                match s.stroke {
                    Stroke::Solid => chart
                        .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
                        .map(|_| ()),
                    Stroke::Thin => chart
                        .draw_series(LineSeries::new(
                            pts.clone(),
                            colour.mix(0.6).stroke_width(1),
                        ))
                        .map(|_| ()),
                    Stroke::Dashed => chart
                        .draw_series(DashedLineSeries::new(
                            pts.clone(),
                            7,
                            5,
                            colour.stroke_width(2),
                        ))
                        .map(|_| ()),
                }
                .ok()?;
                if let Some(shape) = s.shape {
                    let at: Vec<usize> = if s.markers || pts.len() <= MARKS_PER_LINE {
                        (0..pts.len()).collect()
                    } else {
                        marks_along(pts.len(), shaped_before, shaped)
                    };
                    for i in at {
                        shape.draw_in(&mut chart, pts[i], s.colour, 4)?;
                    }
                    shaped_before += 1;
                } else if s.markers || pts.len() == 1 {
                    chart
                        .draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                        .ok()?;
                }
            }
            frame::legend(&legend_area, &keys)?;
            root.present().ok()?;
        }
        Some(svg)
    }
}

/// Marks a shaped line carries when it has more points than this.
const MARKS_PER_LINE: usize = 8;

/// Indices of the points that carry the marks of the `k`-th of `n` shaped series with
/// `len` points: evenly spaced, each series shifted by `k / n` of the spacing.
fn marks_along(len: usize, k: usize, n: usize) -> Vec<usize> {
    let gap = len as f64 / MARKS_PER_LINE as f64;
    let shift = gap * (k as f64 + 0.5) / n.max(1) as f64;
    (0..MARKS_PER_LINE)
        .map(|m| ((m as f64 * gap + shift) as usize).min(len - 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_every_columns_extremes() {
        // 36,000 points over 100 columns: a spike in the middle of each column's run.
        let pts: Vec<(f64, f64)> = (0..36_000)
            .map(|i| (i as f64, if i % 360 == 180 { 50.0 } else { (i % 7) as f64 }))
            .collect();
        let d = decimate(pts.clone(), (0.0, 36_000.0), 100);
        assert!(d.len() <= 400, "{}", d.len());
        assert_eq!(d.iter().filter(|p| p.1 == 50.0).count(), 100);
        assert_eq!(d.first(), pts.first());
        assert_eq!(d.last(), pts.last());
        // Few points: drawn as they are.
        assert_eq!(
            decimate(pts[..300].to_vec(), (0.0, 36_000.0), 100).len(),
            300
        );
    }
    use crate::chart::axis::Unit;
    use crate::chart::palette;

    #[test]
    fn draws_lines_bands_ticks_and_a_legend_beside_the_plot() {
        let c = LineChart {
            bands: vec![Band {
                label: "steady-state window".into(),
                colour: palette::STEADY,
                from: 20.0,
                to: 30.0,
            }],
            ..LineChart::new("t", Axis::linear("time [s]"), Axis::linear("MB/s"))
        }
        .with(Series::new(
            "drive a",
            palette::series(0),
            (0..50).map(|i| [i as f64, 7000.0]).collect(),
        ));
        let svg = c.svg((640, 360)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("viewBox"));
        let texts = crate::chart::svg_texts(&svg);
        for want in ["steady-state window", "drive a", "8000", "time [s]", "MB/s"] {
            assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
        }
        assert!(!svg.contains("7000.0"));
        assert!(svg.contains("font-size=\"12.9"), "tick labels >= 11 px");
        let empty = LineChart::new("t", Axis::linear("x"), Axis::linear("y"));
        assert!(empty.svg((640, 360)).is_none());
    }

    #[test]
    fn log_and_nines_axes_skip_points_they_cannot_show() {
        let c = LineChart::new(
            "t",
            Axis::nines("percentile"),
            Axis::log("latency").unit(Unit::Nanos),
        )
        .with(Series::new(
            "",
            palette::series(1),
            vec![[0.0, 0.0], [50.0, 60e3], [99.9, 480e3], [100.0, 1e6]],
        ));
        let svg = c.svg((640, 360)).unwrap();
        let texts = crate::chart::svg_texts(&svg);
        for want in ["99.9", "100 µs", "50"] {
            assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
        }
    }
}
