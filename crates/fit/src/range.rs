//! Each prediction's range over what the twin does not know: the knobs of
//! [`crate::sensitivity::range_knobs`] that the twin's file does not mark as fitted or taken
//! from an input, each set to either end of its plausible range, on a copy of the twin.
//!
//! Each end is conditioned on what the run measured: its OP is moved until its steady uniform
//! WA meets the copy's own (as the fit's WA stage would have moved it), so a range holds only
//! drives the run could not tell apart from the twin; an end no OP brings within
//! [`CONDITION_LIMIT`] of it is such a drive, and is left out.
//!
//! The keys are not known together either: a drive can differ from the twin in two of them at
//! once (held-out sm863a: greedy where the twin is cost-benefit, and smaller superblocks; each
//! alone moved its Zipf 1.2 WA to 11.97 of the drive's 12.40). A point's range therefore
//! composes the keys' moves: each key's largest rise over its ends, multiplied over the keys,
//! sets the top, and its largest fall the bottom. This takes the keys' effects as independent
//! factors, an estimate of the corners of their box that costs no run beyond each key's two
//! ends.
//!
//! Keys can also move a point only together (seed 58's hidden drive 15: the dies and the GC
//! watermarks, 9% and 0% alone, 35% together on its Zipf 1.0 WA, through how they pace the
//! drain of a buffer that absorbs rewrites), which no product of single moves reaches. So the
//! range also measures the box's corners: for each curve, every key at once at the end that
//! moved that curve most upward, and again most downward (each conditioned like an end), and
//! widens every point to hold them. A corner is a drive the run cannot tell from the twin, so
//! its values bound every curve, not only the one it was chosen for.
//!
//! The twin's own spread joins them as one more factor: its predictions at another seed (the
//! random streams, and so the GC's phase against a load level, move with it). At 90% of
//! a drive's sustained rate the write P99 turns on that phase (a twin of issue 52's held-out
//! gsm2ne, fitted on 2026-11-28: 20.1-25.8 ms over seeds 1-3), and a range without it claimed
//! a precision the twin lacks. One other seed samples that phase too thinly: seed 59's hidden
//! drive 4 wrote a 90%-load P99 of 16.3-37.2 ms over seeds 1-5 and 59, and its twin 17.5-40.5
//! ms, yet the twin's range from one other seed stopped at 20.4 ms, under the drive's 21.5. So
//! the write-load curve alone, the cheapest curve and the one the phase moves most, runs at
//! [`LOAD_SPREAD_SEEDS`] more seeds, and the spread takes the widest of them all. (These were
//! 5 s levels; a level now lasts 20 s, which narrows the phase's part.)
//!
//! Invariants: a range always holds the twin's own value; it is measured on a copy of the twin
//! at [`RANGE_CAPACITY`] (or the twin's own capacity, if smaller) and applied to the twin's
//! predictions as ratios to that copy's own, so the range costs the same on a 16 GiB twin as on
//! a 1 GiB one; a key names a curve's range only if it moves that curve by more than
//! [`NAMED_SHARE`].

use rayon::prelude::*;
use ssdiq_emu::Profile;
use ssdiq_schema::Prediction;

use crate::predict::{load_curve, predictions, steady_writes, OP_FACTORS};
use crate::profile_text::{comment, set, size_literal};
use crate::sensitivity::{apply, range_knobs, Knob, LOWER_BOUND};
use crate::FitError;

/// The name of the twin's own spread among a range's keys.
pub const SPREAD_KEY: &str = "the twin's own spread (another seed)";
/// The name of the keys' corners among a range's keys.
pub const CORNER_KEY: &str = "the keys together (a corner)";
/// The name of the OP's own step among a range's keys ([`with_op_step`]).
pub const OP_STEP_KEY: &str = "drive.op (half a superblock either way)";
/// Mixed into the seed for the spread's predictions.
const SPREAD_SEED: u64 = 0x5eed_0f5b_7ead;
/// Seeds beyond the spread's at which the write-load curve alone is run again.
pub const LOAD_SPREAD_SEEDS: u64 = 4;

/// The seed of the write-load curve's extra run `i`: none of them the twin's or the spread's.
fn load_spread_seed(seed: u64, i: u64) -> u64 {
    seed ^ SPREAD_SEED.wrapping_add(i)
}

/// `own` with the curve of `curve`'s study replaced by `curve` (the others unmoved).
fn with_curve(own: &[Prediction], curve: Vec<Prediction>) -> Vec<Prediction> {
    let mut out = own.to_vec();
    for c in curve {
        if let Some(o) = out.iter_mut().find(|o| o.study == c.study) {
            *o = c;
        }
    }
    out
}

/// The copy's capacity: large enough for every library profile's twin (docs/fit.md), small
/// enough for a range in minutes.
pub const RANGE_CAPACITY: u64 = 1 << 30;
/// A key moves a curve when one of its ends moves a point by more than this share.
pub const NAMED_SHARE: f64 = 0.01;

