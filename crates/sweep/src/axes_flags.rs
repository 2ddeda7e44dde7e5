//! A sweep's [`Axes`] from its flags as the user typed them (`ssdiq sim`'s comma lists),
//! checked: every error is a [`SweepError::Invalid`] naming the flag, its value and what was
//! expected.

use std::path::Path;

use ssdiq_flash::{GcMode, GcPolicy, Provision};
use ssdiq_trace::{Format, MapKind, TraceOptions};
use ssdiq_workload::units::{parse_fraction, parse_share, parse_size};
use ssdiq_workload::Pattern;

use crate::axes::{Axes, BufSpec, TraceWorkload, Warmup, Workload, Writes};
use crate::error::{invalid, SweepError};

/// The flags of a sweep, as text; each list is comma-separated (the defaults are the
/// caller's).
#[derive(Clone, Debug, Default)]
pub struct SweepFlags<'a> {
    pub capacity: &'a str,
    pub page: &'a str,
    pub block: &'a str,
    pub fill: Option<&'a str>,
    pub op: Option<&'a str>,
    pub reserve: &'a str,
    pub gc: &'a str,
    pub gc_mode: &'a str,
    pub gc_frontier: bool,
    pub gc_frontier_share: Option<&'a str>,
    /// `--wear-level-gap`; `None` is off.
    pub wear_level_gap: Option<&'a str>,
    pub pattern: &'a str,
    pub warmup: &'a str,
    pub writes: Option<&'a str>,
    pub seed: &'a str,
    pub write_buffer: &'a str,
    /// Trace files, replacing `pattern`.
    pub trace: Option<&'a str>,
    pub trace_format: Option<&'a str>,
    pub trace_device: Option<&'a str>,
    pub trace_map: Option<&'a str>,
}

/// Splits a comma list. Patterns may contain commas themselves (`zones:80@20,20@80`): a
/// token that does not start with a letter continues the previous item.
fn split_list(text: &str, what: &str) -> Result<Vec<String>, SweepError> {
    let mut out: Vec<String> = Vec::new();
    for tok in text.split(',') {
        let t = tok.trim();
        let starts_item = t.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        match out.last_mut() {
            Some(prev) if what == "--pattern" && !starts_item => {
                prev.push(',');
                prev.push_str(t);
            }
            _ => out.push(t.to_string()),
        }
    }
    if out.iter().any(|s| s.is_empty()) {
        return Err(invalid(format!(
            "invalid {what} \"{text}\": empty item in the list"
        )));
    }
    Ok(out)
}

fn parse_list<T>(
    text: &str,
    what: &str,
    f: impl Fn(&str) -> Result<T, SweepError>,
) -> Result<Vec<T>, SweepError> {
    split_list(text, what)?.iter().map(|s| f(s)).collect()
}

fn or_invalid<T, E: std::fmt::Display>(r: Result<T, E>) -> Result<T, SweepError> {
    r.map_err(|e| invalid(e.to_string()))
}

fn size(s: &str, what: &str) -> Result<u64, SweepError> {
    let v = parse_size(s).map_err(|e| invalid(format!("invalid {what} \"{s}\": {e}")))?;
    if v == 0 {
        return Err(invalid(format!("invalid {what} \"{s}\": must be > 0")));
    }
    Ok(v)
}

fn number(s: &str, what: &str) -> Result<f64, SweepError> {
    parse_share(s).ok_or_else(|| invalid(format!("invalid {what} \"{s}\": expected a number")))
}

/// `--write-buffer`: "0", a fraction ("0.02%", "0.0002") of the physical capacity, or a size.
fn buffer(s: &str) -> Result<BufSpec, SweepError> {
    if s.ends_with('%') || s.parse::<f64>().is_ok() {
        let v = number(s, "--write-buffer")?;
        if !(0.0..1.0).contains(&v) {
            return Err(invalid(format!(
                "invalid --write-buffer \"{s}\": a fraction must be >= 0 and < 1"
            )));
        }
        Ok(BufSpec::Fraction(v))
    } else {
        Ok(BufSpec::Bytes(size(s, "--write-buffer")?))
    }
}

