//! Operations and the `--rw` mix, named like fio: `read`, `write`, `randread`, `randwrite`,
//! `rw:70`/`randrw:70` (70% reads), `trim`, `randtrim`, `write-zeroes`.

use std::fmt;

pub use crate::error::MixError;
use crate::pattern::Pattern;
use crate::rng::SeededRng;

pub use ssdiq_schema::op::Op;

/// What each request of a job does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RwMix {
    /// Percent of page requests that read; the rest write. Ignored when `only` is set.
    pub read_percent: u32,
    /// A single non-read/write op (trim, write-zeroes) for every request.
    pub only: Option<Op>,
    /// `rand*` forms: the pattern to use when the user gives none.
    pub random: bool,
}

pub const RW_FORMS: &str =
    "read, write, randread, randwrite, rw:R, randrw:R (R = read percent), trim, randtrim, write-zeroes";

impl RwMix {
    pub fn parse(input: &str) -> Result<Self, MixError> {
        let err = |reason: String| MixError {
            input: input.to_string(),
            reason,
        };
        let s = input.trim();
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        let rw = |read_percent, random| RwMix {
            read_percent,
            only: None,
            random,
        };
        let only = |op, random| RwMix {
            read_percent: 0,
            only: Some(op),
            random,
        };
        let mix = match name {
            "read" => rw(100, false),
            "randread" => rw(100, true),
            "write" => rw(0, false),
            "randwrite" => rw(0, true),
            "rw" | "readwrite" | "randrw" => {
                let r = match arg {
                    None => 50,
                    Some(a) => a
                        .trim()
                        .trim_end_matches('%')
                        .parse::<u32>()
                        .ok()
                        .filter(|&r| r <= 100)
                        .ok_or_else(|| err(format!("read percent must be 0..100, got \"{a}\"")))?,
                };
                return Ok(rw(r, name == "randrw"));
            }
            "trim" => only(Op::Trim, false),
            "randtrim" => only(Op::Trim, true),
            "write-zeroes" | "write_zeroes" | "zero" => only(Op::WriteZeroes, false),
            other => return Err(err(format!("unknown mix \"{other}\"; expected {RW_FORMS}"))),
        };
        if arg.is_some() {
            return Err(err(format!("{name} takes no argument")));
        }
        Ok(mix)
    }

    /// The pattern implied when the user gives none: `uniform` for `rand*`, else `seq`.
    pub fn default_pattern(&self) -> Pattern {
        if self.random {
            Pattern::Uniform
        } else {
            Pattern::Seq
        }
    }

    /// Every op this mix can issue.
    pub fn ops(&self) -> Vec<Op> {
        match self.only {
            Some(op) => vec![op],
            None => match self.read_percent {
                100 => vec![Op::Read],
                0 => vec![Op::Write],
                _ => vec![Op::Read, Op::Write],
            },
        }
    }

    pub fn writes(&self) -> bool {
        self.ops().iter().any(|o| o.modifies())
    }

    #[inline]
    pub fn pick(&self, rng: &mut SeededRng) -> Op {
        if let Some(op) = self.only {
            return op;
        }
        match self.read_percent {
            100 => Op::Read,
            0 => Op::Write,
            r => {
                if rng.below(100) < r as u64 {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        }
    }
}

impl fmt::Display for RwMix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = if self.random { "rand" } else { "" };
        match self.only {
            Some(Op::Trim) => write!(f, "{prefix}trim"),
            Some(op) => write!(f, "{}", op.name().replace('_', "-")),
            None => match self.read_percent {
                100 => write!(f, "{prefix}read"),
                0 => write!(f, "{prefix}write"),
                r => write!(f, "{prefix}rw:{r}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fio_names() {
        assert_eq!(RwMix::parse("randwrite").unwrap().ops(), vec![Op::Write]);
        assert_eq!(
            RwMix::parse("randwrite").unwrap().default_pattern(),
            Pattern::Uniform
        );
        assert_eq!(
            RwMix::parse("write").unwrap().default_pattern(),
            Pattern::Seq
        );
        assert_eq!(RwMix::parse("randrw:70").unwrap().read_percent, 70);
        assert_eq!(RwMix::parse("rw").unwrap().read_percent, 50);
        assert_eq!(RwMix::parse("trim").unwrap().ops(), vec![Op::Trim]);
        assert_eq!(
            RwMix::parse("write-zeroes").unwrap().ops(),
            vec![Op::WriteZeroes]
        );
        for s in [
            "read",
            "randwrite",
            "randrw:70",
            "rw:30",
            "trim",
            "randtrim",
            "write-zeroes",
        ] {
            assert_eq!(RwMix::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(
            RwMix::parse("randrw:170").unwrap_err().to_string(),
            "invalid --rw \"randrw:170\": read percent must be 0..100, got \"170\""
        );
        assert!(RwMix::parse("scribble").is_err());
        assert!(RwMix::parse("read:5").is_err());
    }

    #[test]
    fn mixed_picks_the_read_share() {
        let m = RwMix::parse("randrw:70").unwrap();
        let mut rng = SeededRng::new(1);
        let reads = (0..100_000)
            .filter(|_| m.pick(&mut rng) == Op::Read)
            .count();
        // sigma = sqrt(0.21 * 1e5) ~ 145
        assert!((69_400..70_600).contains(&reads), "{reads}");
    }
}
