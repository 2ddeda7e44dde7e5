//! `streams`: steady write amplification of N interleaved sequential write streams (the SSD-iq
//! artifact's `benchslow`; the paper's "sequential writes aren't enough"): every write is part
//! of a sequential stream, yet a drive that mixes the streams in its erase units pays GC as if
//! the writes were random. Uniform random writes are measured beside them as the reference.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::bench::{plural, Bench};
use super::wa;
use crate::target::SuiteError;

pub const STREAMS: &str = "sequential streams";
pub const UNIFORM: &str = "uniform random (reference)";

fn counts(quick: bool) -> &'static [u32] {
    if quick {
        &[1, 4, 16]
    } else {
        &[1, 2, 4, 8, 16, 32]
    }
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let ns = counts(b.quick);
    b.plan(ns.len() + 1);
    for &n in ns {
        let label = plural(n as u64, "stream");
        if !wa::point(b, &format!("streams:{n}"), STREAMS, n as f64, &label)? {
            return Ok(());
        }
    }
    let most = *ns.last().expect("at least one count") as f64;
    wa::point(b, "uniform", UNIFORM, most, "uniform")?;
    Ok(())
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let mut result = BTreeMap::new();
    let mut findings = Vec::new();
    let waf = |p: &StudyPoint| p.values.get("waf").copied();
    let uniform = points.iter().find(|p| p.series == UNIFORM).and_then(waf);
    if let Some(u) = uniform {
        result.insert("waf_uniform".into(), u);
    }
    let streams: Vec<(&StudyPoint, f64)> = points
        .iter()
        .filter(|p| p.series == STREAMS)
        .filter_map(|p| waf(p).map(|w| (p, w)))
        .collect();
    for (p, w) in &streams {
        result.insert(format!("waf_streams_{}", p.x), *w);
    }
    if let Some((p, w)) = streams.first() {
        findings.push(format!("{}: WAF {w:.2}", p.x_label));
    }
    // The fewest streams at which interleaving already costs as much as half the way from a
    // lone stream to uniform random writes.
    if let (Some((_, one)), Some(u)) = (streams.first(), uniform) {
        if let Some((p, w)) = streams.iter().find(|(_, w)| *w - one >= (u - one) / 2.0) {
            result.insert("streams_half_of_random".into(), p.x);
            findings.push(format!(
                "{}: WAF {w:.2}, half way or more from one stream to uniform random writes ({u:.2})",
                p.x_label
            ));
        } else {
            findings.push(format!(
                "no stream count reaches half the WAF of uniform random writes ({u:.2})"
            ));
        }
    }
    if let (Some((p, w)), Some(u)) = (streams.last(), uniform) {
        findings.push(format!(
            "{}: WAF {w:.2} ({:+.0}% against uniform random writes)",
            p.x_label,
            (w / u - 1.0) * 100.0
        ));
    }
    (result, findings)
}
