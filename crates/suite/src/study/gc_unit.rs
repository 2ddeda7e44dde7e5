//! `gc-unit`: the ZNS-like sweep of SSD-iq §5 (Figure 6): zones written sequentially, one at a
//! time, each trimmed whole before it is rewritten, in random order. When a zone covers whole
//! GC units (superblocks) and starts on one, every unit the drive erases holds one zone's data
//! and is wholly invalid when the zone is trimmed: WAF = 1. The smallest such zone size is the
//! drive's GC unit (`result.gc_unit_bytes`).
//!
//! Search: zone sizes in steps of 1 MiB up to 64 MiB, then doubling up to an eighth of the
//! drive, in increasing order; the first size whose steady WAF is at most 1 + [`TOLERANCE`]
//! is the answer once twice that size confirms it and so does the same size in the apart
//! order (below). Then (full length only) the multiple writers follow-up of Figure 6b: 2, 4
//! and 8 zones open at once at twice the unit found.
//!
//! Why the apart order: under the random order, a drive with a large spare (emu:7450max, 40%
//! OP) can leave the units that a trimmed zone half-emptied until the zone beside it is
//! trimmed too, so zones of half a unit reach WAF 1 as well. `zns:SIZE:apart` rewrites the
//! zones written next to each other half a round apart; a unit spanning several zones then
//! stays partly valid for half a round, more than the spare holds, while a zone of whole units
//! still frees its units at once. Only a whole unit passes both orders.
//!
//! Invariants: every job's byte bound is a whole number of zones (trims and writes), so each job ends on a zone
//! boundary and the next starts on one (a job cut mid-zone would shift every later zone
//! against the drive's units). Apart-order jobs are whole rounds, two of warm-up and one
//! measured, so the measured round (a new stream's round 0) is the apart order of the warm-up's
//! last round (an odd one).

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;
use ssdiq_workload::units::format_size;
use ssdiq_workload::Op;

use super::bench::{values, Bench};
use crate::observe::Unit;
use crate::target::SuiteError;

const MIB: u64 = 1 << 20;
/// WAF at or below 1 + this counts as 1 (the emulated drive's buffer can even take it below 1:
/// a zone trimmed while still buffered is never programmed).
pub const TOLERANCE: f64 = 0.01;
const BS: u64 = 128 * 1024;
const QD: u32 = 4;
pub const ONE_WRITER: &str = "one zone open";
/// Open zones of the multiple-writers follow-up (Figure 6b), at twice the unit.
const FOLLOW_UP: [u32; 3] = [2, 4, 8];
/// One zone open, zones rewritten in the apart order (`zns:SIZE:apart`).
pub const APART: &str = "neighbours apart";

/// Drive writes of warm-up and of measurement. Quick runs keep them: zones smaller than the
/// unit only show their WAF once the drive has used up the units that happen to be wholly
/// invalid, after about two drive writes (a shorter run finds too small a unit); quick runs
/// skip the multiple-writers follow-up instead.
const DRIVE_WRITES: (f64, f64) = (2.0, 1.0);

/// The zone sizes tried, in order.
pub fn candidates(capacity: u64) -> Vec<u64> {
    let max = capacity / 8;
    let mut out: Vec<u64> = (1..=64).map(|i| i * MIB).filter(|&s| s <= max).collect();
    let mut s = 128 * MIB;
    while s <= max {
        out.push(s);
        s *= 2;
    }
    out
}

