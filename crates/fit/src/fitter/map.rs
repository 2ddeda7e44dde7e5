//! The map stage: whether the drive holds its whole logical-to-physical map in DRAM and, if
//! not, what share of it its cache covers, from the run's map reads (docs/protocol.md): QD1
//! 4 KiB random reads over the first 1/256, 1/64, ... and all of the drive, after the
//! protocol's random writes have left no part of the map compact.
//!
//! Invariants and why:
//! - The model is the emulator's (DFTL with an LRU cache): random reads over a share `s` of
//!   the drive, whose cache covers the share `c` of the map, miss with probability
//!   `max(0, 1 - c / s)`, and a miss adds one map read `m`, so
//!   `lat(s) = b + m * max(0, 1 - c / s)`: `c` is found on a log grid, `b` and `m` by least
//!   squares for each `c`. Above half of the map only the whole drive's reads rise, and `c`
//!   and `m` trade off: the fit is then rough.
//! - A rise at the whole drive below [`RISE`] of the smallest span's latency, or a miss
//!   cheaper than [`MIN_MISS`] of it (no flash read), is no map cache: the map is in DRAM (`map_cache_kib = 0`). The library's data-center profiles
//!   rise 4% (a little more die contention on a wider span); a 64 MiB cache of a 960 GB
//!   drive, 59%.
//! - A map cache's misses only grow with the span, so a curve that falls by more than
//!   [`FALL`] of the smallest span's latency from one span to a wider one is noise, and tells
//!   nothing of the map: the fit keeps the map in DRAM as its guess (FEMU under TCG: 204.7,
//!   175.4, 209.6, 243.2, 260.9, 420.0 and 292.7 us, fitted before as a 9% cache, whose
//!   write-backs the WA stage then paid for with OP 1.1 for FEMU's 0.25).
//! - The map holds 4 bytes per 4 KiB page, so a cache covering `c` of the map of a
//!   full-size drive of F bytes holds `c * F / 1 MiB` KiB (`map_cache_kib` is given at full
//!   size and scaled with the capacity, as the emulator does).
//! - This stage runs before the WA stage: a DRAM-less drive's map write-backs add to its WA,
//!   which OP would otherwise absorb (issue 52's hidden drive 8: OP 0.32 with a 64 MiB
//!   cache, fitted as OP 0.11 without one).

use ssdiq_schema::figures as keys;
use ssdiq_schema::steps::MAP_READS;

use super::{How, Work};
use crate::FitError;

/// A smaller rise over the spans is no map cache.
const RISE: f64 = 0.15;
/// A map miss is a flash read: it costs at least this share of a hit's whole latency (which
/// is a flash read plus transfer and firmware). A smaller fitted miss cost is a rise from
/// something else (issue 52's wider round trip, hidden drive 13, the map in DRAM: 62 us over
/// 1/256 of the drive, 68-72 us over 1/64 and more, fitted as 8.5 us misses of a 0.5%
/// cache).
const MIN_MISS: f64 = 0.3;
/// The largest fall from one span to a wider one, as a share of the smallest span's latency,
/// that a cache's curve may show (the library's: 1% at most).
const FALL: f64 = 0.1;

/// The largest fall from one span to the next wider one, as a share of `first`.
fn largest_fall(first: f64, lat: &[(f64, f64)]) -> f64 {
    lat.windows(2)
        .map(|w| (w[0].1 - w[1].1) / first)
        .fold(0.0, f64::max)
}

/// The smallest span's latency, and each span's share of the drive with its latency; `None`
/// where the run has no map reads (a run before they were added).
fn map_reads(w: &Work) -> Option<(f64, Vec<(f64, f64)>)> {
    let lat: Vec<(f64, f64)> = MAP_READS
        .iter()
        .map(|&(_, k)| {
            let v = w.obs.get(&keys::of(keys::MAP_READ_US, &format!("1/{k}")))?;
            Some((1.0 / k as f64, v))
        })
        .collect::<Option<_>>()?;
    let first = lat.first()?.1;
    (first > 0.0).then_some((first, lat))
}

/// The share of the map the cache covers and the map read's cost, by least squares over the
/// spans' latencies: `lat = b + m * max(0, 1 - c / s)`, `b` and `m` linear for each `c` (`b`
/// free: the smallest span's own latency is one noisy sample of the hits').
pub(crate) fn coverage(lat: &[(f64, f64)]) -> (f64, f64) {
    let n = lat.len() as f64;
    let mut best = (1.0, 0.0, f64::INFINITY);
    for i in 0..=400 {
        // 1/1024 to all of the map, 400 steps of about 1.7%.
        let c = (2f64).powf(-10.0 + 10.0 * i as f64 / 400.0);
        let f: Vec<f64> = lat.iter().map(|&(s, _)| (1.0 - c / s).max(0.0)).collect();
        let (sf, sff) = (f.iter().sum::<f64>(), f.iter().map(|x| x * x).sum::<f64>());
        let sy: f64 = lat.iter().map(|p| p.1).sum();
        let sfy: f64 = lat.iter().zip(&f).map(|(p, x)| p.1 * x).sum();
        let det = n * sff - sf * sf;
        let (b, m) = if det.abs() > 1e-12 {
            (
                (sff * sy - sf * sfy) / det,
                ((n * sfy - sf * sy) / det).max(0.0),
            )
        } else {
            (sy / n, 0.0)
        };
        let sse: f64 = lat
            .iter()
            .zip(&f)
            .map(|(p, x)| (p.1 - b - m * x).powi(2))
            .sum();
        if sse < best.2 - 1e-12 {
            best = (c, m, sse);
        }
    }
    (best.0, best.1)
}

