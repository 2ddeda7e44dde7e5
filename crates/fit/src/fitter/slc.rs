//! The SLC stage: whether the drive programs host data in SLC mode first and folds it into
//! its native cells later, how much it takes so, and how fast, from the protocol's sequential
//! init on the freshly reset drive (figures `init_waf` and `init_mb_s`, docs/protocol.md). It
//! costs the run nothing: every pass already starts with that init.
//!
//! Invariants and why:
//! - On an empty drive the cache has all the room it wants: it takes `slc_share` of the
//!   logical capacity in SLC mode, and folds all of it into native blocks by the end of the
//!   idle pause after the init (the room goes as the drive fills). So the init's media over
//!   host bytes is about `1 + slc_share`, plus what else the init costs (a DRAM-less drive's
//!   map writes): the share is moved until the twin's init WA meets the drive's, the rest
//!   being the twin's own. On a full drive the cache takes host writes only where GC leaves
//!   it room: under uniform writes little (issue 52: 1% of WA at most), under heavy skew much
//!   (seed 57's hidden drive 2: Zipf 1.2 WA 2.29 with a 10% cache, 1.74 without).
//! - An init WA within [`NO_FOLDS`] of the twin's without a cache is the twin's guess of no
//!   cache, not a fit: a smaller cache is not told from the init's other writes, and a cache
//!   that folds only in the foreground (no idle-time GC, which the run does not identify)
//!   folds nothing by the end of the pause. A prediction's range spans a cache.
//! - A fitted share is what the twin's idle-time GC (the base's) must fold to meet the init's
//!   WA; a drive whose own folds less by the end of the pause has a larger cache (seed 61's
//!   hidden drive 19: a 10% cache without idle-time GC, init WA 1.0267, fitted 2.7%). The share
//!   says so ([`LOWER_BOUND`]), and a prediction's range spans the cache from it up to the
//!   range knob's end.
//! - The SLC program time shows only where the init is bound by the flash (a QD1 init of
//!   512 KiB writes on a fast data-center drive is bound by the host: its cache would not
//!   change the init's speed). Where the twin's init throughput moves by less than [`MOVES`]
//!   between the ends of [`PROGRAM_SHARES`], the time is the library's consumer drives' ratio
//!   to the native time, and the twin says it was kept (so a prediction's range spans it).
//! - The share is fitted before the WA stage (folds are writes the OP would otherwise
//!   absorb), the program time after the native program time.
//! - No media counter (an init WA the run could not measure): nothing is set, and the range
//!   spans the share.

use ssdiq_schema::figures as keys;

use super::{figure, num, res, How, Work};
use crate::sensitivity::LOWER_BOUND;
use crate::twin::Part;
use crate::FitError;

/// An init WA this close to the twin's without a cache is no cache: 2% of the capacity
/// folded. Other writes of the init reach a percent: the round trip's hidden drive 7 (no
/// cache, 12 MiB superblocks) measured 1.0117 against its base's 1.0000, which read as a 1.2%
/// cache took its buffer from 16 MiB to 8 MiB. The library's caches are 5-16%.
const NO_FOLDS: f64 = 0.02;
/// The share is found to this much of the init WA.
const WA_TOLERANCE: f64 = 0.001;
/// The largest share the emulator takes (`slc_share`, docs/emulator.md).
const SHARE_MAX: f64 = 0.5;
/// SLC program time as shares of the native one: a sixth is the library's consumer drives'
/// (970 EVO Plus 114 of 1966 us, NV2 202 of 1966 us: a sixth to a tenth), the ends a twentieth
/// and 0.9.
const GUESS: f64 = 1.0 / 6.0;
const PROGRAM_SHARES: [f64; 2] = [0.05, 0.9];
/// The init's throughput must move by this share between those ends to identify the time.
const MOVES: f64 = 0.03;
/// Twin runs a search takes at most.
const STEPS: usize = 10;

/// Whether the emulator can give the twin an SLC cache (a TLC or MLC die, one stream).
fn cache_allowed(w: &Work) -> Result<Option<String>, FitError> {
    let p = w.profile()?;
    if p.nand.bits_per_cell < 2 {
        return Ok(Some(format!(
            "its cells hold {} bit: no SLC mode",
            p.nand.bits_per_cell
        )));
    }
    if p.drive.streams > 1 {
        return Ok(Some(format!(
            "the emulator's SLC cache takes one stream (the twin has {})",
            p.drive.streams
        )));
    }
    Ok(None)
}

/// The SLC program time the fit guesses where nothing identifies it.
fn guess_us(native_program_us: f64) -> f64 {
    (native_program_us * GUESS).round().max(1.0)
}

/// The twin's init figure `key` with the cache `share` and SLC program time `program_us`.
fn init_with(w: &Work, share: f64, program_us: f64, key: &str) -> Result<f64, FitError> {
    let text = w.with(&[
        ("slc", "slc_share", num(share)),
        ("slc", "slc_program_us", num(program_us)),
    ]);
    Ok(figure(&w.twin(&text, Part::Init)?, key))
}

