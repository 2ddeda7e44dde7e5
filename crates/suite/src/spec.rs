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
    for (field, v) in spec.values() {
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

/// The `--spec-*` flags of a run, as text.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpecFlags<'a> {
    /// `--spec FILE.toml`.
    pub file: Option<&'a Path>,
    pub seq_read: Option<&'a str>,
    pub seq_write: Option<&'a str>,
    pub rand_read: Option<&'a str>,
    pub rand_write: Option<&'a str>,
    pub read_lat: Option<&'a str>,
    pub write_lat: Option<&'a str>,
}

/// A `--spec-*` flag's value (`name` without the dashes), checked against [`PLAUSIBLE`].
pub fn spec_flag(name: &str, v: Option<&str>) -> Result<Option<f64>, SpecError> {
    let Some(s) = v else { return Ok(None) };
    let (lo, hi) = PLAUSIBLE;
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (lo..=hi).contains(&x) => Ok(Some(x)),
        _ => Err(SpecError::Flag(format!(
            "invalid --{name} \"{s}\": expected a positive number from {lo} to {hi:e}"
        ))),
    }
}

impl SpecFlags<'_> {
    /// The spec of the run: the target's own (`builtin`), overridden by the file, overridden
    /// by the flags; `None` if nothing is known.
    pub fn spec(&self, builtin: Option<Spec>) -> Result<Option<Spec>, SpecError> {
        let mut s = builtin.unwrap_or_default();
        if let Some(path) = self.file {
            let f = load_spec(path)?;
            s = Spec {
                name: f.name.or(s.name),
                capacity_gb: f.capacity_gb.or(s.capacity_gb),
                seq_read_mb_s: f.seq_read_mb_s.or(s.seq_read_mb_s),
                seq_write_mb_s: f.seq_write_mb_s.or(s.seq_write_mb_s),
                rand_read_kiops: f.rand_read_kiops.or(s.rand_read_kiops),
                rand_write_kiops: f.rand_write_kiops.or(s.rand_write_kiops),
                read_lat_us: f.read_lat_us.or(s.read_lat_us),
                write_lat_us: f.write_lat_us.or(s.write_lat_us),
            };
        }
        for (name, flag, field) in [
            ("spec-seq-read", self.seq_read, &mut s.seq_read_mb_s),
            ("spec-seq-write", self.seq_write, &mut s.seq_write_mb_s),
            ("spec-rand-read", self.rand_read, &mut s.rand_read_kiops),
            ("spec-rand-write", self.rand_write, &mut s.rand_write_kiops),
            ("spec-read-lat", self.read_lat, &mut s.read_lat_us),
            ("spec-write-lat", self.write_lat, &mut s.write_lat_us),
        ] {
            if let Some(v) = spec_flag(name, flag)? {
                *field = Some(v);
            }
        }
        Ok((s != Spec::default()).then_some(s))
    }
}
