//! What every chart shares: the SVG surface, the plot frame with its sparse grid and tick
//! labels, the legend beside (never on) the data, and the shapes of marks.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Serialize;

use super::axis::Layout;
use super::palette::{Rgb, FRAME, GRID, INK};

/// Font size given to plotters; its SVG backend writes `size / 1.24`, so 16 is 12.9 px.
pub const FONT: f64 = 16.0;
/// Width of an average character of [`FONT`] in pixels, for sizing label areas.
pub const CHAR_W: f64 = 7.4;
/// Height of a tick label, in pixels, with room above and below it.
pub const LABEL_H: f64 = 16.0;
/// Room between two tick labels side by side, in pixels.
pub const LABEL_GAP: f64 = 8.0;

/// The pixels an x-axis tick label takes along the axis, with room beside it. Digits and dots
/// are narrower than an average character.
pub fn x_label_extent(label: &str) -> f64 {
    label
        .chars()
        .map(|c| match c {
            '.' | ',' | ' ' => CHAR_W * 0.5,
            '0'..='9' => CHAR_W * 1.0,
            _ => CHAR_W * 1.1,
        })
        .sum::<f64>()
        + LABEL_GAP
}

/// The plot's own extent inside an area of `width` x `height` pixels (the frame's margins and
/// label areas of [`plot`] taken off), for [`super::axis::Layout::without_overlap`].
pub fn plot_extent(width: u32, height: u32, y_label_area: u32, x_desc: &str) -> (f64, f64) {
    let x_label_area = if x_desc.is_empty() { 28 } else { 48 };
    (
        width.saturating_sub(y_label_area + 4 + 18) as f64,
        height.saturating_sub(12 + x_label_area) as f64,
    )
}

pub type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Ticked, Ticked>>;

/// A linear plot coordinate whose grid lines and labels are exactly the layout's ticks
/// (plotters' own key points would pick their own values and add minor lines).
pub struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(l: &Layout) -> Self {
        Ticked {
            lo: l.lo,
            hi: l.hi,
            ticks: l.positions(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let share = if self.hi > self.lo {
            (v - self.lo) / (self.hi - self.lo)
        } else {
            0.5
        };
        limit.0 + (share * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

pub fn font() -> TextStyle<'static> {
    ("sans-serif", FONT).into_font().color(&INK.plotters())
}

/// Room for the widest of `labels` plus the rotated axis description.
pub fn y_label_width<'a>(labels: impl IntoIterator<Item = &'a str>) -> u32 {
    let widest = labels
        .into_iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1);
    (widest as f64 * CHAR_W + 40.0).ceil() as u32
}

/// The frame of a plot on `area`: axes from the layouts, one grid line per tick.
pub fn plot<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    x: &Layout,
    y: &Layout,
    x_desc: &str,
    y_desc: &str,
    y_label_area: u32,
) -> Option<Plot<'a, 'b>> {
    let mut chart = ChartBuilder::on(area)
        .margin_top(12)
        .margin_right(18)
        .margin_left(4)
        .x_label_area_size(if x_desc.is_empty() { 28 } else { 48 })
        .y_label_area_size(y_label_area)
        .build_cartesian_2d(Ticked::new(x), Ticked::new(y))
        .ok()?;
    let xf = |v: &f64| x.label_at(*v);
    let yf = |v: &f64| y.label_at(*v);
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(font())
        .axis_desc_style(font())
        .bold_line_style(GRID.plotters().stroke_width(1))
        .axis_style(FRAME.plotters().stroke_width(1))
        .draw()
        .ok()?;
    Some(chart)
}

/// One line of a legend.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    Line {
        label: String,
        colour: Rgb,
        dashed: bool,
        width: u32,
        /// The series' mark, drawn on the key's line.
        shape: Option<Shape>,
    },
    Marker {
        label: String,
        colour: Rgb,
        shape: Shape,
    },
    Swatch {
        label: String,
        colour: Rgb,
    },
}

impl Key {
    fn label(&self) -> &str {
        match self {
            Key::Line { label, .. } | Key::Marker { label, .. } | Key::Swatch { label, .. } => {
                label
            }
        }
    }
}

/// Width of the legend column for `keys`, at most `max`; 0 without keys.
pub fn legend_width(keys: &[Key], max: u32) -> u32 {
    if keys.is_empty() {
        return 0;
    }
    let chars = keys
        .iter()
        .map(|k| k.label().chars().count())
        .max()
        .unwrap_or(0);
    ((chars as f64 * CHAR_W + 46.0).ceil() as u32).min(max)
}

