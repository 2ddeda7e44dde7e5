//! The pattern grammar shared by `sim`, `io` and `run` (README.md, "Access patterns").

use std::fmt;
use std::str::FromStr;

pub use crate::error::PatternError;
use crate::units::parse_size;

/// One zone of a piecewise-uniform pattern: `weight` percent of accesses go uniformly to
/// `space` percent of the pages.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneSpec {
    pub weight: f64,
    pub space: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// Sequential over the range, wrapping.
    Seq,
    /// Uniform random pages.
    Uniform,
    /// Every page exactly once per pass, in a random order.
    RandPerm,
    /// Zipf over pages with exponent `theta`, ranks scrambled.
    Zipf { theta: f64 },
    /// `write` percent of accesses to `space` percent of the pages, zones scrambled.
    TwoZone { write: f64, space: f64 },
    /// General piecewise-uniform pattern, zones scrambled.
    Zones(Vec<ZoneSpec>),
    /// Fraction `fraction` of the pages is never accessed; the rest uniform, scrambled.
    ReadOnly { fraction: f64 },
    /// Ascending, skipping each page with probability `p`.
    SkipSeq { p: f64 },
    /// Sequential, shuffled within consecutive windows of `n` requests.
    Window { n: u64 },
    /// Zones of `zone_bytes` written sequentially, `open` zones at once, each trimmed before
    /// it is rewritten, the next zone picked in `order`.
    Zns {
        zone_bytes: u64,
        open: u32,
        order: ZoneOrder,
    },
    /// `n` sequential write streams over equal regions, interleaved at random with weights
    /// 1, 1.2, 1.4, ... (the SSD-iq artifact's `benchslow` streams), each wrapping in its
    /// region: sequential data of different lifetimes arriving at once.
    Streams { n: u32 },
}

/// Which closed zone `zns:` rewrites next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ZoneOrder {
    /// At random among the closed zones (the SSD-iq artifact's ZNS pattern).
    #[default]
    Random,
    /// In rounds that rewrite every zone once, each round putting the zones the previous one
    /// wrote next to each other about half a round apart (`zns:SIZE:apart`). A drive whose GC
    /// unit spans several zones then holds each unit partly valid for half a round, which
    /// spare space cannot hide as it can under the random order; zones of whole units are
    /// unaffected.
    Apart,
}

/// Most streams of `streams:N`.
pub const MAX_STREAMS: u32 = 4096;

/// Relative weight of stream `i` (0-based) of `streams:N`.
pub fn stream_weight(i: u32) -> f64 {
    1.0 + 0.2 * i as f64
}

pub const GRAMMAR: &str = "seq | uniform | randperm | zipf:THETA | twozone:W/S | \
zones:W1@S1,W2@S2,... | readonly:F | skipseq:P | window:N | zns:SIZE[xK][:apart] | streams:N";

