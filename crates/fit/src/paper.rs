//! A paper's published row as the fit's input (`ssdiq fit --paper ssd-iq:DRIVE`): Table 2's
//! throughputs and latencies under load and Table 3's WA, as the figures a run would give.

use std::collections::BTreeMap;

use ssdiq_emu::profile::SSD_IQ_PROFILES;
use ssdiq_report::DriveFigures;
use ssdiq_schema::figures as keys;

use crate::error::FitError;
use crate::observed::Observed;

/// The row of `spec` (`ssd-iq:DRIVE`, DRIVE a library profile name of the paper's nine) as
/// the fit's input.
pub fn observed(spec: &str) -> Result<Observed, FitError> {
    let bad = || {
        FitError::Input(format!(
            "invalid --paper \"{spec}\": expected ssd-iq:DRIVE, DRIVE one of {}",
            SSD_IQ_PROFILES.join(", ")
        ))
    };
    let (paper, drive) = spec.split_once(':').ok_or_else(bad)?;
    let i = SSD_IQ_PROFILES
        .iter()
        .position(|d| *d == drive)
        .filter(|_| paper == "ssd-iq")
        .ok_or_else(bad)?;
    let r = ssdiq_report::paper::reference("ssd-iq").expect("shipped");
    Ok(from_paper(&r.drives[i], &r.short_source))
}

/// A published row as the fit's input: Table 2's throughputs and latencies under load, Table
/// 3's WA (measured where the drive has OCP, else implied).
pub fn from_paper(d: &DriveFigures, source: &str) -> Observed {
    let mut f = BTreeMap::new();
    let mut put = |k: String, v: Option<f64>| {
        if let Some(v) = v {
            f.insert(k, v);
        }
    };
    put(keys::SEQ_READ_MB_S.into(), d.seq_read_mb_s);
    // The paper's sequential write is the step's free-pool phase, what the drive programs
    // while its spare blocks last (docs/drives.md, "The sequential write step").
    put(keys::SEQ_WRITE_FREE_POOL_MB_S.into(), d.seq_write_mb_s);
    put(keys::RAND_READ_KIOPS.into(), d.rand_read_kiops);
    put(keys::READ_LAT_LOAD_AVG_US.into(), d.read_lat_us.avg);
    put(keys::READ_LAT_LOAD_P999_US.into(), d.read_lat_us.p999);
    put(keys::WRITE_LAT_LOAD_AVG_US.into(), d.write_lat_us.avg);
    put(keys::WRITE_LAT_LOAD_P999_US.into(), d.write_lat_us.p999);
    for (w, k, m, i) in [
        (
            "uniform",
            d.rand_write_kiops.unif,
            d.wa_measured.unif,
            d.wa_implied.unif,
        ),
        (
            "twozone",
            d.rand_write_kiops.twoz,
            d.wa_measured.twoz,
            d.wa_implied.twoz,
        ),
        (
            "zipf",
            d.rand_write_kiops.zipf,
            d.wa_measured.zipf,
            d.wa_implied.zipf,
        ),
    ] {
        put(keys::of(keys::RAND_WRITE_KIOPS, w), k);
        put(keys::of(keys::WAF_MEASURED, w), m);
        put(keys::of(keys::WAF_IMPLIED, w), i);
    }
    Observed {
        source: format!("{source} Tables 2-3 ({})", d.name),
        name: d.name.clone(),
        capacity_bytes: (d.capacity_gb.unwrap_or(960.0) * 1e9) as u64,
        emulated: false,
        full_capacity_bytes: None,
        gc_unit_bytes: None,
        gc_unit_source: None,
        spec: d.spec.clone(),
        media_counters: d.media_counters.unwrap_or(false),
        quick: false,
        figures: f,
        load_curve: None,
        skew_curve: None,
        burst_unfilled_mib: None,
        load_outran: None,
    }
}
