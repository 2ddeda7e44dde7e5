//! Each prediction's range over what the twin does not know: the knobs of
//! [`crate::sensitivity::range_knobs`] that the twin's file does not mark as fitted or taken
//! from an input, each set to either end of its plausible range, on a copy of the twin.
//!
//! Each end is conditioned on what the run measured: its OP is moved until its steady uniform
//! WA meets the copy's own (as the fit's WA stage would have moved it), so a range holds only
//! drives the run could not tell apart from the twin.
//!
//! Invariants: a range always holds the twin's own value; it is measured on a copy of the twin
//! at [`RANGE_CAPACITY`] (or the twin's own capacity, if smaller) and applied to the twin's
//! predictions as ratios to that copy's own, so the range costs the same on a 16 GiB twin as on
//! a 1 GiB one; a key names a curve's range only if it moves that curve by more than
//! [`NAMED_SHARE`].

use ssdiq_emu::Profile;
use ssdiq_schema::Prediction;

use crate::predict::{predictions, steady_writes};
use crate::profile_text::{comment, set, size_literal};
use crate::sensitivity::{predictions_at_end, range_knobs, Knob};
use crate::FitError;

/// The copy's capacity: large enough for every library profile's twin (docs/fit.md), small
/// enough for a range in minutes.
pub const RANGE_CAPACITY: u64 = 1 << 30;
/// A key moves a curve when one of its ends moves a point by more than this share.
pub const NAMED_SHARE: f64 = 0.01;

/// Whether the twin's file says every key `knob` sets was fitted or came from an input.
fn identified(text: &str, knob: &Knob) -> bool {
    let known = |section: &str, key: &str| {
        comment(text, section, key)
            .is_some_and(|c| c.starts_with("fitted to ") || c.starts_with("from "))
    };
    match knob.settled_by {
        Some((section, key)) => known(section, key),
        None => knob
            .ends
            .iter()
            .flat_map(|e| e.iter())
            .all(|s| known(s.section, s.key)),
    }
}

/// The range's knobs the twin `text` does not identify.
pub fn unidentified(text: &str) -> Vec<&'static Knob> {
    range_knobs().filter(|k| !identified(text, k)).collect()
}

/// The twin at the range's capacity.
fn copy_for_range(text: &str) -> Result<String, FitError> {
    let p = Profile::parse(text, &[]).map_err(|e| FitError::Profile(e.to_string()))?;
    let own = p
        .capacity_bytes()
        .map_err(|e| FitError::Profile(e.to_string()))?;
    if own <= RANGE_CAPACITY {
        return Ok(text.to_string());
    }
    let copy = set(
        text,
        "drive",
        "capacity",
        &format!("\"{}\"", size_literal(RANGE_CAPACITY)),
        "the range's copy",
    );
    // A twin whose superblocks do not fit the copy keeps its own capacity.
    match Profile::parse_checked(&copy, &[]) {
        Ok(_) => Ok(copy),
        Err(_) => Ok(text.to_string()),
    }
}

/// Steady uniform WA within this share of the target ends the conditioning.
const CONDITION_SHARE: f64 = 0.02;
/// OP steps of the conditioning at most.
const CONDITION_STEPS: usize = 5;

/// The steady uniform WA of profile `text` (the predictions' measurement).
pub(crate) fn uniform_waf(text: &str, seed: u64) -> Result<f64, FitError> {
    steady_writes(text, "uniform", seed)?
        .waf
        .filter(|w| w.is_finite() && *w > 0.0)
        .ok_or_else(|| FitError::Twin("the twin measured no uniform WA".into()))
}

/// `text` with its OP moved until its steady uniform WA is within [`CONDITION_SHARE`] of
/// `target` (WA taken as inversely proportional to OP, as greedy's is near these OPs); the
/// nearest OP tried where none is.
pub fn conditioned(text: &str, target: f64, seed: u64) -> Result<String, FitError> {
    let op = |t: &str| -> Result<f64, FitError> {
        Ok(Profile::parse(t, &[])
            .map_err(|e| FitError::Profile(e.to_string()))?
            .drive
            .op)
    };
    let mut best = (f64::INFINITY, text.to_string());
    let mut t = text.to_string();
    for _ in 0..CONDITION_STEPS {
        let w = uniform_waf(&t, seed)?;
        let miss = (w / target).ln().abs();
        if miss < best.0 {
            best = (miss, t.clone());
        }
        if miss <= CONDITION_SHARE {
            break;
        }
        let next = (op(&t)? * w / target).clamp(0.02, 0.9);
        t = set(
            &t,
            "drive",
            "op",
            &format!("{next:.4}"),
            "the range: conditioned on uniform WA",
        );
    }
    Ok(best.1)
}

