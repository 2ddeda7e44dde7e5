//! The chart vocabulary of every ssdiq page (`ssdiq run`, `ssdiq report`, `ssdiq sim --html`,
//! the studies): line charts on linear, log or nines axes ([`LineChart`]), dot charts
//! comparing drives on one figure ([`DotChart`]), one colour per drive or run
//! ([`palette::series`]), legends beside the plot, a sparse grid at round ticks.
//!
//! Charts are data (serializable, pinned by golden tests) rendered to SVG with plotters.

pub mod axis;
pub mod dots;
mod frame;
pub mod line;
pub mod palette;

pub use axis::{Axis, Unit};
pub use dots::{DotChart, DotRow};
pub use frame::Shape;
pub use line::{Area, Band, LineChart, Series, Stroke};
pub use palette::Rgb;

/// The texts of an SVG document, trimmed (tests look for labels).
#[cfg(test)]
pub(crate) fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            Some(
                t.split_once('>')?
                    .1
                    .split_once("</text>")?
                    .0
                    .trim()
                    .to_string(),
            )
        })
        .collect()
}
