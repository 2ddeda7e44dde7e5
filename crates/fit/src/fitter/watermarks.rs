//! The GC watermarks stage: how many free superblocks the drive keeps before its GC starts in
//! the background (`low_watermark`) and before host writes wait for it (`critical_watermark`),
//! from the write latency under load.
//!
//! Invariants and why:
//! - The uniform WA does not tell the watermarks from OP: superblocks the watermarks hold
//!   free are spare space GC cannot use, so a twin with lower watermarks meets the drive's
//!   uniform WA at a lower OP (seed 62's hidden drive 6: watermarks 8/4 at OP 0.249, its twin
//!   3/2 at 0.190, both uniform WA 3.96). Each candidate therefore runs with its own OP, fitted
//!   to the uniform WA as the WA stage fits it.
//! - What tells them apart is how often host writes wait for GC: with a critical watermark
//!   near the last free superblock, a burst of GC work blocks the host, and the write latency
//!   under load shows it (the same drive: 94 us on average, its twin 2841 us; the twin with
//!   the drive's watermarks and OP 103 us).
//! - The stage runs only where the twin's average write under load is more than [`MISS`] off
//!   the drive's and the load did not outrun the drive (its latencies are then a queue's). It
//!   changes the watermarks only where a candidate meets the drive's average and P99.9 under
//!   load better by [`GAIN`], and marks them fitted only where no other candidate comes within
//!   that factor; otherwise the predictions' range keeps spanning them.

use ssdiq_schema::figures as keys;

use super::wa::{buildable, op_for};
use super::{figure, num, res, How, Work};
use crate::twin::Part;
use crate::FitError;

/// Candidate (low, critical) watermarks: the range's ends (2/1, 8/4), the library's 3/2, and
/// one between.
const CANDIDATES: [(u32, u32); 4] = [(2, 1), (3, 2), (5, 3), (8, 4)];

/// The twin's average write under load must be this factor off the drive's for the stage to
/// run.
const MISS: f64 = 1.5;

/// A candidate replaces the twin's watermarks only where its score is below this share of
/// theirs, and is marked fitted only where every other candidate's is above its own divided
/// by this.
const GAIN: f64 = 0.5;

/// Squared log residuals of the average and the P99.9 write under load.
fn score(avg: f64, p999: f64, drive_avg: f64, drive_p999: f64) -> f64 {
    let mut s = (avg / drive_avg).ln().powi(2);
    if drive_p999.is_finite() && p999.is_finite() {
        s += (p999 / drive_p999).ln().powi(2);
    }
    s
}

/// Returns whether the watermarks (and with them OP) changed.
pub(super) fn fit_watermarks(w: &mut Work) -> Result<bool, FitError> {
    let obs = w.obs;
    let (Some(drive_avg), Some(target)) = (obs.get(keys::WRITE_LAT_LOAD_AVG_US), obs.wa("uniform"))
    else {
        return Ok(false);
    };
    if obs.load_outran.is_some() {
        return Ok(false);
    }
    let drive_p999 = obs.get(keys::WRITE_LAT_LOAD_P999_US).unwrap_or(f64::NAN);
    let p = w.profile()?;
    let own = (p.gc.low_watermark, p.gc.critical_watermark);
    let now = w.twin(&w.text, Part::Load)?;
    let now_avg = figure(&now, keys::WRITE_LAT_LOAD_AVG_US);
    let off = (now_avg / drive_avg).ln().abs();
    if off.is_nan() || off <= MISS.ln() {
        return Ok(false);
    }
    let now_p999 = figure(&now, keys::WRITE_LAT_LOAD_P999_US);
    let own_score = score(now_avg, now_p999, drive_avg, drive_p999);
    let mut tried = vec![(own, own_score, p.drive.op, now_avg)];
    for (low, critical) in CANDIDATES.into_iter().filter(|c| *c != own) {
        let edits = vec![
            ("gc", "low_watermark", low.to_string()),
            ("gc", "critical_watermark", critical.to_string()),
        ];
        // A candidate that leaves GC no room at any OP builds no drive: not a candidate.
        let Some((op, _)) = buildable(op_for(w, &edits, target, Some(p.drive.op)))? else {
            continue;
        };
        let mut with_op = edits.clone();
        with_op.push(("drive", "op", num(op)));
        let f = w.twin(&w.with(&with_op), Part::Load)?;
        let avg = figure(&f, keys::WRITE_LAT_LOAD_AVG_US);
        let s = score(
            avg,
            figure(&f, keys::WRITE_LAT_LOAD_P999_US),
            drive_avg,
            drive_p999,
        );
        if s.is_finite() {
            tried.push(((low, critical), s, op, avg));
        }
    }
    let best = tried
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .copied()
        .expect("the twin's own is tried");
    let listing = tried
        .iter()
        .map(|((l, c), s, _, a)| format!("{l}/{c}: {a:.0} us (score {s:.2e})"))
        .collect::<Vec<_>>()
        .join(", ");
    if best.0 == own || best.1 >= GAIN * own_score {
        return Ok(false);
    }
    let told_apart = tried
        .iter()
        .filter(|t| t.0 != best.0)
        .all(|t| t.1 * GAIN > best.1);
    let ((low, critical), _, op, avg) = best;
    let (how, lead) = if told_apart {
        (How::Fitted, String::new())
    } else {
        (
            How::Kept,
            "the fit's best guess, another came within a factor two: ".to_string(),
        )
    };
    let why = format!(
        "{lead}the average write under load, {drive_avg:.0} us (twin {avg:.0}; each candidate with OP fitted to the uniform WA: {listing})"
    );
    w.set(
        "gc",
        "low_watermark",
        low.to_string(),
        how,
        why.clone(),
        Some(res(avg, drive_avg)),
    );
    w.set(
        "gc",
        "critical_watermark",
        critical.to_string(),
        how,
        why,
        Some(res(avg, drive_avg)),
    );
    // Each buffer's OP from the WA stage moves with the watermarks as the twin's did (the
    // later buffer stages run each size at its own OP).
    let delta = op - p.drive.op;
    for v in w.buffer_ops.values_mut() {
        *v += delta;
    }
    w.set(
        "drive",
        "op",
        num(op),
        How::Fitted,
        format!("uniform WA {target:.2}, with GC watermarks {low}/{critical}"),
        None,
    );
    Ok(true)
}
