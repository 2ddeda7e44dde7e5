//! The buffer and program time together, by the sequential init's throughput: a write buffer
//! smaller than one program unit on every die (the stripe) bounds how many dies program at
//! once.
//!
//! Invariants and why:
//! - Below the stripe, the init (sequential writes on the fresh drive) runs at about the
//!   buffer over the program time, not at the dies' bandwidth. A larger buffer with a slower
//!   program then meets the random-write rate and the write burst as well as the drive's own
//!   pair: seed 63's hidden drive 3 (128 dies of 192 KiB units, a 24 MiB stripe) has a 16 MiB
//!   buffer and programs in 2555 us; its twin took 32 MiB from the burst and 3086 us from the
//!   rate, met both within 2%, but ran the init 26% fast and averaged 42% short on the writes
//!   under load. The init tells the pairs apart.
//! - The stage runs only where the twin's init misses the drive's by more than
//!   [`INIT_MISS`], and tries only sizes that, with the twin's own, put a stripe between them
//!   or below one (elsewhere the buffer does not bound the dies, and the init cannot tell).
//! - Each size gets OP fitted to the uniform WA and program time to the uniform random-write
//!   rate (the stages' own fits), and is scored by the init's throughput and the write burst
//!   (squared log ratios); it replaces the twin's where that score is under [`GAIN`] of the
//!   twin's own. So the rate stays met, and a size the burst rules out cannot win.
//! - Not where an SLC cache sets the init (its own program time does), nor without the init's
//!   throughput or a write burst that measures a buffer in the run: the init alone is slowed
//!   by other things too (a cache that folds nothing by the end of the pause, stalls).

use ssdiq_schema::figures as keys;

use super::tails::BURST_FULL_AT_ONCE_MIB;
use super::wa::{buffers_of, buildable, op_for, set_op};
use super::{figure, path, res, How, Work};
use crate::twin::Part;
use crate::FitError;

/// The init's miss (as a ratio) above which the buffer and program time are fitted again.
const INIT_MISS: f64 = 0.10;
/// A size must bring the score under this share of the twin's own.
const GAIN: f64 = 0.5;

/// KiB of one program unit on every die: what the dies program at once.
fn stripe_kib(p: &ssdiq_emu::Profile) -> u64 {
    let n = &p.nand;
    u64::from(n.channels * n.dies_per_channel * n.bits_per_cell * n.planes * n.page_kib)
}

/// The twin `text`'s init throughput (MB/s).
fn init_of(w: &Work, text: &str) -> Result<f64, FitError> {
    Ok(figure(&w.twin(text, Part::Init)?, keys::INIT_MB_S))
}

/// The squared log misses of the twin `text`'s init throughput `m` (MB/s) and write burst of
/// the drive's `init` and burst `mib`.
fn score(w: &Work, text: &str, m: f64, init: f64, mib: f64) -> Result<f64, FitError> {
    let b = w
        .twin(text, Part::Burst)?
        .get(keys::WRITE_BURST_FAST_MIB)
        .copied()
        .unwrap_or(f64::INFINITY);
    Ok((m / init).ln().powi(2) + (b / mib).ln().powi(2))
}

/// Returns whether the buffer moved.
pub(super) fn fit_buffer_to_stripe(w: &mut Work) -> Result<bool, FitError> {
    let (Some(init), Some(uniform_wa)) = (w.obs.get(keys::INIT_MB_S), w.obs.wa("uniform")) else {
        return Ok(false);
    };
    let p = w.profile()?;
    if p.slc.slc_share > 0.0 {
        return Ok(false);
    }
    // The init alone does not tell the buffer: an SLC cache that folds nothing by the end of
    // the pause, or stalls, slow it too (seed 63's hidden drive 5: a 64 MiB buffer, a 10%
    // cache without idle-time GC and 1.5 ms stalls; without the burst, which waited at once,
    // the stage took 8 MiB). A burst whose writes waited at once says nothing of the size
    // (the burst stage's rule).
    let Some(burst) = w
        .obs
        .get(keys::WRITE_BURST_FAST_MIB)
        .filter(|mib| *mib >= BURST_FULL_AT_ONCE_MIB)
    else {
        return Ok(false);
    };
    // The init first: where it meets the drive's, the stage costs that one run.
    let own_init = init_of(w, &w.text)?;
    if !own_init.is_finite() || (own_init / init).ln().abs() <= INIT_MISS.ln_1p() {
        return Ok(false);
    }
    let own_score = score(w, &w.text, own_init, init, burst)?;
    let (own_kib, stripe) = (p.buffer.buffer_kib, stripe_kib(&p));
    let (text, params) = (w.text.clone(), w.params.clone());
    let mut best: Option<(f64, u64, f64, String, _)> = None;
    for kib in buffers_of(w)? {
        if kib == own_kib || kib.min(own_kib) >= stripe {
            continue;
        }
        let edits = [("buffer", "buffer_kib", kib.to_string())];
        let start = Some(p.drive.op);
        let Some((op, wa)) = buildable(op_for(w, &edits, uniform_wa, start))? else {
            continue;
        };
        w.text = w.with(&edits);
        set_op(
            w,
            op,
            uniform_wa,
            wa,
            &format!("with a buffer of {} MiB", kib / 1024),
        );
        path::fit_program(w)?;
        let m = init_of(w, &w.text)?;
        let s = score(w, &w.text, m, init, burst)?;
        if s.is_finite() && best.as_ref().is_none_or(|b| s < b.0) {
            best = Some((s, kib, m, w.text.clone(), w.params.clone()));
        }
        (w.text, w.params) = (text.clone(), params.clone());
    }
    let Some((s, kib, m, best_text, best_params)) = best else {
        return Ok(false);
    };
    if s >= GAIN * own_score {
        return Ok(false);
    }
    (w.text, w.params) = (best_text, best_params);
    w.set(
        "buffer",
        "buffer_kib",
        kib.to_string(),
        How::Fitted,
        format!(
            "the init's throughput, {init:.0} MB/s (twin {m:.0}; {own_init:.0} with {} MiB), with program time fitted to the random-write rate at each size and the write burst: below the dies' stripe of {} MiB the buffer bounds the dies that program at once",
            own_kib / 1024,
            stripe / 1024
        ),
        Some(res(m, init)),
    );
    Ok(true)
}
