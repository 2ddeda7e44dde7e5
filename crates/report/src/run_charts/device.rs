//! The device log over a run (`device_log`: SMART / OCP on NVMe drives, the emulated drive's
//! own counters): write amplification over time, free blocks, temperature, erase counts, one
//! colour per drive. A chart whose field no drive reports is left out.

use crate::chart::line::Stroke;
use crate::chart::{Axis, LineChart, Series};
use crate::model::DeviceLogPoint;

use super::Drive;

fn points(d: &Drive, f: fn(&DeviceLogPoint) -> Option<f64>) -> Vec<[f64; 2]> {
    d.run
        .device_log
        .iter()
        .filter_map(|p| Some([p.t_s, f(p)?]))
        .collect()
}

fn label(drives: &[Drive], d: &Drive, what: &str) -> String {
    if drives.len() > 1 {
        format!("{} {what}", d.name)
    } else {
        what.to_string()
    }
}

/// WAF per sample (iob's: since the media counter last moved; thin) and since each pass's
/// reset (solid).
pub fn waf(drives: &[Drive]) -> LineChart {
    let mut c = LineChart::new(
        "Write amplification over the run",
        Axis::linear("run time [s]"),
        Axis::linear("WAF"),
    );
    for d in drives {
        // A sample right after a reset divides a little GC work by almost no host writes.
        let per = points(d, |p| p.waf.filter(|w| *w < 50.0));
        if per.len() >= 2 {
            c.series.push(
                Series::new(label(drives, d, "per sample"), d.colour, per).stroke(Stroke::Thin),
            );
        }
        let since = points(d, |p| p.waf_since_reset);
        if since.len() >= 2 {
            c.series.push(Series::new(
                label(drives, d, "since reset"),
                d.colour,
                since,
            ));
        }
    }
    c
}

/// One field of the log over the run, one line per drive.
pub fn field(
    drives: &[Drive],
    title: &str,
    unit: &str,
    f: fn(&DeviceLogPoint) -> Option<f64>,
) -> LineChart {
    let mut c = LineChart::new(title, Axis::linear("run time [s]"), Axis::linear(unit));
    for d in drives {
        let pts = points(d, f);
        if pts.len() >= 2 {
            c.series.push(Series::new(&d.name, d.colour, pts));
        }
    }
    c
}

/// The log's charts with their captions, in page order.
pub fn charts(drives: &[Drive]) -> Vec<(LineChart, &'static str)> {
    vec![
        (
            waf(drives),
            "Media / host writes from the drive's own counters, sampled every second (finer on short steps). Thin: since the media counter last moved; solid: since the pass's reset (the sequential init pulls it towards 1).",
        ),
        (
            {
                let mut c = field(drives, "Free blocks", "%", |p| p.free_blocks_pct);
                c.y = c.y.at_most(100.0);
                c
            },
            "Free blocks as the drive reports them (OCP C0h; the emulated drive's free superblocks). Garbage collection keeps it near its low watermark under random writes.",
        ),
        (
            field(drives, "Temperature", "°C", |p| p.temperature_c),
            "Composite temperature (SMART).",
        ),
        (
            field(drives, "Thermal throttling", "status", |p| {
                p.throttling.map(f64::from)
            }),
            "OCP thermal throttling status: 0 is not throttling.",
        ),
        (
            field(drives, "Erase count", "erases per block", |p| {
                p.erase_count_max
                    .map(|x| x as f64)
                    .or(p.erase_count_avg)
            }),
            "Maximum erase count of a user-data block (OCP), or the mean per block (the emulated drive).",
        ),
    ]
}
