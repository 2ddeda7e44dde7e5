//! `--fdp-pid`: the FDP placement identifier a write carries, for the whole job or by region of
//! its range (fio's `fdp_pli` and `dp_scheme` in one flag): `3`, or `0-20%=1,20-100%=2`, or
//! `0-1GiB=1`.
//!
//! Invariants: a region's bounds are offsets within the job's range (percent of it, or bytes
//! from its start); once resolved against a range, a share is rounded to a whole number of
//! the job's blocks, and regions are sorted, do not overlap and end within the range; a write
//! takes the region its first byte lies in, and one in no region carries no directive.

use ssdiq_workload::units::{format_size, parse_size};

/// One end of a region: a share of the job's range or bytes from its start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    Percent(f64),
    Bytes(u64),
}

/// A region of the job's range and the identifier its writes carry.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    pub from: Bound,
    pub to: Bound,
    pub pid: u16,
    /// As the user wrote it, for messages.
    pub text: String,
}

/// What `--fdp-pid` said.
#[derive(Clone, Debug, PartialEq)]
pub enum FdpPlacement {
    /// Every write.
    All(u16),
    /// Writes by where they fall.
    Regions(Vec<Region>),
}

/// Regions in bytes of one job's range, sorted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resolved {
    /// The range's first byte on the target.
    start: u64,
    all: Option<u16>,
    regions: Vec<(u64, u64, u16)>,
}

const EXPECTED: &str =
    "expected a placement identifier (0-65535), or regions of the job's range like 0-20%=1,20-100%=2 or 0-1GiB=1";

fn bound(s: &str, percent: bool) -> Option<Bound> {
    let s = s.trim();
    if let Some(p) = s.strip_suffix('%') {
        return p.parse().ok().map(Bound::Percent);
    }
    if percent {
        return s.parse().ok().map(Bound::Percent);
    }
    parse_size(s).ok().map(Bound::Bytes)
}

impl FdpPlacement {
    pub fn parse(spec: &str) -> Result<Self, String> {
        let bad = || format!("invalid --fdp-pid \"{spec}\": {EXPECTED}");
        if let Ok(pid) = spec.trim().parse::<u16>() {
            return Ok(FdpPlacement::All(pid));
        }
        let mut regions = Vec::new();
        for item in spec.split(',') {
            let (range, pid) = item.split_once('=').ok_or_else(|| {
                format!(
                    "invalid --fdp-pid \"{spec}\": region \"{item}\" names no identifier (REGION=PID); {EXPECTED}"
                )
            })?;
            let pid: u16 = pid.trim().parse().map_err(|_| bad())?;
            let (from, to) = range.split_once('-').ok_or_else(bad)?;
            // `0-20%`: a share when either end is one.
            let percent = from.trim().ends_with('%') || to.trim().ends_with('%');
            let (from, to) = (
                bound(from, percent).ok_or_else(bad)?,
                bound(to, percent).ok_or_else(bad)?,
            );
            regions.push(Region {
                from,
                to,
                pid,
                text: item.trim().to_string(),
            });
        }
        Ok(FdpPlacement::Regions(regions))
    }

    /// The largest identifier any write may carry.
    pub fn max_pid(&self) -> u16 {
        match self {
            FdpPlacement::All(p) => *p,
            FdpPlacement::Regions(r) => r.iter().map(|r| r.pid).max().unwrap_or(0),
        }
    }

    /// The regions in bytes of a range of `range_bytes` from byte `start` of the target, a
    /// share rounded to whole blocks of `block` bytes; an error names the region that does
    /// not fit or overlaps another.
    pub fn resolve(&self, start: u64, range_bytes: u64, block: u64) -> Result<Resolved, String> {
        let regions = match self {
            FdpPlacement::All(p) => {
                return Ok(Resolved {
                    start,
                    all: Some(*p),
                    regions: Vec::new(),
                })
            }
            FdpPlacement::Regions(r) => r,
        };
        let block = block.max(1);
        let at = |b: Bound| match b {
            Bound::Percent(p) => (0.0..=100.0).contains(&p).then(|| {
                let blocks = (p / 100.0 * range_bytes as f64 / block as f64).round() as u64;
                (blocks * block).min(range_bytes)
            }),
            Bound::Bytes(b) => (b <= range_bytes).then_some(b),
        };
        let mut out = Vec::new();
        for r in regions {
            let name = &r.text;
            match (at(r.from), at(r.to)) {
                (Some(a), Some(b)) if a < b => out.push((a, b, r.pid)),
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "invalid --fdp-pid region \"{name}\": expected its start before its end"
                    ))
                }
                _ => {
                    return Err(format!(
                        "invalid --fdp-pid region \"{name}\": expected it within the job's range (0-100%, 0-{})",
                        format_size(range_bytes)
                    ))
                }
            }
        }
        let mut order: Vec<usize> = (0..out.len()).collect();
        order.sort_by_key(|&i| out[i]);
        if let Some(w) = order.windows(2).find(|w| out[w[1]].0 < out[w[0]].1) {
            return Err(format!(
                "invalid --fdp-pid: regions \"{}\" and \"{}\" overlap; expected each byte of the range in one region at most",
                regions[w[0]].text, regions[w[1]].text
            ));
        }
        out.sort_unstable();
        Ok(Resolved {
            start,
            all: None,
            regions: out,
        })
    }
}