/// Sets each prediction's range (and the keys it rests on) in `preds`, the predictions of
/// twin `text`. `progress` hears each variant.
pub fn with_ranges(
    text: &str,
    preds: &mut [Prediction],
    seed: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<(), FitError> {
    let knobs = unidentified(text);
    let copy = copy_for_range(text)?;
    let own = if copy == text {
        preds.to_vec()
    } else {
        progress("the copy at its own values");
        predictions(&copy, seed, &mut |_| {})?
    };
    for p in preds.iter_mut() {
        p.range = p.points.iter().map(|&(_, y)| (y, y)).collect();
        p.range_keys.clear();
    }
    let target = uniform_waf(&copy, seed)?;
    for k in knobs {
        for end in 0..k.labels.len() {
            progress(&format!("{} = {}", k.name, k.label(end, &copy)));
            let other = predictions_at_end(&copy, k, end, Some(target), seed)?;
            widen(preds, &own, &other, k.name);
        }
    }
    Ok(())
}

/// Widens each point's range of `preds` by the ratio of `other` to `own` at that point, and
/// names `key` on the curves it moves by more than [`NAMED_SHARE`].
fn widen(preds: &mut [Prediction], own: &[Prediction], other: &[Prediction], key: &str) {
    for ((p, o), v) in preds.iter_mut().zip(own).zip(other) {
        let mut moved = false;
        for (((_, y), r), ((_, y0), (_, y1))) in p
            .points
            .iter()
            .zip(p.range.iter_mut())
            .zip(o.points.iter().zip(&v.points))
        {
            let ratio = y1 / y0;
            if !ratio.is_finite() || !y.is_finite() {
                continue;
            }
            let at = y * ratio;
            r.0 = r.0.min(at);
            r.1 = r.1.max(at);
            moved |= (ratio - 1.0).abs() > NAMED_SHARE;
        }
        if moved && !p.range_keys.iter().any(|k| k == key) {
            p.range_keys.push(key.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(pts: &[(f64, f64)]) -> Prediction {
        Prediction {
            study: "skew".into(),
            title: String::new(),
            x_axis: String::new(),
            y_axis: String::new(),
            points: pts.to_vec(),
            range: pts.iter().map(|&(_, y)| (y, y)).collect(),
            range_keys: Vec::new(),
        }
    }

    #[test]
    fn a_range_holds_the_twin_and_scales_by_the_copys_ratio() {
        let mut twin = [curve(&[(0.6, 4.0), (1.2, 8.0)])];
        let own = [curve(&[(0.6, 2.0), (1.2, 4.0)])];
        widen(&mut twin, &own, &[curve(&[(0.6, 2.01), (1.2, 1.0)])], "a");
        widen(&mut twin, &own, &[curve(&[(0.6, 2.004), (1.2, 5.0)])], "b");
        assert_eq!(twin[0].range, vec![(4.0, 4.02), (2.0, 10.0)]);
        assert_eq!(twin[0].range_keys, vec!["a", "b"]);
        // A key that moves nothing beyond 1% is not named.
        widen(&mut twin, &own, &[curve(&[(0.6, 2.001), (1.2, 4.02)])], "c");
        assert_eq!(twin[0].range_keys, vec!["a", "b"]);
    }

    #[test]
    fn a_knob_the_fit_set_from_the_drive_is_identified() {
        let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
        let all = unidentified(base).len();
        assert_eq!(all, range_knobs().count());
        let k = range_knobs()
            .find(|k| k.name.starts_with("nand.units_per_block"))
            .expect("the superblock is a range knob");
        let t = set(
            base,
            "nand",
            "units_per_block",
            "96",
            "from r/run.json: the drive's GC unit",
        );
        assert!(identified(&t, k));
        assert_eq!(unidentified(&t).len(), all - 1);
        let t = set(base, "nand", "units_per_block", "96", "emu:pm9a3's");
        assert!(!identified(&t, k));
    }
}
