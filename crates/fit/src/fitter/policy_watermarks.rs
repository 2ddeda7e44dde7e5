//! Whether the skewed WA tell the GC policy apart at every GC watermark pair the run leaves
//! open: the WA stage and the window stage score the policy families at the twin's watermarks
//! only, and the watermarks move the skewed WA as a family does.
//!
//! Seed 65's hidden drive 1 (greedy, all relocated data apart, watermarks 8/4) had a twin with
//! cost-benefit at the base's 3/2 that scored best there, was marked fitted, and missed the
//! run's own two-zone WA by 12.5% (2.62 for 2.99); seed 64's hidden drive 3 did the same with
//! the GC mode (docs/fit.md, "Seed 64 again").
//!
//! Invariants and why:
//! - The stage runs only where the policy was fitted, the watermarks were not, and the range
//!   would hold the policy as identified (its frontier's share fitted too): a fitted pair is the
//!   drive's, and a policy the range spans already needs no runs to say so. It runs last of the
//!   fitting stages, as a later WA stage would mark the policy fitted again.
//! - The pairs are the range knob's ends and the twin's own, but the pair the WA stage scored
//!   the families at (the twin's own, unless the watermarks stage moved it as a guess).
//! - It changes no value: a rival family that scores, at either end of the range's watermark
//!   knob (each with OP fitted to the uniform WA, as the WA stage scores its candidates), as
//!   well as the twin does at its own (within the factor a family must win by, or within the
//!   runs' noise) is a drive the run cannot tell from the twin. The policy is then the fit's
//!   best guess, and the twin's range carries the other families (docs/fit.md).
//! - Rivals are the other families only, with relocated data in the host's log and all apart
//!   (2R has no frontier): the range spans the frontier's share apart from the family.
//! - The first rival that ties ends the stage: the answer is known, and every rival costs an
//!   OP search. A rival that builds no drive at a pair (too few superblocks for its
//!   watermarks) is no rival.

use super::wa::{
    buildable, host_log_edits, score_candidate, share_edits, skewed_targets, Edits, SHARE_GAIN, TIE,
};
use super::{How, Work};
use crate::profile_text::get;
use crate::sensitivity::FAMILIES;
use crate::FitError;

/// The watermark pairs (low, critical) a rival is scored at: the ends of the range's
/// watermark knob (`sensitivity::KNOBS`, "gc watermarks"), the one further from the library's
/// 3/2 first: the likelier to tie, and the first tie ends the stage.
const ENDS: [(u32, u32); 2] = [(8, 4), (2, 1)];

/// Returns whether the policy was marked open (no value changes either way).
pub(super) fn open_policy_at_other_watermarks(w: &mut Work) -> Result<bool, FitError> {
    let fitted = |key: &str| w.params.get(key).is_some_and(|p| p.how == How::Fitted);
    let skew = skewed_targets(w.obs);
    let (Some(target), Some(scored_at)) = (w.obs.wa("uniform"), w.wa_watermarks) else {
        return Ok(false);
    };
    if !fitted("drive.policy") || fitted("gc.low_watermark") || skew.is_empty() {
        return Ok(false);
    }
    let in_range = crate::range::unidentified(&w.text)
        .iter()
        .any(|k| k.name == POLICY_KNOB);
    if in_range {
        return Ok(false);
    }
    let p = w.profile()?;
    let own_pair = (p.gc.low_watermark, p.gc.critical_watermark);
    let own_policy = p.drive.policy.to_string();
    let op = p.drive.op;
    let own = score_candidate(w, &Vec::new(), None, Some(op), target, &skew)?;
    let mut pairs: Vec<(u32, u32)> = ENDS.to_vec();
    if !pairs.contains(&own_pair) {
        pairs.push(own_pair);
    }
    for pair in pairs.into_iter().filter(|q| *q != scored_at) {
        for (label, edits) in rivals(&own_policy) {
            let mut e = edits;
            e.push(("gc", "low_watermark", pair.0.to_string()));
            e.push(("gc", "critical_watermark", pair.1.to_string()));
            let rival = match buildable(score_candidate(w, &e, None, Some(op), target, &skew)) {
                Ok(Some(r)) => r,
                // Too few superblocks for the pair's watermarks: no drive, no rival.
                Ok(None) | Err(FitError::Profile(_)) => continue,
                Err(e) => return Err(e),
            };
            if ties(rival.score, own.score) {
                let value = get(&w.text, "drive", "policy").unwrap_or_default();
                let why = format!(
                    "the fit's best guess: the skewed WA do not tell the GC policies apart at the GC watermarks the run leaves open ({own_policy} at {}/{} scored {:.2e}; {label} at {}/{} {:.2e})",
                    own_pair.0, own_pair.1, own.score, pair.0, pair.1, rival.score
                );
                w.set("drive", "policy", value, How::Kept, why, None);
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The range's knob of the policy families (`sensitivity::KNOBS`).
const POLICY_KNOB: &str = "drive.policy";

/// Whether a rival's `score` is not told apart from the twin's `own`: within the factor a family
/// must win by in the WA stage (`wa::SHARE_GAIN`), on the same footing, or within the runs' noise.
fn ties(score: f64, own: f64) -> bool {
    score * SHARE_GAIN <= own + TIE || score <= super::rewrite::NOISE
}

/// The families other than `own`, each with relocated data in the host's log and all apart
/// (2R, which merges victims in place, with neither).
fn rivals(own: &str) -> Vec<(String, Edits)> {
    let mut out = Vec::new();
    for f in FAMILIES.into_iter().filter(|f| *f != own) {
        out.push((
            format!("{f}, relocated data with the host's"),
            host_log_edits(f),
        ));
        if !f.starts_with("2r") {
            out.push((format!("{f}, relocated data apart"), share_edits(f, 1.0)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{rivals, ties, ENDS, POLICY_KNOB};
    use crate::sensitivity::{Value, KNOBS};

    #[test]
    fn the_pairs_are_the_range_knobs_ends_and_the_policy_knob_is_in_the_range() {
        let knob = KNOBS.iter().find(|k| k.name == "gc watermarks").unwrap();
        let end = |i: usize| {
            let at = |key: &str| match knob.ends[i].iter().find(|s| s.key == key).unwrap().value {
                Value::Literal(v) => v.parse::<u32>().unwrap(),
                _ => panic!("a literal"),
            };
            (at("low_watermark"), at("critical_watermark"))
        };
        assert_eq!(ENDS, [end(1), end(0)]);
        assert!(KNOBS.iter().any(|k| k.name == POLICY_KNOB && k.in_range));
    }

    #[test]
    fn a_rival_ties_within_a_factor_two_or_the_noise() {
        assert!(ties(0.02, 0.0101));
        assert!(!ties(0.03, 0.0101));
        assert!(ties(5e-4, 1e-6));
    }

    #[test]
    fn the_rivals_are_every_other_family_with_and_without_a_frontier_but_2r() {
        let labels = |own: &str| rivals(own).into_iter().map(|r| r.0).collect::<Vec<_>>();
        assert_eq!(
            labels("cost-benefit"),
            [
                "greedy, relocated data with the host's",
                "greedy, relocated data apart",
                "2r-greedy, relocated data with the host's"
            ]
        );
        assert_eq!(labels("2r-greedy").len(), 4);
        assert!(rivals("greedy")
            .iter()
            .all(|(_, e)| !e.iter().any(|s| s.2 == "\"greedy\"")));
    }
}
