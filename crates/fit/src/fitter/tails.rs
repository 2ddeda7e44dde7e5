//! The tails: firmware stalls from the idle QD1 writes, the buffer against the write latency
//! under load, suspension (and, for a published row, stalls) against the P99.9 under load.

use ssdiq_schema::figures as keys;

use super::wa::{buffers_of, TIE};
use super::{num, res, How, Work};
use crate::load_curve::{measure_curve, LoadCurve, WAF_SCALE};
use crate::observed::{WRITE_IDLE_P50_US, WRITE_IDLE_P999_US};
use crate::profile_text::set;
use crate::twin::Part;
use crate::FitError;

/// A buffer of `kib` with the OP the WA stage fitted for that size: a buffer's pages hold
/// spare space, so each size has its own OP for the drive's uniform WA.
fn buffer_edits(w: &Work, kib: u64) -> Vec<(&'static str, &'static str, String)> {
    let mut edits = vec![("buffer", "buffer_kib", kib.to_string())];
    if let Some(op) = w.buffer_ops.get(&kib) {
        edits.push(("drive", "op", num(*op)));
    }
    edits
}

/// Sets the OP the WA stage fitted for a buffer of `kib`, once that buffer is chosen.
fn set_op_for(w: &mut Work, kib: u64) {
    if let Some(op) = w.buffer_ops.get(&kib).copied() {
        w.set(
            "drive",
            "op",
            num(op),
            How::Fitted,
            format!(
                "the drive's uniform WA with a buffer of {} MiB (the WA stage's OP for that size)",
                kib / 1024
            ),
            None,
        );
    }
}

/// The buffer size nearest the drive by `score` (of a candidate twin's text and its size;
/// lower is nearer) plus the WA stage's skew score of that size, times `skew_weight`. Each
/// size runs with its own OP ([`buffer_edits`]); the base's size comes first and wins a tie
/// (a later size must be nearer by more than `tie`). Sizes scored infinite are never nearest.
fn nearest_buffer<T>(
    w: &Work,
    skew_weight: f64,
    tie: f64,
    mut score: impl FnMut(&str) -> Result<(f64, T), FitError>,
) -> Result<Option<(u64, T)>, FitError> {
    let mut best: Option<(f64, u64, T)> = None;
    for kib in buffers_of(w)? {
        let (d, found) = score(&w.with(&buffer_edits(w, kib)))?;
        // With the buffer from the burst the WA stage scored that one alone: no skew weight
        // then, or the unscored sizes would look better.
        let skew = if w.buffer_from_burst {
            0.0
        } else {
            w.buffer_scores.get(&kib).copied().unwrap_or(0.0)
        };
        let d = d + skew_weight * skew;
        if d.is_finite() && best.as_ref().is_none_or(|b| d < b.0 - tie) {
            best = Some((d, kib, found));
        }
    }
    Ok(best.map(|(_, kib, found)| (kib, found)))
}

/// The buffer from the drive's write burst after idle (`ssdiq run`'s last step): the
/// candidate whose twin takes as many MiB as the drive before its writes wait for the flash.
/// That figure is the buffer plus what the dies program meanwhile, so it is matched on the
/// twin rather than read as the size. Returns whether the figure was there to fit.
pub(super) fn fit_buffer_to_burst(w: &mut Work) -> Result<bool, FitError> {
    let Some(mib) = w.obs.get(keys::WRITE_BURST_FAST_MIB) else {
        return Ok(false);
    };
    let nearest = nearest_buffer(w, 0.0, BURST_TIE, |t| {
        // A twin whose burst never filled its buffer took at least the whole burst.
        let m = w
            .twin(t, Part::Burst)?
            .get(keys::WRITE_BURST_FAST_MIB)
            .copied()
            .unwrap_or(f64::INFINITY);
        Ok(((m / mib).ln().abs(), m))
    })?;
    let Some((kib, m)) = nearest else {
        return Ok(false);
    };
    w.set(
        "buffer",
        "buffer_kib",
        kib.to_string(),
        How::Fitted,
        format!(
            "write burst after idle: {mib:.1} MiB before writes waited for the flash (twin {m:.1})"
        ),
        Some(res(m, mib)),
    );
    w.buffer_from_burst = true;
    Ok(true)
}

/// Buffers whose bursts differ by less than this (in ln) are alike: the earlier (the base's)
/// stays.
const BURST_TIE: f64 = 0.01;

/// Sets the chosen buffer, with its OP if it is not the buffer the twin had; returns whether
/// the buffer changed.
fn choose_buffer(w: &mut Work, kib: u64, source: String, residual: f64) -> Result<bool, FitError> {
    let changed = w.profile()?.buffer.buffer_kib != kib;
    if changed {
        set_op_for(w, kib);
    }
    w.set(
        "buffer",
        "buffer_kib",
        kib.to_string(),
        How::Fitted,
        source,
        Some(residual),
    );
    Ok(changed)
}

