//! The charts of an SSD-iq report, as data: pure functions from results (and published
//! figures) to `crate::chart` specifications. Golden tests pin their output; the page
//! renders them.
//!
//! Invariants: a measured drive has one colour in every chart (its index among the measured
//! drives); published drives are grey; a chart without data is left out, never drawn empty.

pub mod compare;
pub mod device;
pub mod latency;
pub mod steps;

use crate::chart::palette;
use crate::chart::{LineChart, Rgb, Shape, Stroke};
use crate::model::RunResult;

/// A measured drive as the charts show it.
#[derive(Clone, Debug)]
pub struct Drive<'a> {
    pub run: &'a RunResult,
    /// Unique on the page.
    pub name: String,
    pub colour: Rgb,
}

/// The measured drives of a page, named uniquely and coloured in order.
pub fn drives<'a>(runs: &[&'a RunResult]) -> Vec<Drive<'a>> {
    let names = unique_names(runs.iter().map(|r| {
        r.target
            .model
            .clone()
            .unwrap_or_else(|| r.target.name.clone())
    }));
    runs.iter()
        .zip(names)
        .enumerate()
        .map(|(i, (run, name))| Drive {
            run,
            name,
            colour: palette::series(i),
        })
        .collect()
}

/// Gives every line of a chart comparing several drives its drive's mark (the drive's index
/// picks the shape), so a drive whose line lies under another's still shows.
pub fn mark_drives(chart: &mut LineChart, drives: &[Drive]) {
    if drives.len() < 2 {
        return;
    }
    // Thin lines (per-second beside per-round, a mean beside its tail) sit beside a thick
    // line of the same drive that carries the mark.
    for s in chart.series.iter_mut().filter(|s| s.stroke != Stroke::Thin) {
        if let Some(i) = drives.iter().position(|d| d.colour == s.colour) {
            s.shape = Some(Shape::nth(i));
        }
    }
}

/// Names made unique by numbering repeats: `a`, `a (2)`, `a (3)`.
pub fn unique_names(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let names: Vec<String> = names.into_iter().collect();
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let before = names[..i].iter().filter(|m| *m == n).count();
            let total = names.iter().filter(|m| *m == n).count();
            if total > 1 && before > 0 {
                format!("{n} ({})", before + 1)
            } else {
                n.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_names_are_numbered() {
        let n = unique_names(["a", "b", "a", "a"].map(String::from));
        assert_eq!(n, ["a", "b", "a (2)", "a (3)"]);
    }
}
