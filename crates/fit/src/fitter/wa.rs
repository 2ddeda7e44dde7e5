//! The WA stage: OP by the secant method for each GC policy and buffer candidate, the pair
//! whose skewed WA fits best.

use std::collections::BTreeMap;

use ssdiq_schema::figures as keys;

use super::{num, res, How, Work};
use crate::twin::{measure, Part};
use crate::FitError;

/// OP by the secant method on ln WA, for one GC policy; returns (op, twin's uniform WA).
fn op_for(
    w: &Work,
    policy: &[(&str, &str, String)],
    target: f64,
    start: Option<f64>,
) -> Result<(f64, f64), FitError> {
    let wa_at = |op: f64| -> Result<f64, FitError> {
        let mut edits = policy.to_vec();
        edits.push(("drive", "op", num(op)));
        let t = w.with(&edits);
        let f = measure(
            &t,
            &w.spec,
            Part::Writes {
                uniform: true,
                skewed: false,
            },
            w.seed,
            w.obs.quick,
        )?;
        f.get(&keys::of(keys::WAF_MEASURED, "uniform"))
            .copied()
            .ok_or_else(|| FitError::Twin("the twin measured no uniform WA".into()))
    };
    let g = |wa: f64| (wa / target).ln();
    // From the greedy model's estimate, or from a neighbouring candidate's answer (closer).
    let (start, step) = match start {
        Some(s) => (s, 1.05),
        None => (
            ssdiq_flash::analytic::op_from_greedy_waf(target, None)
                .unwrap_or(0.12)
                .clamp(0.02, 2.0),
            1.25,
        ),
    };
    let (mut a, mut fa) = (start, g(wa_at(start)?));
    let mut b = (start * step).min(3.0);
    let mut wb = wa_at(b)?;
    let mut fb = g(wb);
    for _ in 0..6 {
        if fb.abs() < 0.004 || (fb - fa).abs() < 1e-9 {
            break;
        }
        let next = (b - fb * (b - a) / (fb - fa)).clamp(0.01, 3.0);
        (a, fa) = (b, fb);
        b = next;
        wb = wa_at(b)?;
        fb = g(wb);
    }
    if fa.abs() < fb.abs() {
        // The last step overshot: keep the better of the two.
        let wa = target * fa.exp();
        return Ok((a, wa));
    }
    Ok((b, wb))
}

/// Profile edits: (section, key, TOML literal; empty: remove the key).
type Edits = Vec<(&'static str, &'static str, String)>;

/// A GC policy and write buffer candidate, scored on the skewed workloads' WA.
struct Scored {
    /// Sum of squared ln(twin / drive) over the skewed WA figures.
    score: f64,
    policy: usize,
    buffer_kib: Option<u64>,
    op: f64,
    uniform_wa: f64,
    skewed: BTreeMap<String, f64>,
}

/// Write buffers a drive may have (the reference notes' §3.2: 64-256 MiB, and smaller
/// staging buffers).
const BUFFERS_MIB: [u64; 6] = [8, 16, 32, 64, 128, 256];

/// A later candidate replaces an earlier one only if it fits better by more than this (a
/// squared log residual: about 1% on one figure), so that candidates the figures cannot tell
/// apart leave the nearest profile's choice, which comes first.
pub(super) const TIE: f64 = 1e-4;

/// The candidate buffers in KiB, the base's first.
pub(super) fn buffer_candidates(base_kib: u64) -> Vec<u64> {
    let mut v = vec![base_kib];
    v.extend(
        BUFFERS_MIB
            .iter()
            .map(|m| m * 1024)
            .filter(|k| *k != base_kib),
    );
    v
}