/// Whether the twin's file says every key `knob` sets was fitted or came from an input (never,
/// for a knob the run resolves only coarsely).
fn identified(text: &str, knob: &Knob) -> bool {
    if knob.coarse {
        return false;
    }
    let known = |section: &str, key: &str| {
        comment(text, section, key)
            .is_some_and(|c| c.starts_with("fitted to ") || c.starts_with("from "))
    };
    match knob.settled_by {
        // A value fitted to a figure that bounds it only from below leaves the knob open, as
        // does one fitted to a figure other than the one named.
        Some((section, key, naming)) => {
            let c = comment(text, section, key).unwrap_or_default();
            known(section, key)
                && !c.contains(LOWER_BOUND)
                && naming.is_none_or(|figure| c.contains(figure))
        }
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
/// OP steps of the conditioning at most: where superblocks are large, WA moves by steps of OP
/// (32 channels at 1 GiB: 10.96 at OP 0.088, 7.62 at 0.104), and the bracket needs a few to
/// find the step that meets the target.
const CONDITION_STEPS: usize = 8;
/// A conditioned end whose steady uniform WA stays further than this share from the target is
/// a drive the run tells apart from the twin (the fit's own WA stage meets the run's within
/// 2%, and the round trip holds a twin's uniform WA to 5%).
const CONDITION_LIMIT: f64 = 0.10;

/// The steady uniform WA of profile `text` (the predictions' measurement).
pub(crate) fn uniform_waf(text: &str, seed: u64) -> Result<f64, FitError> {
    steady_writes(text, "uniform", seed)?
        .waf
        .filter(|w| w.is_finite() && *w > 0.0)
        .ok_or_else(|| FitError::Twin("the twin measured no uniform WA".into()))
}

/// Whether profile `text` makes a drive (GC has the spare it needs, among other checks).
fn builds(text: &str) -> bool {
    Profile::parse_checked(text, &[]).is_ok()
}

/// `text` at OP `op`.
fn at_op(text: &str, op: f64) -> String {
    set(
        text,
        "drive",
        "op",
        &format!("{op:.4}"),
        "the range: conditioned on uniform WA",
    )
}

/// A superblock's share of the capacity of profile `text`, in the emulator's own geometry.
fn superblock_share(text: &str) -> Result<f64, FitError> {
    let g = Profile::parse(text, &[])
        .and_then(|p| ssdiq_emu::drive_geometry(&p))
        .map_err(|e| FitError::Profile(e.to_string()))?;
    Ok(g.ppb() as f64 / g.logical_pages as f64)
}

/// The OP curve's lowest factor and its index among the curve's points.
fn lowest_op_factor() -> (usize, f64) {
    OP_FACTORS
        .iter()
        .copied()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("OP factors")
}

/// `preds`, the predictions of profile `text`, with the OP curve's lowest point given a range:
/// its WA at that point's OP moved either way by the lowest factor's share of half a
/// superblock. WA moves with OP in steps of a superblock's share of the capacity (the spare
/// counts whole superblocks), so the uniform WA a run measures pins OP only to within one
/// step, and a conditioned end lands anywhere on it. Half the OP leaves the least spare, where
/// one superblock moves WA most (seed 61's hidden drive 7, 6 MiB superblocks at 1 GiB, GC
/// watermarks 8/4: uniform WA 9.58 at OP 14.43% and at 14.69%, but 26.2 at half the first and
/// 21.7 at half the second; its twin's end with those watermarks, conditioned to 14.69%, gave
/// 22.2 where the drive gave 27.0). The other points keep their own values as their range.
pub(crate) fn with_op_step(
    mut preds: Vec<Prediction>,
    text: &str,
    seed: u64,
) -> Result<Vec<Prediction>, FitError> {
    let Some(c) = preds.iter_mut().find(|c| c.study == "op") else {
        return Ok(preds);
    };
    c.range = c.points.iter().map(|&(_, y)| (y, y)).collect();
    let (i, lowest) = lowest_op_factor();
    let Some(&(x, y)) = c.points.get(i) else {
        return Ok(preds);
    };
    if !y.is_finite() {
        return Ok(preds);
    }
    let step = lowest * superblock_share(text)? / 2.0;
    let (mut lo, mut hi) = (y, y);
    for op in [x / 100.0 - step, x / 100.0 + step] {
        let t = at_op(text, op);
        if op > 0.0 && builds(&t) {
            let w = uniform_waf(&t, seed)?;
            lo = lo.min(w);
            hi = hi.max(w);
        }
    }
    c.range[i] = (lo, hi);
    Ok(preds)
}

/// The predictions of `variant` conditioned on `target` ([`conditioned`]), with the OP
/// curve's step ([`with_op_step`]) where its lowest point is not within [`NAMED_SHARE`] of
/// `copy_lowest` (the copy's own there, where known): a variant that leaves the point where
/// the copy has it has the copy's step, which the range takes once, and the step costs two
/// steady runs at a low OP (about 20 s of a core on a drive of uniform WA 10).
fn conditioned_predictions(
    variant: String,
    target: f64,
    seed: u64,
    copy_lowest: Option<f64>,
) -> Result<Option<Vec<Prediction>>, FitError> {
    let Some(t) = conditioned(&variant, target, seed)? else {
        return Ok(None);
    };
    let preds = predictions(&t, seed, &mut |_| {})?;
    let lowest = lowest_op_point(&preds);
    let like_copy =
        matches!((lowest, copy_lowest), (Some(y), Some(c)) if (y / c - 1.0).abs() <= NAMED_SHARE);
    if like_copy {
        return Ok(Some(preds));
    }
    with_op_step(preds, &t, seed).map(Some)
}

/// The OP curve's value at its lowest factor.
fn lowest_op_point(preds: &[Prediction]) -> Option<f64> {
    let c = preds.iter().find(|c| c.study == "op")?;
    c.points
        .get(lowest_op_factor().0)
        .map(|p| p.1)
        .filter(|y| y.is_finite())
}

/// `text` with its OP moved until its steady uniform WA is within [`CONDITION_SHARE`] of
/// `target` (WA taken as inversely proportional to OP, as greedy's is near these OPs, inside
/// the bracket of OPs already tried: at a low OP that proportion overshoots, and seed 60's
/// hidden drive 10, uniform WA 15.5 at OP 0.052, had ends kept at WA 2.2 after swinging
/// between OPs); the nearest OP tried where none is, and `None` where even that is further
/// than [`CONDITION_LIMIT`] (the run tells that drive apart). An end whose drive does not
/// build at the twin's OP (twice the dies make superblocks twice as large, and GC more spare
/// than a low OP leaves) starts
/// from the lowest OP on a 1.25x ladder that builds; `None` where no OP up to 0.9 builds, or
/// where meeting the target would take an OP that does not build (the run rules that end
/// out: seed 56's hidden drive 2, uniform WA 21.8 at OP 0.046, has no twin with twice the dies).
pub fn conditioned(text: &str, target: f64, seed: u64) -> Result<Option<String>, FitError> {
    let op = |t: &str| -> Result<f64, FitError> {
        Ok(Profile::parse(t, &[])
            .map_err(|e| FitError::Profile(e.to_string()))?
            .drive
            .op)
    };
    let mut t = text.to_string();
    while !builds(&t) {
        let up = op(&t)? * 1.25;
        if up > 0.9 {
            return Ok(None);
        }
        t = at_op(&t, up);
    }
    let mut best = (f64::INFINITY, t.clone());
    // WA falls as OP rises: the target lies between the highest OP tried whose WA was above it
    // and the lowest whose WA was below.
    let (mut low, mut high) = (0.02_f64, 0.9_f64);
    for _ in 0..CONDITION_STEPS {
        let w = uniform_waf(&t, seed)?;
        let miss = (w / target).ln().abs();
        if miss < best.0 {
            best = (miss, t.clone());
        }
        if miss <= CONDITION_SHARE {
            break;
        }
        let now = op(&t)?;
        if w > target {
            low = low.max(now);
        } else {
            high = high.min(now);
        }
        let guess = now * w / target;
        let next_op = if low < guess && guess < high {
            guess
        } else {
            (low * high).sqrt()
        };
        let next = at_op(&t, next_op);
        if !builds(&next) {
            // The run's WA needs less OP than this end builds with: no drive of this end
            // matches the run, so the range holds none of it.
            return Ok(None);
        }
        t = next;
    }
    Ok((best.0 <= CONDITION_LIMIT.ln_1p()).then_some(best.1))
}

/// One set of predictions a range takes: the copy's own, at another seed, or with a key at one
/// of its ends.
enum Variant {
    Own,
    Spread,
    /// The write-load curve alone at extra seed `i` (1-based).
    LoadSpread(u64),
    End(&'static Knob, usize),
}

/// Sets each prediction's range (and the keys it rests on) in `preds`, the predictions of
/// twin `text`. `progress` hears each variant as it is done.
///
/// The variants are independent runs, so they run on rayon's pool (every core the process may
/// use), each with its own drive; their results are collected in order, so the range is the
/// same on any number of cores.
pub fn with_ranges(
    text: &str,
    preds: &mut [Prediction],
    seed: u64,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<(), FitError> {
    let copy = copy_for_range(text)?;
    // A knob neither of whose ends changes the copy (a frontier's share on a policy without a
    // frontier) would only run the copy again.
    let knobs: Vec<&Knob> = unidentified(text)
        .into_iter()
        .filter(|k| (0..k.labels.len()).any(|end| apply(&copy, k, end).map_or(true, |t| t != copy)))
        .collect();
    for p in preds.iter_mut() {
        p.range = p.points.iter().map(|&(_, y)| (y, y)).collect();
        p.range_keys.clear();
    }
    let target = uniform_waf(&copy, seed)?;
    // The copy's own lowest OP point, where the copy is the twin (its predictions are at hand).
    let copy_lowest = if copy == text {
        lowest_op_point(preds)
    } else {
        None
    };
    let mut variants = Vec::new();
    if copy != text {
        variants.push(Variant::Own);
    }
    variants.push(Variant::Spread);
    for i in 1..=LOAD_SPREAD_SEEDS {
        variants.push(Variant::LoadSpread(i));
    }
    for k in &knobs {
        for end in 0..k.labels.len() {
            variants.push(Variant::End(k, end));
        }
    }
    let label = |v: &Variant| match v {
        Variant::Own => "the copy at its own values".to_string(),
        Variant::Spread => SPREAD_KEY.to_string(),
        Variant::LoadSpread(i) => format!("{SPREAD_KEY}: the write-load curve at extra seed {i}"),
        Variant::End(k, end) => format!("{} = {}", k.name, k.label(*end, &copy)),
    };
    let run = |v: &Variant| match v {
        Variant::Own => predictions(&copy, seed, &mut |_| {}).map(Some),
        Variant::Spread => predictions(&copy, seed ^ SPREAD_SEED, &mut |_| {}).map(Some),
        Variant::LoadSpread(i) => {
            load_curve(&copy, load_spread_seed(seed, *i), &mut |_| {}).map(|c| Some(vec![c]))
        }
        // An end that makes no drive at any OP moves nothing: no drive is there to be.
        Variant::End(k, end) => {
            conditioned_predictions(apply(&copy, k, *end)?, target, seed, copy_lowest)
        }
    };
    let progress = std::sync::Mutex::new(progress);
    let mut results = variants
        .par_iter()
        .map(|v| {
            let r = run(v);
            (progress.lock().expect("progress"))(&label(v));
            r
        })
        .collect::<Vec<_>>()
        .into_iter();
    let own = if copy != text {
        results
            .next()
            .expect("the copy's own")?
            .expect("predictions")
    } else {
        preds.to_vec()
    };
    let spread = results.next().expect("the spread")?.expect("predictions");
    let mut moves = Moves::new(preds);
    let mut key = Moves::new(preds);
    key.either_end(preds, &own, &spread, SPREAD_KEY);
    for _ in 1..=LOAD_SPREAD_SEEDS {
        let curve = results.next().expect("each load seed")?.expect("a curve");
        key.either_end(preds, &own, &with_curve(&own, curve), SPREAD_KEY);
    }
    moves.compose(&key);
    let mut key = Moves::new(preds);
    key.either_end(
        preds,
        &own,
        &with_op_step(own.clone(), &copy, seed)?,
        OP_STEP_KEY,
    );
    moves.compose(&key);
    let mut ends = Vec::new();
    for k in &knobs {
        let mut key = Moves::new(preds);
        let mut pair = Vec::new();
        for _ in 0..k.labels.len() {
            let other = results.next().expect("each end")?;
            if let Some(other) = &other {
                key.either_end(preds, &own, other, k.name);
            }
            pair.push(other);
        }
        moves.compose(&key);
        ends.push(pair);
    }
    // The corners: every key at once, at the end that moves a curve most its way.
    let mut corners: Vec<Vec<Option<usize>>> = Vec::new();
    for c in 0..preds.len() {
        for up in [true, false] {
            let corner = corner(&own, &ends, c, up);
            if corner.iter().filter(|e| e.is_some()).count() > 1 && !corners.contains(&corner) {
                corners.push(corner);
            }
        }
    }
    let measured = corners
        .par_iter()
        .map(|corner| {
            // A knob that holds the GC unit goes last, so it holds the unit the others left
            // (the dies at twice with the planes at 4: eight planes would make a larger unit).
            let mut t = copy.clone();
            let mut order: Vec<_> = knobs.iter().zip(corner).collect();
            order.sort_by_key(|(k, _)| k.holds_unit());
            for (k, end) in order {
                if let Some(end) = end {
                    t = apply(&t, k, *end)?;
                }
            }
            let r = conditioned_predictions(t, target, seed, copy_lowest);
            (progress.lock().expect("progress"))(&format!(
                "{CORNER_KEY}: {}",
                corner_label(&knobs, corner, &copy)
            ));
            r
        })
        .collect::<Vec<_>>();
    for m in measured {
        if let Some(other) = m? {
            moves.widen(preds, &own, &other, CORNER_KEY);
        }
    }
    moves.apply(preds);
    Ok(())
}

/// For curve `c`, each key's end that moves the curve most upward (`up`) or downward: the end
/// whose mean log ratio to `own` over the curve's points is the largest (or the smallest);
/// `None` for a key with no end that builds a drive. A tie keeps the first end.
fn corner(
    own: &[Prediction],
    ends: &[Vec<Option<Vec<Prediction>>>],
    c: usize,
    up: bool,
) -> Vec<Option<usize>> {
    let score = |other: &[Prediction]| {
        let logs: Vec<f64> = own[c]
            .points
            .iter()
            .zip(&other[c].points)
            .map(|(&(_, y0), &(_, y1))| (y1 / y0).ln())
            .filter(|l| l.is_finite())
            .collect();
        let mean = logs.iter().sum::<f64>() / logs.len().max(1) as f64;
        if up {
            mean
        } else {
            -mean
        }
    };
    ends.iter()
        .map(|pair| {
            let mut best: Option<(usize, f64)> = None;
            for (i, e) in pair.iter().enumerate() {
                if let Some(other) = e {
                    let s = score(other);
                    if best.is_none_or(|(_, b)| s > b) {
                        best = Some((i, s));
                    }
                }
            }
            best.map(|(i, _)| i)
        })
        .collect()
}

/// A corner as its keys' ends ("gc watermarks = 8/4, nand.planes = 2").
fn corner_label(knobs: &[&Knob], corner: &[Option<usize>], copy: &str) -> String {
    knobs
        .iter()
        .zip(corner)
        .filter_map(|(k, e)| e.map(|e| format!("{} = {}", k.name, k.label(e, copy))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each point's factors of rise and fall: over one key's ends, the largest of either; over
/// several keys, their product.
struct Moves(Vec<Vec<(f64, f64)>>);

impl Moves {
    fn new(preds: &[Prediction]) -> Self {
        Moves(
            preds
                .iter()
                .map(|p| vec![(1.0, 1.0); p.points.len()])
                .collect(),
        )
    }

    /// Takes one end of a key: the ratio of `other` to `own` at each point (the copy's own
    /// predictions), and names `key` on the curves of `preds` it moves by more than
    /// [`NAMED_SHARE`].
    fn either_end(
        &mut self,
        preds: &mut [Prediction],
        own: &[Prediction],
        other: &[Prediction],
        key: &str,
    ) {
        self.take(preds, own, other, key, |ratio, _| {
            (ratio - 1.0).abs() > NAMED_SHARE
        });
    }

    /// Widens each point's factors to hold `other`'s ratio to `own` (a drive measured with
    /// several keys moved at once), and names `key` on the curves it takes past the composed
    /// factors by more than [`NAMED_SHARE`].
    fn widen(
        &mut self,
        preds: &mut [Prediction],
        own: &[Prediction],
        other: &[Prediction],
        key: &str,
    ) {
        self.take(preds, own, other, key, |ratio, (fall, rise)| {
            ratio > rise * (1.0 + NAMED_SHARE) || ratio < fall * (1.0 - NAMED_SHARE)
        });
    }

    /// Widens each point's fall and rise to hold `other`'s ratio to `own`, and names `key` on
    /// a curve where `named` holds at a point (given the ratio and the factors before).
    fn take(
        &mut self,
        preds: &mut [Prediction],
        own: &[Prediction],
        other: &[Prediction],
        key: &str,
        named: impl Fn(f64, (f64, f64)) -> bool,
    ) {
        for (((p, o), v), m) in preds.iter_mut().zip(own).zip(other).zip(&mut self.0) {
            let mut name = false;
            for (i, (((_, y0), (_, y1)), (fall, rise))) in
                o.points.iter().zip(&v.points).zip(m).enumerate()
            {
                // A variant's point may carry a range of its own (the OP curve's step).
                let (lo, hi) = v.range.get(i).copied().unwrap_or((*y1, *y1));
                for y in [*y1, lo, hi] {
                    let ratio = y / y0;
                    if !ratio.is_finite() || ratio <= 0.0 {
                        continue;
                    }
                    name |= named(ratio, (*fall, *rise));
                    *fall = fall.min(ratio);
                    *rise = rise.max(ratio);
                }
            }
            if name && !p.range_keys.iter().any(|k| k == key) {
                p.range_keys.push(key.to_string());
            }
        }
    }

    /// Multiplies in another key's moves.
    fn compose(&mut self, key: &Moves) {
        for (m, k) in self.0.iter_mut().zip(&key.0) {
            for ((fall, rise), (f, r)) in m.iter_mut().zip(k) {
                *fall *= f;
                *rise *= r;
            }
        }
    }

    /// Sets each point's range of `preds`: its value times the fall and the rise.
    fn apply(&self, preds: &mut [Prediction]) {
        for (p, m) in preds.iter_mut().zip(&self.0) {
            for (((_, y), r), (fall, rise)) in p.points.iter().zip(p.range.iter_mut()).zip(m) {
                if y.is_finite() {
                    *r = (y * fall, y * rise);
                }
            }
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
    fn a_load_seed_moves_only_its_own_curve_and_its_seeds_differ() {
        let mut load = curve(&[(90.0, 20.0)]);
        load.study = "latency-load".into();
        let own = [curve(&[(0.6, 4.0)]), load.clone()];
        let mut other = load;
        other.points = vec![(90.0, 30.0)];
        let with = with_curve(&own, vec![other.clone()]);
        assert_eq!(with[0], own[0]);
        assert_eq!(with[1], other);
        let seeds: Vec<u64> = (1..=LOAD_SPREAD_SEEDS)
            .map(|i| load_spread_seed(7, i))
            .collect();
        for (i, s) in seeds.iter().enumerate() {
            assert!(*s != 7 && *s != 7 ^ SPREAD_SEED && !seeds[..i].contains(s));
        }
    }

    #[test]
    fn a_range_holds_the_twin_and_scales_by_the_copys_ratio() {
        let mut twin = [curve(&[(0.6, 4.0), (1.2, 8.0)])];
        let own = [curve(&[(0.6, 2.0), (1.2, 4.0)])];
        let mut moves = Moves::new(&twin);
        let mut a = Moves::new(&twin);
        a.either_end(&mut twin, &own, &[curve(&[(0.6, 2.01), (1.2, 1.0)])], "a");
        a.either_end(&mut twin, &own, &[curve(&[(0.6, 1.99), (1.2, 5.0)])], "a");
        moves.compose(&a);
        moves.apply(&mut twin);
        // One key: its ends' largest fall and rise, as ratios to the copy's own.
        assert_eq!(twin[0].range, vec![(3.98, 4.02), (2.0, 10.0)]);
        assert_eq!(twin[0].range_keys, vec!["a"]);
    }

    #[test]
    fn a_variants_own_range_widens_the_moves_as_its_value_does() {
        let mut twin = [curve(&[(7.0, 20.0), (14.0, 10.0)])];
        let own = [curve(&[(7.0, 20.0), (14.0, 10.0)])];
        // An end whose lowest point is 22 at its OP and 26 or 21 half a superblock either way.
        let mut end = curve(&[(7.0, 22.0), (14.0, 10.0)]);
        end.range[0] = (21.0, 26.0);
        let mut moves = Moves::new(&twin);
        let mut k = Moves::new(&twin);
        k.either_end(&mut twin, &own, &[end], "watermarks");
        moves.compose(&k);
        moves.apply(&mut twin);
        assert_eq!(twin[0].range, vec![(20.0, 26.0), (10.0, 10.0)]);
        assert_eq!(twin[0].range_keys, vec!["watermarks"]);
    }

    #[test]
    fn the_op_step_ranges_only_the_op_curves_lowest_point_and_holds_its_value() {
        let text = ssdiq_emu::profile::builtin("pm9a3").unwrap();
        let text = set(text, "drive", "capacity", "\"1GiB\"", "test");
        let mut op = curve(&[(5.0, 9.0), (10.0, 4.0)]);
        op.study = "op".into();
        op.points[0].0 = Profile::parse(&text, &[]).unwrap().drive.op * OP_FACTORS[0] * 100.0;
        op.range.clear();
        let preds = with_op_step(vec![curve(&[(1.0, 2.0)]), op], &text, 1).unwrap();
        assert_eq!(preds[0], curve(&[(1.0, 2.0)]));
        let (lo, hi) = preds[1].range[0];
        assert!(lo <= 9.0 && 9.0 <= hi && lo > 0.0, "{lo}-{hi}");
        assert_eq!(preds[1].range[1], (4.0, 4.0));
        // Half a superblock's share either way at half the OP moves some WA there.
        assert!(hi - lo > 0.0, "{lo}-{hi}");
    }

    #[test]
    fn keys_compose_their_moves_and_a_small_one_is_not_named() {
        let mut twin = [curve(&[(1.0, 10.0)])];
        let own = [curve(&[(1.0, 5.0)])];
        let mut moves = Moves::new(&twin);
        for (key, ends) in [("a", [4.0, 6.0]), ("b", [5.5, 5.0]), ("c", [5.004, 4.998])] {
            let mut k = Moves::new(&twin);
            for y in ends {
                k.either_end(&mut twin, &own, &[curve(&[(1.0, y)])], key);
            }
            moves.compose(&k);
        }
        moves.apply(&mut twin);
        let (lo, hi) = twin[0].range[0];
        // Falls: a's 0.8, b's none, c's 0.9996; rises: a's 1.2, b's 1.1, c's 1.0008.
        assert!((lo - 10.0 * 0.8 * 0.9996).abs() < 1e-9, "{lo}");
        assert!((hi - 10.0 * 1.2 * 1.1 * 1.0008).abs() < 1e-9, "{hi}");
        // c moves nothing by more than 1%: not named.
        assert_eq!(twin[0].range_keys, vec!["a", "b"]);
    }

    #[test]
    fn a_corner_takes_each_keys_end_that_moves_the_curve_its_way() {
        let own = [curve(&[(1.0, 4.0), (2.0, 4.0)])];
        let c = |a: f64, b: f64| Some(vec![curve(&[(1.0, a), (2.0, b)])]);
        let ends = vec![
            // Up at end 1 on average, though end 0 rises at the first point.
            vec![c(4.4, 2.0), c(4.2, 4.8)],
            // Moves nothing either way: the tie keeps end 0.
            vec![c(4.0, 4.0), c(4.0, 4.0)],
            // One end builds no drive.
            vec![None, c(3.0, 3.0)],
            vec![None, None],
        ];
        assert_eq!(
            corner(&own, &ends, 0, true),
            vec![Some(1), Some(0), Some(1), None]
        );
        assert_eq!(
            corner(&own, &ends, 0, false),
            vec![Some(0), Some(0), Some(1), None]
        );
    }

    #[test]
    fn a_corner_past_the_composed_moves_widens_the_range_and_is_named() {
        let mut twin = [curve(&[(1.0, 10.0), (2.0, 10.0)])];
        let own = [curve(&[(1.0, 5.0), (2.0, 5.0)])];
        let mut moves = Moves::new(&twin);
        let mut a = Moves::new(&twin);
        a.either_end(&mut twin, &own, &[curve(&[(1.0, 5.5), (2.0, 4.5)])], "a");
        moves.compose(&a);
        // Inside the composed moves: widens nothing, named nowhere.
        moves.widen(
            &mut twin,
            &own,
            &[curve(&[(1.0, 5.2), (2.0, 5.0)])],
            "corner",
        );
        assert!(twin[0].range_keys.iter().all(|k| k != "corner"));
        // Past them at the first point: that point's top is the corner's.
        moves.widen(
            &mut twin,
            &own,
            &[curve(&[(1.0, 7.0), (2.0, 5.0)])],
            "corner",
        );
        moves.apply(&mut twin);
        assert_eq!(twin[0].range, vec![(10.0, 14.0), (9.0, 10.0)]);
        assert_eq!(twin[0].range_keys, vec!["a", "corner"]);
    }

    #[test]
    fn the_frontiers_share_stays_in_the_range_where_the_fit_set_it() {
        let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
        let fitted = set(
            base,
            "drive",
            "gc_frontier_share",
            "0.75",
            "fitted to the hidden drive's run: greedy + GC frontier (75% of relocated data apart)",
        );
        assert!(unidentified(&fitted)
            .iter()
            .any(|k| k.name == "drive.gc_frontier_share"));
        let k = range_knobs()
            .find(|k| k.name == "drive.gc_frontier_share")
            .expect("the share is a range knob");
        let share = |t: &str| Profile::parse(t, &[]).unwrap().drive.gc_frontier_share;
        assert_eq!(share(&apply(&fitted, k, 0).unwrap()), Some(0.5));
        assert_eq!(share(&apply(&fitted, k, 1).unwrap()), Some(1.0));
        // Where relocated data go with the host's, each end keeps that share apart.
        let none = set(base, "drive", "gc_frontier", "false", "test");
        assert_eq!(share(&apply(&none, k, 0).unwrap()), Some(0.5));
        assert_eq!(share(&apply(&none, k, 1).unwrap()), Some(1.0));
        // 2R has no frontier: neither end moves anything.
        let two_r = set(&none, "drive", "policy", "\"2r-greedy\"", "test");
        assert_eq!(apply(&two_r, k, 0).unwrap(), two_r);
    }

    #[test]
    fn the_gc_mode_stays_in_the_range_where_the_fit_set_it_but_a_fitted_superblock_leaves() {
        let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
        let t = set(
            base,
            "drive",
            "gc_mode",
            "\"naive\"",
            "fitted to the hidden drive's run: twozone WA 2.92 (twin 2.90)",
        );
        let t = set(
            &t,
            "nand",
            "units_per_block",
            "96",
            "from r/run.json: the drive's GC unit",
        );
        let open: Vec<&str> = unidentified(&t).iter().map(|k| k.name).collect();
        assert!(open.contains(&"drive.gc_mode"), "{open:?}");
        assert!(!open.iter().any(|n| n.starts_with("nand.units_per_block")));
    }

    #[test]
    fn a_buffer_only_the_write_burst_sized_is_identified() {
        let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
        let open = |comment: &str| {
            let t = set(base, "buffer", "buffer_kib", "65536", comment);
            unidentified(&t)
                .iter()
                .any(|k| k.name == "buffer.buffer_kib")
        };
        assert!(!open(&format!(
            "fitted to r/run.json: {} 61.4 MiB before writes waited for the flash (twin 69.2)",
            crate::sensitivity::BURST_MARK
        )));
        assert!(open("fitted to r/run.json: write latency under load, average 22 us (twin 22): the protocol's load does not fill the buffer; and the skewed WA"));
        assert!(open("fitted to r/run.json: the drive's write burst after idle never filled its buffer (300 MiB): only sizes whose twin's burst did not fill either (8, 16 MiB)"));
        assert!(open("emu:pm9a3's"));
    }

    #[test]
    fn an_slc_share_fitted_as_a_lower_bound_is_ranged_from_it_up() {
        let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
        let k = range_knobs()
            .find(|k| k.name == "slc.slc_share")
            .expect("the SLC cache is a range knob");
        let with = |share: &str, why: &str| {
            let t = set(base, "slc", "slc_share", share, why);
            set(
                &t,
                "slc",
                "slc_program_us",
                "400",
                "fitted to the init's throughput",
            )
        };
        let slc = |t: &str| {
            let p = Profile::parse(t, &[]).unwrap();
            (p.slc.slc_share, p.slc.slc_program_us)
        };
        // Fitted to the init's WA alone: settled, out of the range.
        let exact = with(
            "0.03",
            "fitted to the hidden drive's run: the cache's folds",
        );
        assert!(identified(&exact, k));
        // A lower bound: in the range, from its own share (end 0 moves nothing) to 0.1 with its
        // own program time.
        let bound = with(
            "0.03",
            &format!("fitted to the run: {LOWER_BOUND} of the share"),
        );
        assert!(!identified(&bound, k));
        assert_eq!(apply(&bound, k, 0).unwrap(), bound);
        assert_eq!(slc(&apply(&bound, k, 1).unwrap()), (0.1, 400.0));
        // A bound above the knob's end leaves nothing to span.
        let large = with(
            "0.2",
            &format!("fitted to the run: {LOWER_BOUND} of the share"),
        );
        assert_eq!(apply(&large, k, 1).unwrap(), large);
        // Without a cache the knob spans none to a tenth at a sixth of the native program.
        let none = set(base, "slc", "slc_share", "0", "the fit's best guess");
        let native = Profile::parse(base, &[]).unwrap().nand.program_us;
        assert_eq!(slc(&apply(&none, k, 0).unwrap()).0, 0.0);
        let (share, program) = slc(&apply(&none, k, 1).unwrap());
        assert_eq!(share, 0.1);
        assert!((program - (native / 6.0).round()).abs() < 1.0, "{program}");
    }

    #[test]
    fn channels_the_sequential_read_bounds_span_from_their_rate_up() {
        let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
        let k = range_knobs()
            .find(|k| k.name == "nand.channel_mb_s")
            .expect("the channels' rate is a range knob");
        let rate = |t: &str| Profile::parse(t, &[]).unwrap().nand.channel_mb_s;
        // The base's rate: the knob spans 800 to 3600.
        assert!(!identified(base, k));
        assert_eq!(rate(&apply(base, k, 0).unwrap()), 800.0);
        assert_eq!(rate(&apply(base, k, 1).unwrap()), 3600.0);
        // Raised by the read stage: open, from its own rate up.
        let why =
            format!("fitted to the run: sequential read 6973 MB/s over 2 channels: {LOWER_BOUND}");
        let bound = set(base, "nand", "channel_mb_s", "3000", &why);
        assert!(!identified(&bound, k));
        assert_eq!(rate(&apply(&bound, k, 0).unwrap()), 3000.0);
        assert_eq!(rate(&apply(&bound, k, 1).unwrap()), 3600.0);
        // Above the knob's end: nothing to span.
        let fast = set(base, "nand", "channel_mb_s", "3835.1667", &why);
        assert_eq!(apply(&fast, k, 1).unwrap(), fast);
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

    #[test]
    fn an_end_that_builds_no_drive_at_the_twins_op_starts_where_one_builds_or_is_none() {
        let mut t = ssdiq_emu::profile::builtin("pm9a3").unwrap().to_string();
        for (s, k, v) in [
            ("drive", "capacity", "\"1GiB\""),
            ("nand", "channels", "32"),
            ("drive", "op", "0.04"),
        ] {
            t = set(&t, s, k, v, "test");
        }
        assert!(!builds(&t));
        let op = |t: &str| Profile::parse(t, &[]).unwrap().drive.op;
        // A WA the end meets at an OP that builds: conditioned there.
        let target = uniform_waf(&at_op(&t, 0.1), 1).unwrap();
        let c = conditioned(&t, target, 1)
            .unwrap()
            .expect("a drive that builds");
        assert!(builds(&c));
        assert!((op(&c) / 0.1 - 1.0).abs() < 0.1, "{}", op(&c));
        // A WA that would take an OP too low to build: the run rules the end out.
        assert_eq!(conditioned(&t, target * 4.0, 1).unwrap(), None);
        // A WA no OP gives (below 1, which random writes on a full drive never reach): the
        // nearest OP tried is still a drive the run tells apart.
        assert_eq!(conditioned(&t, 0.5, 1).unwrap(), None);
    }
}