/// The buffer against the write latency under load: where the protocol's load fills the
/// drive's buffer (its average write under load above twice its idle QD1 write), the
/// buffer's size sets how long writes wait; where it does not, a twin's buffer must not fill
/// either. A published row has no idle write to tell which: its average under load still
/// rules out a buffer that fills where the drive's writes did not wait. Stalls stay as fitted
/// so far. Returns whether the buffer changed here.
pub(super) fn fit_buffer_to_load(w: &mut Work) -> Result<bool, FitError> {
    // A study of the drive is more evidence than the burst: it decides where it is given.
    if let Some(curve) = &w.obs.load_curve {
        return fit_buffer_to_curve(w, curve);
    }
    if w.buffer_from_burst {
        return Ok(false);
    }
    let obs = w.obs;
    let Some(avg) = obs.get(keys::WRITE_LAT_LOAD_AVG_US) else {
        return Ok(false);
    };
    // Every candidate runs the load: one whose buffer fills where the drive's did not (or
    // the reverse) is contradicted by the drive's average write under load. The skewed WA
    // weighs too, since a drive's own stalls also lengthen writes under load.
    let fills = obs
        .get(keys::WRITE_LAT_IDLE_US)
        .map(|idle| avg >= 2.0 * idle);
    let nearest = nearest_buffer(w, 1.0, TIE, |t| {
        let m = w
            .twin(t, Part::Load)?
            .get(keys::WRITE_LAT_LOAD_AVG_US)
            .copied()
            .unwrap_or(f64::NAN);
        Ok(((m / avg).ln().powi(2), m))
    })?;
    let Some((kib, m)) = nearest else {
        return Ok(false);
    };
    let what = match fills {
        Some(true) => "the protocol's load fills the buffer",
        Some(false) => "the protocol's load does not fill the buffer",
        None => "no idle write to say whether the load fills the buffer (a published row)",
    };
    choose_buffer(
        w,
        kib,
        format!("write latency under load, average {avg:.0} us (twin {m:.0}): {what}; and the skewed WA"),
        res(m, avg),
    )
}

/// The buffer against a latency-load study of the drive: the size whose twin's write P99
/// and WA lie nearest the drive's over every load level (and the skewed WA, as above).
/// Returns whether the buffer changed here.
fn fit_buffer_to_curve(w: &mut Work, curve: &LoadCurve) -> Result<bool, FitError> {
    // The skewed WA's score is a sum of squared log ratios: in the curve's units of WA.
    let nearest = nearest_buffer(w, WAF_SCALE.powi(-2), TIE, |t| {
        // One run of the study's levels on the candidate.
        w.runs.set(w.runs.get() + 1);
        let twin = measure_curve(t, curve)?;
        Ok((curve.distance(&twin), twin))
    })?;
    let Some((kib, twin)) = nearest else {
        return Ok(false);
    };
    let (x, ratio) = curve.worst_ratio(&twin).unwrap_or((0.0, 1.0));
    let at = |c: &LoadCurve| c.at(x).map_or(f64::NAN, |p| p.write_p99_us);
    choose_buffer(
        w,
        kib,
        format!(
            "{}: write P99 and WA at {} loads of a latency-load study, worst P99 {ratio:.2}x at {x:.0}% (twin {:.0} us, drive {:.0} us); and the skewed WA",
            curve.source,
            curve.points.len(),
            at(&twin),
            at(curve)
        ),
        res(at(&twin), at(curve)),
    )
}

/// Firmware stalls, from the idle QD1 write: alone on the drive, a write waits only for
/// itself, so a P99.9 far above the median is a stall, not a queue or a full buffer. Stalls
/// hit 0.2% of writes (the library's rate; one P99.9 cannot tell rate from length), each
/// waiting half to all of `write_stall_us`. Returns whether the idle writes' percentiles
/// were there to fit to.
pub(super) fn fit_stalls(w: &mut Work) -> Result<bool, FitError> {
    let (Some(p50), Some(p999)) = (w.obs.get(WRITE_IDLE_P50_US), w.obs.get(WRITE_IDLE_P999_US))
    else {
        return Ok(false);
    };
    if p999 <= 3.0 * p50 {
        w.set(
            "host",
            "write_stall_rate",
            "0".into(),
            How::Fitted,
            format!("idle QD1 write P99.9 {p999:.0} us, median {p50:.0} us: no stalls"),
            None,
        );
        return Ok(true);
    }
    fit_stall_length(
        w,
        p999,
        |w, t| {
            Ok(w.twin(t, Part::Reads)?
                .get(WRITE_IDLE_P999_US)
                .copied()
                .unwrap_or(f64::NAN))
        },
        |m| format!("idle QD1 write P99.9 {p999:.0} us (twin {m:.0}), median {p50:.0} us"),
    )?;
    Ok(true)
}

