//! Drives side by side on the figures of Tables 2 and 3: one row per drive (measured drives in
//! their colour, published ones grey), shaded by the paper's colour rules where it has them.

use crate::chart::dots::{DotChart, DotRow, Zone};
use crate::chart::palette::{self, Rgb};
use crate::chart::{Axis, Unit};
use crate::figures::{DriveFigures, Tail};

/// The colour of each drive: measured drives by their order, published drives grey.
pub fn colours(drives: &[DriveFigures]) -> Vec<Rgb> {
    let mut n = 0;
    drives
        .iter()
        .map(|d| {
            if d.published() {
                palette::REFERENCE
            } else {
                n += 1;
                palette::series(n - 1)
            }
        })
        .collect()
}

fn chart(
    title: &str,
    x: Axis,
    marks: &[&str],
    drives: &[DriveFigures],
    names: &[String],
    values: impl Fn(&DriveFigures) -> Vec<Option<f64>>,
) -> DotChart {
    let mut c = DotChart::new(title, x, marks);
    for ((d, colour), name) in drives.iter().zip(colours(drives)).zip(names) {
        c.rows.push(DotRow {
            label: name.clone(),
            colour,
            values: values(d),
            spread: Vec::new(),
        });
    }
    c
}

fn zones(green_below: f64, yellow_below: Option<f64>) -> Vec<Zone> {
    let mut z = vec![Zone {
        from: None,
        to: Some(green_below),
        colour: palette::GREEN,
    }];
    if let Some(y) = yellow_below {
        z.push(Zone {
            from: Some(green_below),
            to: Some(y),
            colour: palette::YELLOW,
        });
    }
    z.push(Zone {
        from: Some(yellow_below.unwrap_or(green_below)),
        to: None,
        colour: palette::RED,
    });
    z
}

/// Latency under load, one chart per table row, zones from the paper's thresholds (µs).
fn latency(
    drives: &[DriveFigures],
    names: &[String],
    title: &str,
    pick: impl Fn(&Tail) -> Option<f64>,
    tail: fn(&DriveFigures) -> Tail,
    zone: Vec<Zone>,
) -> DotChart {
    let mut c = chart(
        title,
        Axis::log("latency").unit(Unit::Nanos),
        &[title],
        drives,
        names,
        |d| vec![pick(&tail(d)).map(|us| us * 1e3)],
    );
    c.zones = zone
        .into_iter()
        .map(|z| Zone {
            from: z.from.map(|v| v * 1e3),
            to: z.to.map(|v| v * 1e3),
            ..z
        })
        .collect();
    c
}

/// The comparison charts for these drives (empty for fewer than two drives).
pub fn charts(drives: &[DriveFigures], names: &[String]) -> Vec<DotChart> {
    if drives.len() < 2 {
        return Vec::new();
    }
    let mut out = vec![
        chart(
            "Random writes in steady state [k IOPS]",
            Axis::linear("k IOPS (4 KiB)"),
            &["Unif", "TwoZ", "Zipf", "spec"],
            drives,
            names,
            |d| {
                vec![
                    d.rand_write_kiops.unif,
                    d.rand_write_kiops.twoz,
                    d.rand_write_kiops.zipf,
                    d.spec.rand_write_kiops,
                ]
            },
        ),
        chart(
            "Write amplification",
            Axis::linear("WAF (measured, else implied)"),
            &["Unif", "TwoZ", "Zipf"],
            drives,
            names,
            |d| {
                let w = |m: Option<f64>, i: Option<f64>| m.or(i);
                vec![
                    w(d.wa_measured.unif, d.wa_implied.unif),
                    w(d.wa_measured.twoz, d.wa_implied.twoz),
                    w(d.wa_measured.zipf, d.wa_implied.zipf),
                ]
            },
        ),
    ];
    out.push(latency(
        drives,
        names,
        "Read latency under load, average",
        |t| t.avg,
        |d| d.read_lat_us,
        zones(100.0, None),
    ));
    out.push(latency(
        drives,
        names,
        "Read latency under load, P99.9",
        |t| t.p999,
        |d| d.read_lat_us,
        zones(500.0, Some(1000.0)),
    ));
    // Write average: < 20 µs green, else yellow (the paper has no red here).
    let mut write_avg = zones(20.0, None);
    write_avg[1].colour = palette::YELLOW;
    out.push(latency(
        drives,
        names,
        "Write latency under load, average",
        |t| t.avg,
        |d| d.write_lat_us,
        write_avg,
    ));
    out.push(latency(
        drives,
        names,
        "Write latency under load, P99.9",
        |t| t.p999,
        |d| d.write_lat_us,
        zones(20.0, Some(100.0)),
    ));
    out.retain(|c| c.has_data());
    out
}
