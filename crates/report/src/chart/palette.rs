//! Colours of a report page. A drive keeps one colour on the whole page (every chart, the
//! table header); reference drives (published figures) are grey so measured drives stand out.
//! Drive colours avoid the green/yellow/red of the paper's verdict colours.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`, for HTML.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    pub(crate) fn plotters(self) -> plotters::style::RGBColor {
        plotters::style::RGBColor(self.0, self.1, self.2)
    }
}

/// Colours of measured drives (and of runs of a sweep), in order.
const SERIES: [Rgb; 8] = [
    Rgb(31, 119, 180), // blue
    Rgb(230, 117, 10), // orange
    Rgb(123, 63, 176), // purple
    Rgb(23, 162, 184), // teal
    Rgb(214, 55, 154), // magenta
    Rgb(140, 86, 75),  // brown
    Rgb(44, 62, 140),  // navy
    Rgb(138, 138, 0),  // olive
];

/// The colour of the `i`-th drive or run; repeats after eight.
pub fn series(i: usize) -> Rgb {
    SERIES[i % SERIES.len()]
}

/// Published reference drives.
pub const REFERENCE: Rgb = Rgb(150, 150, 150);

/// The paper's verdict colours, as table cells and as chart zones.
pub const GREEN: Rgb = Rgb(183, 225, 176);
pub const YELLOW: Rgb = Rgb(245, 230, 163);
pub const RED: Rgb = Rgb(240, 170, 165);

/// The steady-state window.
pub const STEADY: Rgb = Rgb(44, 160, 44);

pub const INK: Rgb = Rgb(40, 40, 40);
pub const GRID: Rgb = Rgb(225, 225, 225);
pub const FRAME: Rgb = Rgb(150, 150, 150);