/// Draws `keys` top-down in `area`; labels too long for it end in an ellipsis, and keys
/// beyond the area's height are counted in a last line ("+ 12 more").
pub fn legend(area: &DrawingArea<SVGBackend, plotters::coord::Shift>, keys: &[Key]) -> Option<()> {
    let (width, height) = area.dim_in_pixel();
    let max_chars = ((width as f64 - 40.0) / CHAR_W).floor().max(4.0) as usize;
    let text = font().pos(Pos::new(HPos::Left, VPos::Center));
    let fit = ((height as i32 - 22) / 22).max(1) as usize;
    let shown = if keys.len() > fit {
        fit - 1
    } else {
        keys.len()
    };
    if shown < keys.len() {
        let y = 22 + shown as i32 * 22;
        area.draw(&Text::new(
            format!("+ {} more", keys.len() - shown),
            (6, y),
            text.clone(),
        ))
        .ok()?;
    }
    for (i, k) in keys.iter().take(shown).enumerate() {
        let y = 22 + i as i32 * 22;
        let (x0, x1) = (6, 30);
        match k {
            Key::Line {
                colour,
                dashed,
                width,
                shape,
                ..
            } => {
                let style = colour.plotters().stroke_width(*width);
                if *dashed {
                    area.draw(&PathElement::new(vec![(x0, y), (x0 + 9, y)], style))
                        .ok()?;
                    area.draw(&PathElement::new(vec![(x0 + 15, y), (x1, y)], style))
                        .ok()?;
                } else {
                    area.draw(&PathElement::new(vec![(x0, y), (x1, y)], style))
                        .ok()?;
                }
                if let Some(shape) = shape {
                    shape.draw_at(area, ((x0 + x1) / 2, y), *colour, 4)?;
                }
            }
            Key::Marker { colour, shape, .. } => {
                shape.draw_at(area, ((x0 + x1) / 2, y), *colour, 6)?;
            }
            Key::Swatch { colour, .. } => {
                area.draw(&Rectangle::new(
                    [(x0, y - 7), (x1, y + 7)],
                    colour.plotters().mix(0.35).filled(),
                ))
                .ok()?;
            }
        }
        let label = k.label();
        let shown = if label.chars().count() > max_chars {
            let mut s: String = label.chars().take(max_chars - 1).collect();
            s.push('…');
            s
        } else {
            label.to_string()
        };
        area.draw(&Text::new(shown, (x1 + 8, y), text.clone()))
            .ok()?;
    }
    Some(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    Disc,
    Ring,
    Square,
    Triangle,
}

impl Shape {
    /// The `i`-th shape of a chart's marks.
    pub fn nth(i: usize) -> Shape {
        [Shape::Disc, Shape::Triangle, Shape::Square, Shape::Ring][i % 4]
    }

    /// Draws the shape of radius `r` pixels centred at plot coordinate `at`.
    pub(crate) fn draw_in(
        self,
        chart: &mut Plot,
        at: (f64, f64),
        colour: Rgb,
        r: i32,
    ) -> Option<()> {
        let c = colour.plotters();
        let one = |e| std::iter::once(EmptyElement::at(at) + e);
        match self {
            Shape::Disc => chart.draw_series(one(Circle::new((0, 0), r, c.filled()))),
            Shape::Ring => chart.draw_series(one(Circle::new((0, 0), r, c.stroke_width(2)))),
            Shape::Square => chart.draw_series(std::iter::once(
                EmptyElement::at(at) + Rectangle::new([(1 - r, 1 - r), (r - 1, r - 1)], c.filled()),
            )),
            Shape::Triangle => chart.draw_series(std::iter::once(
                EmptyElement::at(at)
                    + Polygon::new(vec![(0, -r - 1), (r, r - 1), (-r, r - 1)], c.filled()),
            )),
        }
        .ok()
        .map(|_| ())
    }

    /// Draws the shape of radius `r` pixels centred at pixel `(x, y)` of `area` (legends).
    pub(crate) fn draw_at(
        self,
        area: &DrawingArea<SVGBackend, Shift>,
        (x, y): (i32, i32),
        colour: Rgb,
        r: i32,
    ) -> Option<()> {
        let c = colour.plotters();
        match self {
            Shape::Disc => area.draw(&Circle::new((x, y), r, c.filled())),
            Shape::Ring => area.draw(&Circle::new((x, y), r, c.stroke_width(2))),
            Shape::Square => area.draw(&Rectangle::new(
                [(x + 1 - r, y + 1 - r), (x + r - 1, y + r - 1)],
                c.filled(),
            )),
            Shape::Triangle => area.draw(&Polygon::new(
                vec![(x, y - r - 1), (x + r, y + r - 1), (x - r, y + r - 1)],
                c.filled(),
            )),
        }
        .ok()
    }
}