pub(super) fn fit_slc_share(w: &mut Work) -> Result<(), FitError> {
    let Some(drive) = w.obs.get(keys::INIT_WAF) else {
        return Ok(());
    };
    let guess_us = guess_us(w.profile()?.nand.program_us);
    let none = init_with(w, 0.0, guess_us, keys::INIT_WAF)?;
    let program_note = "the SLC program time: none without a cache";
    if drive < none + NO_FOLDS {
        // Nothing folded by the end of the idle pause: no cache, or one that folds only in the
        // foreground, with no idle-time GC, which the run does not identify. Such a cache
        // still takes host writes wherever GC leaves it room, and on a full drive under heavy
        // skew that is most of them (seed 57's hidden drive 2: a 10% cache without idle GC,
        // init WA 0.9999, Zipf 1.2 WA 2.29 where the same drive without it writes 1.74). So
        // no cache is the twin's guess, and a prediction's range spans one.
        w.set(
            "slc",
            "slc_share",
            "0".into(),
            How::Kept,
            format!(
                "the fit's best guess: the init's WA on the fresh drive, {drive:.4}, is the twin's without an SLC cache ({none:.4}): nothing was folded by the end of the idle pause, as with a cache that folds only in the foreground (no idle-time GC, which the run does not identify)"
            ),
            None,
        );
        w.set(
            "slc",
            "slc_program_us",
            num(guess_us),
            How::Fitted,
            program_note.into(),
            None,
        );
        return Ok(());
    }
    if let Some(why) = cache_allowed(w)? {
        w.set(
            "slc",
            "slc_share",
            "0".into(),
            How::Kept,
            format!(
                "the init's WA on the fresh drive, {drive:.4} against the twin's {none:.4} without a cache, says the drive folds an SLC cache, but {why}"
            ),
            None,
        );
        return Ok(());
    }
    // The init WA rises with the share: bisection, from the linear guess.
    let (mut lo, mut hi) = ((0.0, none), (SHARE_MAX, f64::NAN));
    let mut share = (drive - none).clamp(0.001, SHARE_MAX);
    let mut best = (share, f64::NAN);
    for _ in 0..STEPS {
        let got = init_with(w, share, guess_us, keys::INIT_WAF)?;
        if best.1.is_nan() || (got - drive).abs() < (best.1 - drive).abs() {
            best = (share, got);
        }
        if (got - drive).abs() <= WA_TOLERANCE {
            break;
        }
        if got < drive {
            lo = (share, got);
        } else {
            hi = (share, got);
        }
        share = if hi.1.is_nan() {
            // No upper end yet: step as far again as the linear guess says.
            (share + (drive - got).max(0.001)).min(SHARE_MAX)
        } else {
            (lo.0 + hi.0) / 2.0
        };
        if share == lo.0 || (share == SHARE_MAX && lo.0 == SHARE_MAX) {
            break;
        }
    }
    let (share, got) = best;
    w.set(
        "slc",
        "slc_share",
        num(share),
        How::Fitted,
        format!(
            "the init's WA on the fresh drive, {drive:.4}, against the twin's {none:.4} without an SLC cache: the cache's folds (the twin: {got:.4}); {LOWER_BOUND} of the share: a drive whose idle-time GC (which the run does not identify) folds less than the twin's by the end of the pause has a larger cache"
        ),
        Some(res(got, drive)),
    );
    // Until the program stage: the library's ratio, which it keeps unless the init's
    // throughput tells.
    w.set(
        "slc",
        "slc_program_us",
        num(guess_us),
        How::Kept,
        "the fit's guess: a sixth of the native program time, as the library's consumer drives"
            .into(),
        None,
    );
    Ok(())
}

pub(super) fn fit_slc_program(w: &mut Work) -> Result<(), FitError> {
    let p = w.profile()?;
    let share = p.slc.slc_share;
    let (Some(drive), true) = (w.obs.get(keys::INIT_MB_S), share > 0.0) else {
        return Ok(());
    };
    let native = p.nand.program_us;
    let [fast_us, slow_us] = PROGRAM_SHARES.map(|s| (native * s).round().max(1.0));
    let fast = init_with(w, share, fast_us, keys::INIT_MB_S)?;
    let slow = init_with(w, share, slow_us, keys::INIT_MB_S)?;
    let guess_us = guess_us(native);
    if !(fast.is_finite() && slow.is_finite()) || (fast - slow).abs() < MOVES * slow {
        w.set(
            "slc",
            "slc_program_us",
            num(guess_us),
            How::Kept,
            format!(
                "the fit's guess, a sixth of the native program time as the library's consumer drives: the twin's init runs at {slow:.0} to {fast:.0} MB/s over SLC program times of {slow_us:.0} to {fast_us:.0} us (bound by something else)"
            ),
            None,
        );
        return Ok(());
    }
    // Throughput falls with the program time: bisection on its logarithm.
    let (mut a, mut b) = (fast_us.ln(), slow_us.ln());
    let mut best = if (fast - drive).abs() < (slow - drive).abs() {
        (fast_us, fast)
    } else {
        (slow_us, slow)
    };
    if drive < fast && drive > slow {
        for _ in 0..STEPS {
            let us = ((a + b) / 2.0).exp().round().max(1.0);
            let got = init_with(w, share, us, keys::INIT_MB_S)?;
            if (got - drive).abs() < (best.1 - drive).abs() {
                best = (us, got);
            }
            if (got - drive).abs() <= 0.005 * drive {
                break;
            }
            if got > drive {
                a = us.ln();
            } else {
                b = us.ln();
            }
        }
    }
    let (us, got) = best;
    w.set(
        "slc",
        "slc_program_us",
        num(us),
        How::Fitted,
        format!(
            "the init's throughput on the fresh drive, {drive:.0} MB/s (the twin: {got:.0}; {slow:.0} to {fast:.0} MB/s over SLC program times of {slow_us:.0} to {fast_us:.0} us)"
        ),
        Some(res(got, drive)),
    );
    Ok(())
}
