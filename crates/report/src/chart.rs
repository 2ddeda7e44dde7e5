//! SVG charts drawn with plotters into strings, for the self-contained HTML report.

use plotters::prelude::*;

/// One line of a chart.
pub struct Line<'a> {
    pub label: &'a str,
    pub points: Vec<(f64, f64)>,
}

pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub lines: Vec<Line<'a>>,
    /// A shaded x-range (the steady-state window).
    pub band: Option<(f64, f64)>,
    pub log_x: bool,
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(23, 190, 207),
];

fn bounds(lines: &[Line]) -> Option<(f64, f64, f64, f64)> {
    let pts = lines
        .iter()
        .flat_map(|l| l.points.iter())
        .filter(|p| p.0.is_finite() && p.1.is_finite());
    let mut b: Option<(f64, f64, f64, f64)> = None;
    for &(x, y) in pts {
        b = Some(match b {
            None => (x, x, y, y),
            Some((x0, x1, y0, y1)) => (x0.min(x), x1.max(x), y0.min(y), y1.max(y)),
        });
    }
    b
}

/// Renders the chart as an SVG document string; `None` when there is nothing to draw.
pub fn line_chart(c: &LineChart, width: u32, height: u32) -> Option<String> {
    let (mut x0, mut x1, _, mut y1) = bounds(&c.lines)?;
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let y0 = 0.0;
    if y1 <= y0 {
        y1 = 1.0;
    }
    y1 *= 1.08;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(c.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56);
        if c.log_x {
            x0 = x0.max(1e-9);
            let mut chart = builder
                .build_cartesian_2d((x0..x1).log_scale(), y0..y1)
                .ok()?;
            chart
                .configure_mesh()
                .x_desc(c.x_label)
                .y_desc(c.y_label)
                .draw()
                .ok()?;
            draw_lines(&mut chart, c)?;
        } else {
            let mut chart = builder.build_cartesian_2d(x0..x1, y0..y1).ok()?;
            chart
                .configure_mesh()
                .x_desc(c.x_label)
                .y_desc(c.y_label)
                .draw()
                .ok()?;
            if let Some((a, b)) = c.band {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(a, y0), (b, y1)],
                        RGBColor(44, 160, 44).mix(0.15).filled(),
                    )))
                    .ok()?
                    .label("steady-state window")
                    .legend(|(x, y)| {
                        Rectangle::new(
                            [(x, y - 5), (x + 16, y + 5)],
                            RGBColor(44, 160, 44).mix(0.3).filled(),
                        )
                    });
            }
            draw_lines(&mut chart, c)?;
        }
        root.present().ok()?;
    }
    Some(svg)
}

fn draw_lines<'a, DB: DrawingBackend + 'a, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    c: &LineChart,
) -> Option<()>
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64>,
{
    for (i, l) in c.lines.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(
                l.points.iter().cloned(),
                colour.stroke_width(2),
            ))
            .ok()?
            .label(l.label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .ok()?;
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_lines_band_and_labels() {
        let c = LineChart {
            title: "Throughput",
            x_label: "time [s]",
            y_label: "MB/s",
            lines: vec![Line {
                label: "write",
                points: (0..50).map(|i| (i as f64, 100.0 + i as f64)).collect(),
            }],
            band: Some((20.0, 30.0)),
            log_x: false,
        };
        let svg = line_chart(&c, 640, 360).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("Throughput"));
        assert!(svg.contains("steady-state window"));
        assert!(svg.contains("<polyline") || svg.contains("<path"));
        let empty = LineChart { lines: vec![], ..c };
        assert!(line_chart(&empty, 640, 360).is_none());
    }
}
