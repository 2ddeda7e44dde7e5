//! Dot charts: one row per drive, one mark per metric on a shared value axis, optional zones
//! in the verdict colours. They compare drives whose only common data are table figures
//! (published drives have no curves), so they serve both comparisons and `--against`.

use plotters::prelude::*;
use serde::Serialize;

use super::axis::{Axis, Layout, Tick};
use super::frame::{self, Key, Shape};
use super::palette::Rgb;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mark {
    pub label: String,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DotRow {
    pub label: String,
    pub colour: Rgb,
    /// One value per mark, in data units.
    pub values: Vec<Option<f64>>,
    /// Per mark, the range of the samples behind the value (min and max of repetitions),
    /// drawn as a whisker; empty when there is one sample.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread: Vec<Option<[f64; 2]>>,
}

/// A shaded value range (a verdict colour): `from`/`to` open-ended when `None`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Zone {
    pub from: Option<f64>,
    pub to: Option<f64>,
    pub colour: Rgb,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DotChart {
    pub title: String,
    pub x: Axis,
    pub marks: Vec<Mark>,
    pub rows: Vec<DotRow>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<Zone>,
}

/// Pixels per row.
const ROW_H: u32 = 26;

impl DotChart {
    pub fn new(title: impl Into<String>, x: Axis, marks: &[&str]) -> Self {
        DotChart {
            title: title.into(),
            x,
            marks: marks
                .iter()
                .enumerate()
                .map(|(i, m)| Mark {
                    label: m.to_string(),
                    shape: Shape::nth(i),
                })
                .collect(),
            rows: Vec::new(),
            zones: Vec::new(),
        }
    }

    pub fn has_data(&self) -> bool {
        self.rows
            .iter()
            .flat_map(|r| r.values.iter().flatten())
            .any(|&v| self.x.to_plot(v).is_some())
    }

    /// The height that gives every row the same room, whatever the number of drives.
    pub fn height(&self) -> u32 {
        self.rows.len() as u32 * ROW_H + 84
    }

    pub fn svg(&self, width: u32) -> Option<String> {
        if !self.has_data() {
            return None;
        }
        let values = self
            .rows
            .iter()
            .flat_map(|r| r.values.iter().flatten().copied());
        let bounds = self.zones.iter().flat_map(|z| [z.from, z.to]).flatten();
        let x = self.x.layout(values.chain(bounds));
        let n = self.rows.len();
        // Row i is drawn at y = n - 1 - i, so the first row is on top.
        let y = Layout {
            lo: -0.6,
            hi: n as f64 - 0.4,
            ticks: self
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| Tick {
                    pos: (n - 1 - i) as f64,
                    label: r.label.clone(),
                })
                .collect(),
        };
        let keys: Vec<Key> = if self.marks.len() > 1 {
            self.marks
                .iter()
                .map(|m| Key::Marker {
                    label: m.label.clone(),
                    colour: super::palette::INK,
                    shape: m.shape,
                })
                .collect()
        } else {
            Vec::new()
        };
        let legend_w = frame::legend_width(&keys, width / 4);
        let size = (width, self.height());
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
            root.fill(&WHITE).ok()?;
            let (plot_area, legend_area) = root.split_horizontally(width - legend_w);
            let y_area = frame::y_label_width(y.ticks.iter().map(|t| t.label.as_str())) - 24;
            // The rows' names are the y ticks, one a row: only the value axis is thinned.
            let (w, _) = frame::plot_extent(width - legend_w, size.1, y_area, &self.x.label);
            let x = x.without_overlap(w, frame::x_label_extent);
            let mut chart = frame::plot(&plot_area, &x, &y, &self.x.label, "", y_area)?;
            for z in &self.zones {
                let a = z.from.and_then(|v| self.x.to_plot(v)).unwrap_or(x.lo);
                let b = z.to.and_then(|v| self.x.to_plot(v)).unwrap_or(x.hi);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(a.max(x.lo), y.lo), (b.min(x.hi), y.hi)],
                        z.colour.plotters().mix(0.45).filled(),
                    )))
                    .ok()?;
            }
            for (i, r) in self.rows.iter().enumerate() {
                let row_y = (n - 1 - i) as f64;
                let xs: Vec<f64> = r
                    .values
                    .iter()
                    .flatten()
                    .filter_map(|&v| self.x.to_plot(v))
                    .collect();
                if xs.len() >= 2 {
                    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(lo, row_y), (hi, row_y)],
                            r.colour.plotters().mix(0.6).stroke_width(2),
                        )))
                        .ok()?;
                }
                for range in r.spread.iter().flatten() {
                    let (Some(a), Some(b)) = (self.x.to_plot(range[0]), self.x.to_plot(range[1]))
                    else {
                        continue;
                    };
                    chart
                        .draw_series([
                            PathElement::new(
                                vec![(a, row_y), (b, row_y)],
                                r.colour.plotters().stroke_width(1),
                            ),
                            PathElement::new(
                                vec![(a, row_y - 0.2), (a, row_y + 0.2)],
                                r.colour.plotters().stroke_width(1),
                            ),
                            PathElement::new(
                                vec![(b, row_y - 0.2), (b, row_y + 0.2)],
                                r.colour.plotters().stroke_width(1),
                            ),
                        ])
                        .ok()?;
                }
                // Marks at (nearly) the same value stack above and below the row instead of
                // hiding each other (in place: user and double-write are both 1.0).
                let near = (x.hi - x.lo) * 0.025;
                let mut placed: Vec<f64> = Vec::new();
                for (v, m) in r.values.iter().zip(&self.marks) {
                    let Some(px) = v.and_then(|v| self.x.to_plot(v)) else {
                        continue;
                    };
                    let k = placed.iter().filter(|&&q| (q - px).abs() < near).count();
                    placed.push(px);
                    let dy = match k {
                        0 => 0.0,
                        k => 0.36 * k.div_ceil(2) as f64 * if k % 2 == 1 { 1.0 } else { -1.0 },
                    };
                    m.shape.draw_in(&mut chart, (px, row_y + dy), r.colour, 6)?;
                }
            }
            frame::legend(&legend_area, &keys)?;
            root.present().ok()?;
        }
        Some(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::axis::Unit;
    use crate::chart::palette;

    #[test]
    fn equal_values_in_a_row_do_not_hide_each_other() {
        // In place: user writes and double-writes are both 1.0 byte per user byte.
        let mut c = DotChart::new(
            "drilldown",
            Axis::linear("bytes"),
            &["user", "double-write"],
        );
        c.rows.push(DotRow {
            label: "in-place".into(),
            colour: palette::series(0),
            values: vec![Some(1.0), Some(1.0)],
            spread: Vec::new(),
        });
        let svg = c.svg(640).unwrap();
        let attr = |tag: &str, name: &str| -> f64 {
            let t = &svg[svg.find(tag).unwrap()..];
            let v = &t[t.find(&format!("{name}=\"")).unwrap() + name.len() + 2..];
            v[..v.find('"').unwrap()].parse().unwrap()
        };
        let disc_y = attr("<circle", "cy");
        let t = &svg[svg.find("<polygon").unwrap()..];
        let pts = &t[t.find("points=\"").unwrap() + 8..];
        let ys: Vec<f64> = pts[..pts.find('"').unwrap()]
            .split_whitespace()
            .map(|p| p.split(',').nth(1).unwrap().parse().unwrap())
            .collect();
        let tri_y = ys.iter().sum::<f64>() / ys.len() as f64;
        assert!(
            (tri_y - disc_y).abs() >= 8.0,
            "the triangle is stacked off the disc: {tri_y} vs {disc_y}"
        );
    }

    #[test]
    fn rows_are_labelled_and_zones_widen_the_axis() {
        let mut c = DotChart::new(
            "Write latency P99.9",
            Axis::log("latency").unit(Unit::Nanos),
            &["avg", "P99.9"],
        );
        for (i, name) in ["drive a", "Samsung PM9A3"].iter().enumerate() {
            c.rows.push(DotRow {
                label: name.to_string(),
                colour: palette::series(i),
                values: vec![Some(11e3), Some(17e3 * (i + 1) as f64)],
                spread: vec![None, Some([15e3, 40e3])],
            });
        }
        c.zones.push(Zone {
            from: None,
            to: Some(20e3),
            colour: palette::GREEN,
        });
        c.zones.push(Zone {
            from: Some(100e3),
            to: None,
            colour: palette::RED,
        });
        let svg = c.svg(640).unwrap();
        let texts = crate::chart::svg_texts(&svg);
        let has = |w: &str| texts.iter().any(|t| t == w);
        assert!(has("Samsung PM9A3") && has("drive a"), "{texts:?}");
        assert!(
            has("100 µs"),
            "the red zone's start is on the axis: {texts:?}"
        );
        assert!(has("P99.9"), "marks have a legend");
        assert_eq!(c.height(), 2 * ROW_H + 84);
        let without: usize = {
            let mut d = c.clone();
            d.rows.iter_mut().for_each(|r| r.spread.clear());
            d.svg(640).unwrap().matches("<polyline").count()
        };
        assert_eq!(
            svg.matches("<polyline").count(),
            without + 2 * 3,
            "a whisker per spread"
        );
    }
}