impl std::fmt::Display for FdpPlacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FdpPlacement::All(p) => write!(f, "{p}"),
            FdpPlacement::Regions(rs) => {
                let items: Vec<&str> = rs.iter().map(|r| r.text.as_str()).collect();
                write!(f, "{}", items.join(","))
            }
        }
    }
}

impl Resolved {
    /// The identifier of a write whose first byte is byte `offset` of the target.
    #[inline]
    pub fn pid_at(&self, offset: u64) -> Option<u16> {
        if self.all.is_some() {
            return self.all;
        }
        let offset = offset.checked_sub(self.start)?;
        self.regions
            .iter()
            .find(|(a, b, _)| (*a..*b).contains(&offset))
            .map(|r| r.2)
    }

    /// The regions, as (first byte, end byte, identifier) within the range.
    pub fn regions(&self) -> &[(u64, u64, u16)] {
        &self.regions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_identifier_marks_every_write() {
        let p = FdpPlacement::parse("3").unwrap();
        let r = p.resolve(0, 1 << 30, 4096).unwrap();
        assert_eq!((r.pid_at(0), r.pid_at((1 << 30) - 1)), (Some(3), Some(3)));
        assert_eq!(p.to_string(), "3");
    }

    #[test]
    fn regions_by_share_or_bytes_place_writes_by_offset() {
        let p = FdpPlacement::parse("0-20%=1,20-100%=2").unwrap();
        let r = p.resolve(0, 1000, 1).unwrap();
        assert_eq!(
            [0, 199, 200, 999].map(|o| r.pid_at(o)),
            [Some(1), Some(1), Some(2), Some(2)]
        );
        // A range from byte 5000 of the target: its regions move with it.
        let r = p.resolve(5000, 1000, 1).unwrap();
        assert_eq!(
            [4999, 5000, 5199, 5200, 5999, 6000].map(|o| r.pid_at(o)),
            [None, Some(1), Some(1), Some(2), Some(2), None]
        );
        assert_eq!(p.max_pid(), 2);
        let p = FdpPlacement::parse("4KiB-8KiB=7").unwrap();
        let r = p.resolve(0, 1 << 20, 4096).unwrap();
        assert_eq!(
            [4095, 4096, 8191, 8192].map(|o| r.pid_at(o)),
            [None, Some(7), Some(7), None]
        );
        // A share of a range that is no whole number of blocks ends on a block.
        let r = FdpPlacement::parse("0-20%=1")
            .unwrap()
            .resolve(0, 256 << 20, 4096)
            .unwrap();
        assert_eq!(r.regions()[0].1 % 4096, 0);
        assert_eq!(r.regions()[0].1, 53_686_272);
        // Parsed and shown again, the same placement.
        assert_eq!(
            FdpPlacement::parse(
                &FdpPlacement::parse("0-20%=1,20-100%=2")
                    .unwrap()
                    .to_string()
            )
            .unwrap(),
            FdpPlacement::parse("0-20%=1,20-100%=2").unwrap()
        );
    }

    #[test]
    fn bad_specs_and_regions_say_what_is_wrong() {
        for bad in ["", "x", "0-20%", "0-20%=70000", "20%=1", "a-b=1"] {
            let e = FdpPlacement::parse(bad).unwrap_err();
            assert!(e.contains(&format!("\"{bad}\"")), "{e}");
        }
        assert!(FdpPlacement::parse("0-20%")
            .unwrap_err()
            .contains("region \"0-20%\" names no identifier"));
        let res = |s: &str| FdpPlacement::parse(s).unwrap().resolve(0, 1 << 20, 4096);
        assert!(res("0-120%=1")
            .unwrap_err()
            .contains("within the job's range"));
        assert!(res("0-2MiB=1")
            .unwrap_err()
            .contains("within the job's range"));
        assert!(res("50-20%=1")
            .unwrap_err()
            .contains("\"50-20%=1\": expected its start before its end"));
        assert!(res("0-60%=1,50-100%=2")
            .unwrap_err()
            .contains("regions \"0-60%=1\" and \"50-100%=2\" overlap"));
    }
}
