//! Datasheet specs from TOML (`--spec FILE.toml`), e.g.
//!
//! ```toml
//! name = "Samsung PM9A3 960GB"
//! capacity_gb = 960
//! seq_read_mb_s = 6500
//! seq_write_mb_s = 1500
//! rand_read_kiops = 580
//! rand_write_kiops = 70
//! read_lat_us = 75
//! write_lat_us = 15
//! ```

use std::path::Path;

pub use crate::error::SpecError;
use ssdiq_schema::Spec;

pub fn parse_spec(text: &str, path: &str) -> Result<Spec, SpecError> {
    let invalid = |reason: String| SpecError::Invalid {
        path: path.to_string(),
        reason,
    };
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        name: Option<String>,
        capacity_gb: Option<f64>,
        seq_read_mb_s: Option<f64>,
        seq_write_mb_s: Option<f64>,
        rand_read_kiops: Option<f64>,
        rand_write_kiops: Option<f64>,
        read_lat_us: Option<f64>,
        write_lat_us: Option<f64>,
    }
    let f: File = toml::from_str(text).map_err(|e| invalid(e.message().replace('\n', " ")))?;
    let spec = Spec {
        name: f.name,
        capacity_gb: f.capacity_gb,
        seq_read_mb_s: f.seq_read_mb_s,
        seq_write_mb_s: f.seq_write_mb_s,
        rand_read_kiops: f.rand_read_kiops,
        rand_write_kiops: f.rand_write_kiops,
        read_lat_us: f.read_lat_us,
        write_lat_us: f.write_lat_us,
    };
    for (field, v) in [
        ("capacity_gb", spec.capacity_gb),
        ("seq_read_mb_s", spec.seq_read_mb_s),
        ("seq_write_mb_s", spec.seq_write_mb_s),
        ("rand_read_kiops", spec.rand_read_kiops),
        ("rand_write_kiops", spec.rand_write_kiops),
        ("read_lat_us", spec.read_lat_us),
        ("write_lat_us", spec.write_lat_us),
    ] {
        if let Some(v) = v {
            check_value(field, v).map_err(invalid)?;
        }
    }
    Ok(spec)
}

/// Datasheet values outside this range are typos, not drives: 1e-300 kIOPS would pace the
/// latency-under-load writes one per 10^300 seconds. At the lower end, 25% of 0.01 kIOPS
/// still issues a 4 KiB write every 0.8 s, within the 2 s round of `--quick`.
pub const PLAUSIBLE: (f64, f64) = (1e-2, 1e9);

/// `Err` (a reason naming `field`) unless `v` is a positive number in [`PLAUSIBLE`].
pub fn check_value(field: &str, v: f64) -> Result<(), String> {
    if !(v.is_finite() && v > 0.0) {
        return Err(format!("{field} must be a positive number, got {v}"));
    }
    if !(PLAUSIBLE.0..=PLAUSIBLE.1).contains(&v) {
        return Err(format!(
            "{field} {v:e} is out of range: expected {} to {:e}",
            PLAUSIBLE.0, PLAUSIBLE.1
        ));
    }
    Ok(())
}

pub fn load_spec(path: &Path) -> Result<Spec, SpecError> {
    let p = path.display().to_string();
    let text = ssdiq_engine::textfile::read_text(path, ssdiq_engine::textfile::CONFIG_LIMIT)
        .map_err(|source| SpecError::Read {
            path: p.clone(),
            source,
        })?;
    parse_spec(&text, &p)
}

/// The random-write bandwidth the spec promises, in bytes/s at 4 KiB.
pub fn spec_rand_write_bytes_per_s(spec: &Spec) -> Option<f64> {
    spec.rand_write_kiops.map(|k| k * 1e3 * 4096.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_validates() {
        let s = parse_spec(
            "name = \"x\"\nseq_write_mb_s = 1500\nrand_write_kiops = 70\n",
            "a.toml",
        )
        .unwrap();
        assert_eq!(s.seq_write_mb_s, Some(1500.0));
        assert_eq!(spec_rand_write_bytes_per_s(&s), Some(70e3 * 4096.0));
        let e = parse_spec("rand_write_kiops = -3\n", "a.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "invalid spec \"a.toml\": rand_write_kiops must be a positive number, got -3"
        );
        let e = parse_spec("rnd_write = 3\n", "a.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid spec \"a.toml\": unknown field `rnd_write`"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        let e = parse_spec("rand_write_kiops = 1e-300\n", "a.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("rand_write_kiops 1e-300 is out of range"), "{e}");
    }
}