/// The error of a whole-number flag that did not parse: a number too large for the flag is
/// called that, not "not a whole number".
fn whole_number_error(
    flag: &str,
    text: &str,
    e: &std::num::ParseIntError,
    expected: &str,
) -> SweepError {
    match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            invalid(format!("invalid {flag} \"{text}\": too large; {expected}"))
        }
        _ => invalid(format!("invalid {flag} \"{text}\": {expected}")),
    }
}

impl SweepFlags<'_> {
    /// How a trace file of this sweep is read.
    pub fn trace_options(&self, path: &Path) -> Result<TraceOptions, SweepError> {
        Ok(TraceOptions {
            path: path.to_path_buf(),
            format: or_invalid(self.trace_format.map(str::parse::<Format>).transpose())?,
            device: self.trace_device.map(str::to_string),
        })
    }

    /// The sweep's lists.
    pub fn axes(&self) -> Result<Axes, SweepError> {
        let provisions: Vec<Provision> = match (self.fill, self.op) {
            (_, Some(op)) => parse_list(op, "--op", |s| Ok(Provision::Op(number(s, "--op")?)))?,
            (Some(f), None) => {
                parse_list(f, "--fill", |s| Ok(Provision::Fill(number(s, "--fill")?)))?
            }
            (None, None) => vec![Provision::Fill(0.875)],
        };
        let workloads = match self.trace {
            Some(list) => {
                let map = match self.trace_map {
                    None => MapKind::Compact,
                    Some(m) => m.parse().map_err(invalid)?,
                };
                parse_list(list, "--trace", |s| {
                    Ok(Workload::Trace(TraceWorkload {
                        options: self.trace_options(Path::new(s))?,
                        map,
                    }))
                })?
            }
            None => parse_list(self.pattern, "--pattern", |s| {
                Ok(Workload::Pattern(or_invalid(Pattern::parse(s))?))
            })?,
        };
        let default_writes = if self.trace.is_some() { "1pass" } else { "10x" };
        let writes = self.writes.unwrap_or(default_writes);
        Ok(Axes {
            capacities: parse_list(self.capacity, "--capacity", |s| size(s, "--capacity"))?,
            pages: parse_list(self.page, "--page", |s| size(s, "--page"))?,
            blocks: parse_list(self.block, "--block", |s| size(s, "--block"))?,
            provisions,
            reserves: parse_list(self.reserve, "--reserve", |s| {
                let expected = "expected a whole number from 1 to 4294967295";
                match s.parse::<u32>() {
                    Ok(r) if r >= 1 => Ok(r),
                    Ok(_) => Err(invalid(format!("invalid --reserve \"{s}\": {expected}"))),
                    Err(e) => Err(whole_number_error("--reserve", s, &e, expected)),
                }
            })?,
            policies: parse_list(self.gc, "--gc", |s| or_invalid(s.parse::<GcPolicy>()))?,
            modes: parse_list(self.gc_mode, "--gc-mode", |s| {
                s.parse::<GcMode>().map_err(invalid)
            })?,
            warmups: parse_list(self.warmup, "--warmup", |s| {
                Warmup::parse(s).map_err(invalid)
            })?,
            gc_frontier: self.gc_frontier || self.gc_frontier_share.is_some(),
            gc_frontier_shares: match self.gc_frontier_share {
                Some(list) => parse_list(list, "--gc-frontier-share", |s| {
                    or_invalid(parse_fraction(s, "--gc-frontier-share"))
                })?,
                None => vec![1.0],
            },
            wear_level_gaps: match self.wear_level_gap {
                Some(list) => parse_list(list, "--wear-level-gap", |s| {
                    let expected = "expected a whole number of erases, 0 (off) to 4294967295";
                    s.parse::<u32>()
                        .map_err(|e| whole_number_error("--wear-level-gap", s, &e, expected))
                })?,
                None => vec![0],
            },
            workloads,
            writes: parse_list(writes, "--writes", |s| Writes::parse(s).map_err(invalid))?,
            seeds: parse_list(self.seed, "--seed", |s| {
                s.parse::<u64>().map_err(|e| {
                    whole_number_error("--seed", s, &e, "expected a whole number up to 2^64 - 1")
                })
            })?,
            buffers: parse_list(self.write_buffer, "--write-buffer", buffer)?,
        })
    }
}