/// Whether a rise of `whole` over a hit latency of `first`, fitted with misses of `m`, is a
/// map cache's.
fn a_map_cache(first: f64, whole: f64, m: f64) -> bool {
    whole >= RISE * first && m >= MIN_MISS * first
}

pub(super) fn fit_map(w: &mut Work) -> Result<(), FitError> {
    let Some((first, lat)) = map_reads(w) else {
        return Ok(());
    };
    let whole = lat.last().map(|r| r.1 - first).unwrap_or(0.0);
    let curve = MAP_READS
        .iter()
        .zip(&lat)
        .map(|(&(_, k), r)| format!("1/{k} {:.1}", r.1))
        .collect::<Vec<_>>()
        .join(", ");
    let fall = largest_fall(first, &lat);
    if fall > FALL {
        w.set(
            "map",
            "map_cache_kib",
            "0".into(),
            How::Kept,
            format!(
                "the fit's best guess: the map reads' latency (us: {curve}) falls by {:.0}% of the smallest span's from one span to a wider one, which a map cache's misses never do: noise, not the map, so the map is taken to be in DRAM",
                100.0 * fall
            ),
            None,
        );
        return Ok(());
    }
    let (c, m) = coverage(&lat);
    if !a_map_cache(first, whole, m) {
        w.set(
            "map",
            "map_cache_kib",
            "0".into(),
            How::Fitted,
            if whole < RISE * first {
                format!(
                    "the map reads' latency rises {:.0}% from 1/256 of the drive to all of it (us: {curve}), below {:.0}%: the whole map in DRAM",
                    100.0 * whole / first,
                    100.0 * RISE
                )
            } else {
                format!(
                    "the map reads' latency (us: {curve}) rises by less than a flash read would ({m:.1} us a miss, under {:.0}% of a hit's): the whole map in DRAM",
                    100.0 * MIN_MISS
                )
            },
            None,
        );
        return Ok(());
    }
    let full = w
        .profile()?
        .full_capacity_bytes()
        .map_err(|e| FitError::Profile(e.to_string()))?;
    let kib = ((c * full as f64 / (1u64 << 20) as f64).round() as u64).max(1);
    w.set(
        "map",
        "map_cache_kib",
        kib.to_string(),
        How::Fitted,
        format!(
            "the map reads' latency (us: {curve}) rises as a cache covering {:.1}% of the map misses, {m:.1} us a miss",
            100.0 * c
        ),
        None,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(c: f64, m: f64) -> Vec<(f64, f64)> {
        MAP_READS
            .iter()
            .map(|&(_, k)| {
                let s = 1.0 / k as f64;
                (s, 40.0 + m * (1.0 - c / s).max(0.0))
            })
            .collect()
    }

    #[test]
    fn the_coverage_and_the_miss_cost_of_a_curve_are_found_again() {
        // Above half of the map only the whole drive rises: c and m trade off there.
        for c in [0.01, 0.072, 0.27, 0.4] {
            let (fc, fm) = coverage(&curve(c, 30.0));
            assert!((fc / c - 1.0).abs() < 0.02, "{c}: {fc}");
            assert!((fm / 30.0 - 1.0).abs() < 0.02, "{c}: {fm}");
        }
    }

    #[test]
    fn a_rise_smaller_than_a_flash_read_is_no_map_cache() {
        let curve = |lat: [f64; 7]| -> Vec<(f64, f64)> {
            MAP_READS
                .iter()
                .zip(lat)
                .map(|(&(_, k), v)| (1.0 / k as f64, v))
                .collect()
        };
        // Hidden drive 13 of the wider round trip, the map in DRAM.
        let dram = curve([62.4, 68.6, 69.2, 71.1, 70.4, 70.1, 72.3]);
        let (_, m) = coverage(&dram);
        assert!(!a_map_cache(62.4, 72.3 - 62.4, m), "{m}");
        // emu:pm9a3 at 1 GiB with the map in DRAM: 4% over the spans.
        let flat = curve([42.6, 43.8, 44.0, 44.2, 43.5, 44.2, 44.3]);
        let (_, m) = coverage(&flat);
        assert!(!a_map_cache(42.6, 44.3 - 42.6, m));
        // and with a 64 MiB cache.
        let cached = curve([41.9, 43.8, 43.6, 54.3, 63.2, 67.7, 69.4]);
        let (_, m) = coverage(&cached);
        assert!(a_map_cache(41.9, 69.4 - 41.9, m), "{m}");
        assert!(largest_fall(41.9, &cached) <= FALL);
        assert!(largest_fall(62.4, &dram) <= FALL);
        // FEMU under TCG: a rise of 43%, and falls no cache has.
        let femu = curve([204.7, 175.4, 209.6, 243.2, 260.9, 420.0, 292.7]);
        assert!(largest_fall(204.7, &femu) > FALL);
    }

    #[test]
    fn the_emulators_own_curve_gives_its_cache() {
        // `ssdiq run emu:pm9a3,capacity=1GiB,map_cache_kib=65536 --quick`: 64 MiB of the map
        // of a 960 GB drive, 7.2% (us at 1/256 ... 1/1: 41.9 43.8 43.6 54.3 63.2 67.7 69.4). At
        // 1 GiB the cache holds whole map pages of 16 MiB of the drive each.
        let lat = [41.9, 43.8, 43.6, 54.3, 63.2, 67.7, 69.4];
        let lat: Vec<(f64, f64)> = MAP_READS
            .iter()
            .zip(lat)
            .map(|(&(_, k), v)| (1.0 / k as f64, v))
            .collect();
        let (c, m) = coverage(&lat);
        // Five cached map pages of the 64 a 1 GiB drive has (4.6 rounded).
        let want = 5.0 / 64.0;
        assert!((c / want - 1.0).abs() < 0.15, "{c} for {want}");
        assert!((20.0..40.0).contains(&m), "{m}");
    }
}
