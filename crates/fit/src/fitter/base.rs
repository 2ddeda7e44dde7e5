//! Where a twin starts: the data-center library profile with the nearest datasheet.

use ssdiq_emu::Profile;
use ssdiq_schema::figures as keys;

use crate::observed::Observed;

/// Profiles a twin may start from: the data-center drives of the library (the consumer and
/// SATA profiles model mechanisms the protocol's figures cannot identify).
pub fn bases() -> Vec<(&'static str, Profile)> {
    ssdiq_emu::profile::builtin_profiles()
        .filter_map(|(name, text)| Some((name, Profile::parse(text, &[]).ok()?)))
        .filter(|(_, p)| p.group() == "data-center")
        .collect()
}

/// The library profile whose datasheet is nearest the drive's (log distance over the
/// datasheet's throughputs; measured figures stand in for missing datasheet values).
pub fn nearest_base(obs: &Observed) -> &'static str {
    let want = [
        obs.spec
            .seq_read_mb_s
            .or_else(|| obs.get(keys::SEQ_READ_MB_S)),
        obs.spec
            .seq_write_mb_s
            .or_else(|| obs.get(keys::SEQ_WRITE_FREE_POOL_MB_S)),
        obs.spec
            .rand_read_kiops
            .or_else(|| obs.get(keys::RAND_READ_KIOPS)),
        obs.spec
            .rand_write_kiops
            .or_else(|| obs.get(&keys::of(keys::RAND_WRITE_KIOPS, "uniform"))),
    ];
    let mut best = ("default", f64::INFINITY);
    for (name, p) in bases() {
        let have = [
            p.spec.seq_read_mb_s,
            p.spec.seq_write_mb_s,
            p.spec.rand_read_kiops,
            p.spec.rand_write_kiops,
        ];
        let d: f64 = want
            .iter()
            .zip(have)
            .filter_map(|(w, h)| {
                Some(
                    (w.filter(|w| *w > 0.0)? / h.filter(|h| *h > 0.0)?)
                        .ln()
                        .powi(2),
                )
            })
            .sum();
        if d < best.1 {
            best = (name, d);
        }
    }
    best.0
}