impl Pattern {
    pub fn parse(input: &str) -> Result<Self, PatternError> {
        let err = |reason: String| PatternError {
            input: input.to_string(),
            reason,
        };
        let s = input.trim();
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        let need = |what: &str| -> Result<&str, PatternError> {
            arg.filter(|a| !a.is_empty())
                .ok_or_else(|| err(format!("expected {name}:{what}")))
        };
        let no_arg = |p: Pattern| -> Result<Pattern, PatternError> {
            match arg {
                None => Ok(p),
                Some(_) => Err(err(format!("{name} takes no argument"))),
            }
        };
        let num = |text: &str, what: &str| -> Result<f64, PatternError> {
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| err(format!("{what} must be a number, got \"{text}\"")))
        };
        match name {
            "seq" => no_arg(Pattern::Seq),
            "uniform" => no_arg(Pattern::Uniform),
            "randperm" => no_arg(Pattern::RandPerm),
            "zipf" => {
                let theta = num(need("THETA")?, "THETA")?;
                if theta <= 0.0 {
                    return Err(err("THETA must be > 0".into()));
                }
                if theta > 100.0 {
                    return Err(err("THETA must be <= 100".into()));
                }
                Ok(Pattern::Zipf { theta })
            }
            "twozone" => {
                let a = need("W/S")?;
                let (w, sp) = a
                    .split_once('/')
                    .ok_or_else(|| err("expected twozone:W/S, e.g. twozone:80/20".into()))?;
                let write = num(w, "W")?;
                let space = num(sp, "S")?;
                if !((0.0..=100.0).contains(&write) && 0.0 < space && space < 100.0) {
                    return Err(err(
                        "W must be in [0, 100] and S in (0, 100) (percentages)".into()
                    ));
                }
                Ok(Pattern::TwoZone { write, space })
            }
            "zones" => {
                let a = need("W1@S1,W2@S2,...")?;
                let mut zones = Vec::new();
                for part in a.split(',') {
                    let (w, sp) = part
                        .split_once('@')
                        .ok_or_else(|| err(format!("zone \"{part}\" is not W@S")))?;
                    let weight = num(w, "W")?;
                    let space = num(sp, "S")?;
                    if weight < 0.0 || space <= 0.0 {
                        return Err(err(format!("zone \"{part}\": W must be >= 0 and S > 0")));
                    }
                    zones.push(ZoneSpec { weight, space });
                }
                let wsum: f64 = zones.iter().map(|z| z.weight).sum();
                let ssum: f64 = zones.iter().map(|z| z.space).sum();
                if (wsum - 100.0).abs() > 1e-6 || (ssum - 100.0).abs() > 1e-6 {
                    return Err(err(format!(
                        "weights and sizes must each sum to 100, got {wsum} and {ssum}"
                    )));
                }
                Ok(Pattern::Zones(zones))
            }
            "readonly" => {
                let fraction = num(need("F")?, "F")?;
                if !(0.0..1.0).contains(&fraction) {
                    return Err(err("F must be in [0, 1)".into()));
                }
                Ok(Pattern::ReadOnly { fraction })
            }
            "skipseq" => {
                let p = num(need("P")?, "P")?;
                if !(0.0..1.0).contains(&p) {
                    return Err(err("P must be in [0, 1)".into()));
                }
                Ok(Pattern::SkipSeq { p })
            }
            "window" => {
                let text = need("N")?;
                let n = text
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| err(format!("N must be an integer >= 1, got \"{text}\"")))?;
                Ok(Pattern::Window { n })
            }
            "zns" => {
                let a = need("SIZE[xK][:apart]")?;
                let (a, order) = match a.split_once(':') {
                    None => (a, ZoneOrder::Random),
                    Some((a, "apart")) => (a, ZoneOrder::Apart),
                    Some((_, o)) => {
                        return Err(err(format!(
                            "unknown zone order \"{o}\"; expected zns:SIZE[xK] (random order) or zns:SIZE[xK]:apart"
                        )))
                    }
                };
                let (size, k) = match a.rsplit_once(['x', 'X']) {
                    Some((sz, k)) if !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()) => {
                        (sz, Some(k))
                    }
                    _ => (a, None),
                };
                let zone_bytes = parse_size(size).map_err(|e| err(format!("SIZE: {e}")))?;
                if zone_bytes == 0 {
                    return Err(err("SIZE must be > 0".into()));
                }
                let open =
                    match k {
                        None => 1,
                        Some(k) => k.parse::<u32>().ok().filter(|&k| k >= 1).ok_or_else(|| {
                            err(format!("K must be an integer >= 1, got \"{k}\""))
                        })?,
                    };
                Ok(Pattern::Zns {
                    zone_bytes,
                    open,
                    order,
                })
            }
            "streams" => {
                let text = need("N")?;
                let n = text
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=MAX_STREAMS).contains(n))
                    .ok_or_else(|| {
                        err(format!(
                            "N must be an integer from 1 to {MAX_STREAMS}, got \"{text}\""
                        ))
                    })?;
                Ok(Pattern::Streams { n })
            }
            other => Err(err(format!(
                "unknown pattern \"{other}\"; expected {GRAMMAR}"
            ))),
        }
    }

    /// Whether accesses walk the range in order, so that threads split it into regions.
    pub fn is_sequential(&self) -> bool {
        matches!(
            self,
            Pattern::Seq
                | Pattern::SkipSeq { .. }
                | Pattern::Window { .. }
                | Pattern::Zns { .. }
                | Pattern::Streams { .. }
        )
    }

    /// The zones as (weight fraction, space fraction), for piecewise-uniform patterns.
    pub fn zone_fractions(&self) -> Option<Vec<(f64, f64)>> {
        match self {
            Pattern::TwoZone { write, space } => Some(vec![
                (write / 100.0, space / 100.0),
                (1.0 - write / 100.0, 1.0 - space / 100.0),
            ]),
            Pattern::Zones(z) => Some(
                z.iter()
                    .map(|z| (z.weight / 100.0, z.space / 100.0))
                    .collect(),
            ),
            _ => None,
        }
    }
}

