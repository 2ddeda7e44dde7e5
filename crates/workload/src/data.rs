//! What a write puts in its buffer. Content matters to drives that compress or deduplicate,
//! and LBA stamps let a test check where data landed.

use std::fmt;

pub use crate::error::DataPatternError;
use crate::rng::{derive_seed, SeededRng};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DataPattern {
    Zeros,
    Ones,
    /// Every byte the same value, e.g. `0xaa`.
    Byte(u8),
    /// Each 512-byte sector starts with its byte offset / 512 (u64 LE) and the write's
    /// generation (u64 LE); the rest is zero.
    LbaStamp,
    /// Incompressible: fresh pseudo-random bytes for every (offset, generation).
    Random,
    /// Compressible to about `ratio`:1 — each 4 KiB chunk is `1/ratio` random, the rest zero.
    Compressible {
        ratio: f64,
    },
}

impl DataPattern {
    pub fn parse(input: &str) -> Result<Self, DataPatternError> {
        let err = |reason: &str| DataPatternError {
            input: input.to_string(),
            reason: reason.to_string(),
        };
        let s = input.trim().to_ascii_lowercase();
        Ok(match s.as_str() {
            "zeros" | "zero" => DataPattern::Zeros,
            "ones" => DataPattern::Ones,
            "lba" => DataPattern::LbaStamp,
            "random" => DataPattern::Random,
            _ => {
                if let Some(hex) = s.strip_prefix("0x") {
                    let b = u8::from_str_radix(hex, 16)
                        .map_err(|_| err("expected one byte in hex, like 0xaa"))?;
                    DataPattern::Byte(b)
                } else if let Some(r) = s.strip_prefix("compressible:") {
                    let ratio: f64 = r
                        .parse()
                        .ok()
                        .filter(|v: &f64| v.is_finite() && *v >= 1.0)
                        .ok_or_else(|| err("ratio must be a number >= 1, like compressible:2"))?;
                    DataPattern::Compressible { ratio }
                } else {
                    return Err(err(
                        "expected zeros, ones, 0xNN, lba, random or compressible:RATIO",
                    ));
                }
            }
        })
    }

    /// Fills `buf`, which is written at byte `offset`, for the `generation`-th write of a job.
    pub fn fill(&self, buf: &mut [u8], offset: u64, generation: u64, seed: u64) {
        match *self {
            DataPattern::Zeros => buf.fill(0),
            DataPattern::Ones => buf.fill(0xff),
            DataPattern::Byte(b) => buf.fill(b),
            DataPattern::LbaStamp => {
                buf.fill(0);
                for (i, sector) in buf.chunks_mut(512).enumerate() {
                    let lba = offset / 512 + i as u64;
                    let n = sector.len().min(8);
                    sector[..n].copy_from_slice(&lba.to_le_bytes()[..n]);
                    if sector.len() >= 16 {
                        sector[8..16].copy_from_slice(&generation.to_le_bytes());
                    }
                }
            }
            DataPattern::Random => {
                SeededRng::new(derive_seed(seed, offset ^ generation.rotate_left(40)))
                    .fill_bytes(buf)
            }
            DataPattern::Compressible { ratio } => {
                let mut rng =
                    SeededRng::new(derive_seed(seed, offset ^ generation.rotate_left(40)));
                for chunk in buf.chunks_mut(4096) {
                    let random = ((chunk.len() as f64 / ratio).ceil() as usize).min(chunk.len());
                    rng.fill_bytes(&mut chunk[..random]);
                    chunk[random..].fill(0);
                }
            }
        }
    }
}

impl fmt::Display for DataPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataPattern::Zeros => write!(f, "zeros"),
            DataPattern::Ones => write!(f, "ones"),
            DataPattern::Byte(b) => write!(f, "0x{b:02x}"),
            DataPattern::LbaStamp => write!(f, "lba"),
            DataPattern::Random => write!(f, "random"),
            DataPattern::Compressible { ratio } => write!(f, "compressible:{ratio}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{write::ZlibEncoder, Compression};
    use std::io::Write;

    fn deflate_ratio(buf: &[u8]) -> f64 {
        let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
        e.write_all(buf).unwrap();
        buf.len() as f64 / e.finish().unwrap().len() as f64
    }

    #[test]
    fn fixed_patterns() {
        let mut b = vec![1u8; 1024];
        DataPattern::parse("0xaa").unwrap().fill(&mut b, 0, 0, 0);
        assert!(b.iter().all(|&x| x == 0xaa));
        DataPattern::parse("ones").unwrap().fill(&mut b, 0, 0, 0);
        assert!(b.iter().all(|&x| x == 0xff));
        DataPattern::parse("zeros").unwrap().fill(&mut b, 0, 0, 0);
        assert!(b.iter().all(|&x| x == 0));
    }

    #[test]
    fn lba_stamp_names_each_sector() {
        let mut b = vec![0u8; 4096];
        DataPattern::LbaStamp.fill(&mut b, 1 << 20, 7, 0);
        for i in 0..8 {
            let s = &b[i * 512..];
            assert_eq!(
                u64::from_le_bytes(s[..8].try_into().unwrap()),
                2048 + i as u64
            );
            assert_eq!(u64::from_le_bytes(s[8..16].try_into().unwrap()), 7);
        }
    }

    #[test]
    fn random_is_incompressible_and_compressible_hits_its_ratio() {
        let mut b = vec![0u8; 1 << 20];
        DataPattern::Random.fill(&mut b, 0, 0, 1);
        assert!(deflate_ratio(&b) < 1.01);
        for ratio in [2.0, 4.0] {
            DataPattern::Compressible { ratio }.fill(&mut b, 0, 0, 1);
            let got = deflate_ratio(&b);
            assert!(
                (got / ratio - 1.0).abs() < 0.1,
                "ratio {ratio}: deflate gives {got}"
            );
        }
        let mut a = vec![0u8; 4096];
        let mut c = vec![0u8; 4096];
        DataPattern::Random.fill(&mut a, 0, 0, 1);
        DataPattern::Random.fill(&mut c, 0, 1, 1);
        assert_ne!(a, c, "a rewrite must carry new bytes");
    }

    #[test]
    fn parse_errors() {
        assert!(DataPattern::parse("0xzz").is_err());
        assert!(DataPattern::parse("compressible:0.5").is_err());
        assert_eq!(
            DataPattern::parse("pink").unwrap_err().to_string(),
            "invalid data pattern \"pink\": expected zeros, ones, 0xNN, lba, random or compressible:RATIO"
        );
        for s in ["zeros", "ones", "0xaa", "lba", "random", "compressible:2"] {
            assert_eq!(DataPattern::parse(s).unwrap().to_string(), s);
        }
    }
}