pub(super) fn fit_wa(w: &mut Work) -> Result<(), FitError> {
    let obs = w.obs;
    let Some(target) = obs.wa("uniform") else {
        return Ok(());
    };
    let kind = if obs.media_counters {
        "measured"
    } else {
        "implied"
    };
    let skew: Vec<(&str, f64)> = ["twozone", "zipf"]
        .into_iter()
        .filter_map(|k| Some((k, obs.wa(k)?)))
        .collect();
    // The base's own policy, and greedy where the base has another (cost-benefit on a drive
    // that exploits skew), each with relocated data in the host's log or apart. The base's
    // comes first, so it wins a tie: the protocol's skews can leave two policies alike that
    // other skews tell apart, and the nearest profile is then the better guess.
    let base_policy = w.profile()?.drive.policy.to_string();
    let mut policies = vec![base_policy.clone()];
    if base_policy != "greedy" {
        policies.push("greedy".to_string());
    }
    let mut candidates: Vec<(String, Edits)> = Vec::new();
    for p in &policies {
        let lit = format!("\"{p}\"");
        candidates.push((
            format!("{p}, relocated data with the host's"),
            vec![
                ("drive", "policy", lit.clone()),
                ("drive", "gc_frontier", "false".into()),
                ("drive", "gc_frontier_share", String::new()),
            ],
        ));
        candidates.push((
            format!("{p} + GC frontier (relocated data apart)"),
            vec![
                ("drive", "policy", lit),
                ("drive", "gc_frontier", "true".into()),
                ("drive", "gc_frontier_share", "1.0".into()),
            ],
        ));
    }
    // A buffer holds pages whose old copies stay valid on the flash until they are
    // programmed, so on a small (scaled) drive it takes spare space, and where it absorbs
    // rewrites it keeps the hottest pages off the flash: both move the skewed workloads' WA.
    let buffers: Vec<Option<u64>> = if skew.is_empty() {
        vec![None]
    } else {
        buffer_candidates(w.profile()?.buffer.buffer_kib)
            .into_iter()
            .map(Some)
            .collect()
    };
    let mut best: Option<Scored> = None;
    let mut scores: Vec<(usize, u64, f64, f64)> = Vec::new();
    for (i, (_, policy)) in candidates.iter().enumerate() {
        let mut hint = None;
        for &buffer_kib in &buffers {
            let mut with_buffer = policy.clone();
            if let Some(b) = buffer_kib {
                with_buffer.push(("buffer", "buffer_kib", b.to_string()));
            }
            let (op, wa) = op_for(w, &with_buffer, target, hint)?;
            hint = Some(op);
            let mut score = 0.0;
            let mut twin = BTreeMap::new();
            if !skew.is_empty() {
                let mut edits = with_buffer.clone();
                edits.push(("drive", "op", num(op)));
                twin = measure(
                    &w.with(&edits),
                    &w.spec,
                    Part::Writes {
                        uniform: false,
                        skewed: true,
                    },
                    w.seed,
                    w.obs.quick,
                )?;
                for (k, v) in &skew {
                    let t = twin
                        .get(&keys::of(keys::WAF_MEASURED, k))
                        .copied()
                        .unwrap_or(f64::NAN);
                    score += (t / v).ln().powi(2);
                }
            }
            if let Some(b) = buffer_kib {
                scores.push((i, b, score, op));
            }
            if best.as_ref().is_none_or(|b| score < b.score - TIE) {
                best = Some(Scored {
                    score,
                    policy: i,
                    buffer_kib,
                    op,
                    uniform_wa: wa,
                    skewed: twin,
                });
            }
        }
    }
    let Scored {
        policy: i,
        buffer_kib,
        op,
        uniform_wa: wa,
        skewed: twin,
        ..
    } = best.expect("two candidates");
    let chosen: Vec<_> = scores.into_iter().filter(|s| s.0 == i).collect();
    w.buffer_scores = chosen.iter().map(|s| (s.1, s.2)).collect();
    w.buffer_ops = chosen.iter().map(|s| (s.1, s.3)).collect();
    let (what, policy) = &candidates[i];
    let skew_text: Vec<String> = skew
        .iter()
        .map(|(k, v)| {
            let t = twin
                .get(&keys::of(keys::WAF_MEASURED, k))
                .copied()
                .unwrap_or(f64::NAN);
            format!("{k} WA {v:.2} (twin {t:.2})")
        })
        .collect();
    w.set(
        "drive",
        "op",
        num(op),
        How::Fitted,
        format!("uniform WA {target:.2} ({kind}; twin {wa:.2})"),
        Some(res(wa, target)),
    );
    if skew.is_empty() {
        return Ok(());
    }
    let why = format!("{what}: the policy whose {} fit best", skew_text.join(", "));
    for (s, k, v) in policy {
        if v.is_empty() {
            w.text = crate::profile_text::unset(&w.text, s, k);
        } else {
            w.set(s, k, v.clone(), How::Fitted, why.clone(), None);
        }
    }
    if let Some(b) = buffer_kib {
        w.set(
            "buffer",
            "buffer_kib",
            b.to_string(),
            How::Fitted,
            format!(
                "{}: the buffer whose skewed WA fit best (buffered pages hold spare space, and absorbed rewrites never reach the flash)",
                skew_text.join(", ")
            ),
            None,
        );
    }
    Ok(())
}