impl FromStr for Pattern {
    type Err = PatternError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Pattern::parse(s)
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Seq => write!(f, "seq"),
            Pattern::Uniform => write!(f, "uniform"),
            Pattern::RandPerm => write!(f, "randperm"),
            Pattern::Zipf { theta } => write!(f, "zipf:{theta}"),
            Pattern::TwoZone { write, space } => write!(f, "twozone:{write}/{space}"),
            Pattern::Zones(z) => {
                write!(f, "zones:")?;
                for (i, z) in z.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{}@{}", z.weight, z.space)?;
                }
                Ok(())
            }
            Pattern::ReadOnly { fraction } => write!(f, "readonly:{fraction}"),
            Pattern::SkipSeq { p } => write!(f, "skipseq:{p}"),
            Pattern::Window { n } => write!(f, "window:{n}"),
            Pattern::Zns {
                zone_bytes,
                open,
                order,
            } => {
                write!(f, "zns:{}", crate::units::format_size(*zone_bytes))?;
                if *open != 1 {
                    write!(f, "x{open}")?;
                }
                if *order == ZoneOrder::Apart {
                    write!(f, ":apart")?;
                }
                Ok(())
            }
            Pattern::Streams { n } => write!(f, "streams:{n}"),
        }
    }
}

impl serde::Serialize for Pattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Pattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Pattern::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_and_round_trips() {
        for s in [
            "seq",
            "uniform",
            "randperm",
            "zipf:0.8",
            "twozone:80/20",
            "zones:70@10,20@30,10@60",
            "readonly:0.5",
            "skipseq:0.25",
            "window:64",
            "zns:1GiB",
            "zns:256MiBx4",
            "zns:24MiB:apart",
            "zns:48MiBx2:apart",
            "streams:8",
        ] {
            let p = Pattern::parse(s).unwrap();
            assert_eq!(p.to_string(), s);
            assert_eq!(Pattern::parse(&p.to_string()).unwrap(), p);
        }
        assert_eq!(
            Pattern::parse("zns:1Gx8").unwrap(),
            Pattern::Zns {
                zone_bytes: 1 << 30,
                open: 8,
                order: ZoneOrder::Random,
            }
        );
    }

    #[test]
    fn errors_are_one_line_and_name_the_input() {
        let cases = [
            ("zipf:-1", "invalid pattern \"zipf:-1\": THETA must be > 0"),
            ("zipf", "invalid pattern \"zipf\": expected zipf:THETA"),
            ("zipf:abc", "invalid pattern \"zipf:abc\": THETA must be a number, got \"abc\""),
            ("twozone:80", "invalid pattern \"twozone:80\": expected twozone:W/S, e.g. twozone:80/20"),
            ("twozone:80/0", "invalid pattern \"twozone:80/0\": W must be in [0, 100] and S in (0, 100) (percentages)"),
            ("zones:50@50,40@50", "invalid pattern \"zones:50@50,40@50\": weights and sizes must each sum to 100, got 90 and 100"),
            ("readonly:1", "invalid pattern \"readonly:1\": F must be in [0, 1)"),
            ("skipseq:1.5", "invalid pattern \"skipseq:1.5\": P must be in [0, 1)"),
            ("window:0", "invalid pattern \"window:0\": N must be an integer >= 1, got \"0\""),
            ("zns:0", "invalid pattern \"zns:0\": SIZE must be > 0"),
            (
                "streams:0",
                "invalid pattern \"streams:0\": N must be an integer from 1 to 4096, got \"0\"",
            ),
            ("zns:1Gx0", "invalid pattern \"zns:1Gx0\": K must be an integer >= 1, got \"0\""),
            ("zns:1G:next", "invalid pattern \"zns:1G:next\": unknown zone order \"next\"; expected zns:SIZE[xK] (random order) or zns:SIZE[xK]:apart"),
            ("seq:3", "invalid pattern \"seq:3\": seq takes no argument"),
        ];
        for (input, msg) in cases {
            let e = Pattern::parse(input).unwrap_err().to_string();
            assert_eq!(e, msg);
            assert!(!e.contains('\n'));
        }
        let e = Pattern::parse("gauss:1").unwrap_err().to_string();
        assert!(
            e.starts_with("invalid pattern \"gauss:1\": unknown pattern \"gauss\"; expected seq |"),
            "{e}"
        );
    }
}