/// Stalls at the library's rate (0.2% of writes, each waiting half to all of a stall, so a
/// P99.9 falls among the stalled writes at about 3/4 of one), their length moved until the
/// twin's P99.9 (`p999_of` the twin's text) is within 3% of `target`; both keys recorded with
/// `why` of the twin's last P99.9.
fn fit_stall_length(
    w: &mut Work,
    target: f64,
    p999_of: impl Fn(&Work, &str) -> Result<f64, FitError>,
    why: impl Fn(f64) -> String,
) -> Result<(), FitError> {
    let mut us = target / 0.75;
    let mut m = f64::NAN;
    for _ in 0..4 {
        let t = w.with(&[
            ("host", "write_stall_rate", "0.002".into()),
            ("host", "write_stall_us", num(us)),
        ]);
        m = p999_of(w, &t)?;
        w.text = t;
        if !m.is_finite() || (m / target - 1.0).abs() < 0.03 {
            break;
        }
        us = (us * target / m).clamp(1.0, 1e6);
    }
    let stall_us = w.profile()?.host.write_stall_us;
    let why = why(m);
    let r = Some(res(m, target));
    w.set(
        "host",
        "write_stall_rate",
        "0.002".into(),
        How::Fitted,
        why.clone(),
        r,
    );
    w.set("host", "write_stall_us", num(stall_us), How::Fitted, why, r);
    Ok(())
}

/// `stalls_fitted`: stalls were set from the idle writes; the tail under load then only
/// decides suspension.
pub(super) fn fit_tails(w: &mut Work, stalls_fitted: bool) -> Result<(), FitError> {
    let obs = w.obs;
    let rp = obs.get(keys::READ_LAT_LOAD_P999_US);
    let wp = obs.get(keys::WRITE_LAT_LOAD_P999_US);
    if rp.is_none() && wp.is_none() {
        return Ok(());
    }
    let mut twin = w.measure(Part::Load)?;
    if let (Some(o), Some(m)) = (rp, twin.get(keys::READ_LAT_LOAD_P999_US).copied()) {
        // A read that waits for a whole program or erase shows as a millisecond tail: the
        // paper's red class (above 1 ms) is what no suspension gives.
        let suspend = w.profile()?.nand.suspend;
        if (o > 1000.0) == suspend && (m > 1000.0) != (o > 1000.0) {
            let t = set(
                &w.text,
                "nand",
                "suspend",
                &(!suspend).to_string(),
                "candidate",
            );
            let other = w.twin(&t, Part::Load)?;
            let m2 = other
                .get(keys::READ_LAT_LOAD_P999_US)
                .copied()
                .unwrap_or(f64::NAN);
            if (m2 / o).ln().abs() < (m / o).ln().abs() {
                w.text = t;
                twin = other;
            }
        }
        let m = twin
            .get(keys::READ_LAT_LOAD_P999_US)
            .copied()
            .unwrap_or(f64::NAN);
        let s = w.profile()?.nand.suspend;
        w.set(
            "nand",
            "suspend",
            s.to_string(),
            How::Fitted,
            format!("read P99.9 under load {o:.0} us (twin {m:.0})"),
            Some(res(m, o)),
        );
    }
    if let Some(o) = wp.filter(|_| !stalls_fitted) {
        // What the twin's buffer and dies give without stalls: a tail beyond twice that is
        // the drive's own (firmware) stalls; a tail the buffer explains needs none.
        let calm = w.with(&[("host", "write_stall_rate", "0".into())]);
        let without = write_p999(w, &calm)?;
        if o > 2.0 * without {
            fit_stall_length(w, o, write_p999, |m| {
                format!("write P99.9 under load {o:.0} us (twin {m:.0})")
            })?;
        } else {
            w.text = calm;
            w.set(
                "host",
                "write_stall_rate",
                "0".into(),
                How::Fitted,
                format!("write P99.9 under load {o:.0} us (twin {without:.0}): no stalls"),
                Some(res(without, o)),
            );
        }
    }
    Ok(())
}

/// The write P99.9 under load of twin `text` (NaN if it measured none).
fn write_p999(w: &Work, text: &str) -> Result<f64, FitError> {
    Ok(w.twin(text, Part::Load)?
        .get(keys::WRITE_LAT_LOAD_P999_US)
        .copied()
        .unwrap_or(f64::NAN))
}