/// Steady WAF of zones of `zone` bytes with `open` zones open, in random or apart order;
/// `None` when stopped.
fn measure(
    b: &mut Bench<'_>,
    zone: u64,
    open: u32,
    apart: bool,
) -> Result<Option<super::bench::Measured>, SuiteError> {
    let (warm, measured) = DRIVE_WRITES;
    let pattern = format!(
        "zns:{}x{open}{}",
        format_size(zone),
        if apart { ":apart" } else { "" }
    );
    b.reset()?;
    for (i, dw) in [warm, measured].into_iter().enumerate() {
        if b.stopped() {
            return Ok(None);
        }
        let mut j = b.job("write", &pattern, BS, QD);
        let zones = if apart {
            // Whole rounds of the zones the order uses (a multiple of 4).
            (j.range_bytes / zone / 4 * 4) * dw as u64
        } else {
            ((j.range_bytes as f64 * dw) / zone as f64).ceil().max(1.0) as u64
        };
        // The bound counts trimmed bytes too: each zone is one zone of trims and one of writes.
        j.bound.bytes = Some(2 * zones * zone);
        let m = b.run(j)?;
        if i == 1 && !b.stopped() {
            return Ok(Some(m));
        }
    }
    Ok(None)
}

fn point(b: &mut Bench<'_>, zone: u64, open: u32, apart: bool) -> Result<Option<f64>, SuiteError> {
    let (warm, measured) = DRIVE_WRITES;
    let series = match (open, apart) {
        (1, false) => ONE_WRITER.to_string(),
        (1, true) => APART.to_string(),
        _ => format!("{open} zones open"),
    };
    b.begin(
        format!(
            "zones of {}, {open} open{}",
            format_size(zone),
            if apart { ", apart" } else { "" }
        ),
        Unit::Bytes,
        b.capacity() as f64 * (warm + measured),
    );
    let Some(m) = measure(b, zone, open, apart)? else {
        return Ok(None);
    };
    let v = values(&[
        ("waf", m.waf),
        ("zone_bytes", Some(zone as f64)),
        ("open_zones", Some(open as f64)),
        ("write_mb_s", m.mb_s(Op::Write)),
    ]);
    b.point(series, zone as f64 / MIB as f64, format_size(zone), v);
    Ok(m.waf)
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let cands = candidates(b.capacity());
    // The count is not known before the unit is found: plan for the sweep's worst case with
    // one apart-order check (the progress count grows if more are needed).
    b.plan(cands.len() + 1 + if b.quick { 0 } else { FOLLOW_UP.len() });
    // WAF with one zone open, per zone size: a size already measured (as the confirmation of a
    // smaller one) is not measured again.
    let mut seen: BTreeMap<u64, f64> = BTreeMap::new();
    let mut random_waf = |b: &mut Bench<'_>, zone: u64| -> Result<Option<f64>, SuiteError> {
        if let Some(w) = seen.get(&zone) {
            return Ok(Some(*w));
        }
        let w = point(b, zone, 1, false)?;
        if let Some(w) = w {
            seen.insert(zone, w);
        }
        Ok(w)
    };
    let mut found = None;
    for (i, &zone) in cands.iter().enumerate() {
        let Some(waf) = random_waf(b, zone)? else {
            return Ok(());
        };
        if !flat(waf) {
            continue;
        }
        // Confirm at twice the size, where the drive holds enough zones of it.
        let twice = 2 * zone;
        if twice <= b.capacity() / 4 {
            let Some(w2) = random_waf(b, twice)? else {
                return Ok(());
            };
            if !flat(w2) {
                continue;
            }
        }
        // Confirm in the apart order, which a part of a unit does not pass.
        let Some(mut best) = point(b, zone, 1, true)? else {
            return Ok(());
        };
        if !flat(best) {
            continue;
        }
        // A zone just short of a unit leaves only a sliver of each unit valid, which a large
        // spare can hold: its WAF is within the tolerance of 1 but above that of the unit.
        // Follow the apart order's WAF down to where it stops falling.
        found = Some(zone);
        for &next in &cands[i + 1..] {
            let Some(w) = point(b, next, 1, true)? else {
                return Ok(());
            };
            if w >= best {
                break;
            }
            (best, found) = (w, Some(next));
        }
        break;
    }
    b.plan_remaining(if b.quick || found.is_none() {
        0
    } else {
        FOLLOW_UP.len()
    });
    if let (Some(unit), false) = (found, b.quick) {
        for open in FOLLOW_UP {
            if point(b, 2 * unit, open, false)?.is_none() {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// WAF at or below 1 + the tolerance: a zone size that looks like whole units.
fn flat(waf: f64) -> bool {
    waf <= 1.0 + TOLERANCE
}

/// (zone bytes, WAF) of the points of `series`, in the order they were measured.
fn wafs(points: &[StudyPoint], series: &str) -> Vec<(u64, f64)> {
    points
        .iter()
        .filter(|p| p.series == series)
        .filter_map(|p| Some((*p.values.get("zone_bytes")? as u64, *p.values.get("waf")?)))
        .collect()
}

fn waf_at(wafs: &[(u64, f64)], zone: u64) -> Option<f64> {
    wafs.iter().find(|(z, _)| *z == zone).map(|(_, w)| *w)
}

/// The smallest zone size with WAF <= 1 + tolerance that a zone of twice its size confirms
/// (or that is the largest size tried) and that the apart order confirms where it was tried;
/// then, along the larger sizes tried in the apart order, the last one while its WAF falls.
pub fn unit_of(points: &[StudyPoint]) -> Option<u64> {
    let (one, mut apart) = (wafs(points, ONE_WRITER), wafs(points, APART));
    let passes =
        |z: u64| waf_at(&one, 2 * z).is_none_or(flat) && waf_at(&apart, z).is_none_or(flat);
    let first = one
        .iter()
        .filter(|&&(z, w)| flat(w) && passes(z))
        .map(|&(z, _)| z)
        .min()?;
    apart.retain(|&(z, _)| z >= first);
    apart.sort_by_key(|&(z, _)| z);
    let mut unit = first;
    if let Some((&(_, mut best), rest)) = apart.split_first().filter(|(a, _)| a.0 == first) {
        for &(z, w) in rest {
            if w >= best {
                break;
            }
            (unit, best) = (z, w);
        }
    }
    Some(unit)
}

fn apart_waf(points: &[StudyPoint], zone: u64) -> Option<f64> {
    waf_at(&wafs(points, APART), zone)
}

/// Sizes that are not multiples of the unit yet reached WAF ~1 in random order, when the
/// apart order confirmed the unit: the spare space hid them, and the apart order told them
/// apart (so they are explained, not doubtful).
fn hidden_by_spare(points: &[StudyPoint]) -> Option<String> {
    let unit = unit_of(points).filter(|&u| apart_waf(points, u).is_some())?;
    let mut sizes: Vec<u64> = wafs(points, ONE_WRITER)
        .into_iter()
        .filter(|&(z, w)| flat(w) && z % unit != 0)
        .map(|(z, _)| z)
        .collect();
    sizes.sort_unstable();
    let named = match sizes.as_slice() {
        [] => return None,
        [one] => format!("zones of {}", format_size(*one)),
        [a, b] => format!("zones of {} and {}", format_size(*a), format_size(*b)),
        [first, .., last] => format!(
            "{} zone sizes from {} to {}",
            sizes.len(),
            format_size(*first),
            format_size(*last)
        ),
    };
    Some(format!(
        "{named}, not multiples of {}, reach WAF <= {:.2} in random order as well: the drive's spare space waits for the trims beside them; only the apart order tells them from the unit",
        format_size(unit),
        1.0 + TOLERANCE,
    ))
}

/// The apart-order checks in one line: each size's WAF in that order, and where it is lowest.
fn apart_findings(points: &[StudyPoint]) -> Option<String> {
    let mut apart = wafs(points, APART);
    apart.sort_by_key(|&(z, _)| z);
    let unit = unit_of(points);
    let list: Vec<String> = apart
        .iter()
        .map(|&(z, w)| {
            let mark = if Some(z) == unit { " (the unit)" } else { "" };
            format!("{} {w:.4}{mark}", format_size(z))
        })
        .collect();
    (!list.is_empty()).then(|| {
        format!(
            "with neighbours apart (zones written one after the other rewritten half a round apart), WAF: {}; the unit is where this WAF stops falling (a zone just short of a unit leaves a sliver of it valid, which the spare space can hold)",
            list.join(", ")
        )
    })
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    match unit_of(points) {
        Some(u) => {
            result.insert("gc_unit_bytes".into(), u as f64);
            findings.push(format!(
                "GC unit: {} ({})",
                format_size(u),
                if apart_waf(points, u).is_some() {
                    format!("where the WAF with neighbours apart stops falling, searching up from the first zone size with WAF <= {:.2} in random order, at twice the size and with neighbours apart", 1.0 + TOLERANCE)
                } else {
                    format!("the smallest zone size with WAF <= {:.2} with one zone open, confirmed at twice the size", 1.0 + TOLERANCE)
                }
            ));
        }
        None => findings.push(format!(
            "no zone size tried reached WAF <= {:.2}: the GC unit is larger than the largest zone tried (an eighth of the drive), or the drive does not place zones apart",
            1.0 + TOLERANCE
        )),
    }
    findings.extend(apart_findings(points));
    findings.extend(hidden_by_spare(points));
    let doubts = ambiguities(points);
    result.insert(
        "gc_unit_ambiguous".into(),
        if doubts.is_empty() { 0.0 } else { 1.0 },
    );
    findings.extend(doubts.into_iter().map(|d| format!("ambiguous: {d}")));
    for p in points
        .iter()
        .filter(|p| p.series != ONE_WRITER && p.series != APART)
    {
        if let Some(w) = p.values.get("waf") {
            findings.push(format!("{} of {}: WAF {w:.2}", p.series, p.x_label));
        }
    }
    (result, findings)
}

/// The unit found beside the one the drive states (the emulated drive's superblock).
pub fn against_actual(found: u64, actual: u64) -> String {
    let verdict = if found == actual {
        "exact".to_string()
    } else {
        format!("{:+.0}%", (found as f64 / actual as f64 - 1.0) * 100.0)
    };
    format!(
        "the drive's own GC unit (superblock): {}; found {}: {verdict}",
        format_size(actual),
        format_size(found)
    )
}

/// What makes the inference doubtful, from the one-writer points measured: a size at WAF ~1
/// that its double does not confirm (a spike), a size that is not a multiple of the unit yet
/// reaches WAF ~1 too (GC that can wait for whole zones, as with a large OP), and sizes below
/// the unit within three times the tolerance of 1 (a near miss, which noise could flip).
pub fn ambiguities(points: &[StudyPoint]) -> Vec<String> {
    let (one, apart) = (wafs(points, ONE_WRITER), wafs(points, APART));
    let apart_failed = |z: u64| waf_at(&apart, z).is_some_and(|w| !flat(w));
    let unit = unit_of(points);
    let confirmed = unit.is_some_and(|u| waf_at(&apart, u).is_some());
    let mut out = Vec::new();
    for &(z, w) in &one {
        let size = format_size(z);
        if Some(z) == unit || apart_failed(z) {
            continue;
        }
        if flat(w) {
            match (waf_at(&one, 2 * z), unit) {
                (Some(w2), _) if !flat(w2) => out.push(format!(
                    "zones of {size} reached WAF {w:.3} but zones of {} did not ({w2:.3}): a spike at one size, not a unit",
                    format_size(2 * z)
                )),
                (_, Some(u)) if z % u != 0 && !confirmed => out.push(format!(
                    "zones of {size} reach WAF {w:.3} too, not a multiple of {}: GC may wait until whole zones are trimmed (a large OP), hiding the unit",
                    format_size(u)
                )),
                _ => {}
            }
        } else if unit.is_some_and(|u| z < u) && w <= 1.0 + 3.0 * TOLERANCE {
            out.push(format!(
                "zones of {size} came within {:.1}% of WAF 1 ({w:.3}): near the {:.0}% tolerance",
                (w - 1.0) * 100.0,
                TOLERANCE * 100.0
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(wafs: &[(u64, f64)]) -> Vec<StudyPoint> {
        series(ONE_WRITER, wafs)
    }

    fn series(name: &str, wafs: &[(u64, f64)]) -> Vec<StudyPoint> {
        wafs.iter()
            .map(|&(mib, w)| StudyPoint {
                series: name.into(),
                x: mib as f64,
                x_label: format!("{mib}MiB"),
                values: [
                    ("waf".to_string(), w),
                    ("zone_bytes".into(), (mib * MIB) as f64),
                ]
                .into_iter()
                .collect(),
                target_s: 1.0,
            })
            .collect()
    }

    #[test]
    fn a_clean_sweep_is_not_ambiguous() {
        let mut w: Vec<(u64, f64)> = (1..24).map(|m| (m, 1.3 + 0.01 * m as f64)).collect();
        w.extend([(24, 1.0), (48, 1.0)]);
        let p = pts(&w);
        assert_eq!(unit_of(&p), Some(24 * MIB));
        assert!(ambiguities(&p).is_empty());
        let (r, f) = conclude(&p);
        assert_eq!(r["gc_unit_ambiguous"], 0.0);
        assert!(!f.iter().any(|f| f.starts_with("ambiguous")));
    }

    #[test]
    fn spikes_other_flat_sizes_and_near_misses_are_named() {
        // 12 MiB is flat but 24 MiB is not; 20 MiB is within 2% of 1; the unit is 30 MiB and
        // 45 MiB (not a multiple) is flat too.
        let p = pts(&[
            (12, 1.0),
            (20, 1.02),
            (24, 1.4),
            (30, 1.0),
            (45, 1.005),
            (60, 1.0),
        ]);
        assert_eq!(unit_of(&p), Some(30 * MIB));
        let a = ambiguities(&p);
        assert_eq!(a.len(), 3, "{a:?}");
        assert!(a[0].contains("zones of 12MiB") && a[0].contains("a spike"));
        assert!(a[1].contains("zones of 20MiB came within 2.0%"));
        assert!(a[2].contains("zones of 45MiB") && a[2].contains("not a multiple of 30MiB"));
        let (r, _) = conclude(&p);
        assert_eq!(r["gc_unit_ambiguous"], 1.0);
    }

    #[test]
    fn the_apart_order_rules_out_parts_of_a_unit_and_finds_where_its_waf_is_lowest() {
        // As on emu:7450max (40% OP): half a unit and sizes just short of it pass the random
        // order; the apart order refutes 15 MiB and falls to its lowest at 30 MiB.
        let mut p = pts(&[
            (14, 1.1),
            (15, 1.0),
            (28, 1.0),
            (30, 1.0),
            (56, 1.0),
            (60, 1.0),
        ]);
        p.extend(series(
            APART,
            &[
                (15, 1.10),
                (28, 1.0095),
                (29, 1.007),
                (30, 1.0),
                (31, 1.004),
            ],
        ));
        assert_eq!(unit_of(&p), Some(30 * MIB));
        // Every size that is not a multiple of the unit is explained, none doubtful.
        assert!(ambiguities(&p).is_empty(), "{:?}", ambiguities(&p));
        let (r, f) = conclude(&p);
        assert_eq!(r["gc_unit_bytes"], (30 * MIB) as f64);
        assert_eq!(r["gc_unit_ambiguous"], 0.0);
        assert!(
            f.iter().any(|f| f.contains("30MiB 1.0000 (the unit)")),
            "{f:?}"
        );
        assert!(
            f.iter()
                .any(|f| f.contains("3 zone sizes from 15MiB to 56MiB, not multiples of 30MiB")),
            "{f:?}"
        );
        // Without the apart points, the same sweep stops at half the unit.
        let random_only: Vec<StudyPoint> = p
            .iter()
            .filter(|q| q.series == ONE_WRITER)
            .cloned()
            .collect();
        assert_eq!(unit_of(&random_only), Some(15 * MIB));
    }
}
