//! The store's options from its flags as the user typed them (`ssdiq store`'s), checked:
//! every error is a `FlagError` naming the flag, its value and what was expected.

use ssdiq_workload::units::{format_size, parse_share, parse_size};

use crate::driver::{Until, Workload};
use crate::error::FlagError;
use crate::experiment::Phases;
use crate::rows::{self, Row};
use crate::setup::{BackendChoice, Options};
use crate::store::DataMode;

/// The most a warm-up or a measured window may write, in device capacities: the paper runs
/// to 4; beyond this a run would not end in any time worth waiting for.
const MAX_CAPACITIES: f64 = 1000.0;
/// The most operations `--measure-ops` may ask for.
const MAX_OPS: f64 = 1e12;

/// The flags of one store configuration, as text (the defaults are the caller's).
#[derive(Clone, Debug, Default)]
pub struct StoreFlags<'a> {
    pub in_place: bool,
    pub no_dwb: bool,
    pub compression: bool,
    pub gdt: bool,
    pub nowa: bool,
    /// `--align-gc-unit`: `Some("device")` for the drive's own unit, or a size.
    pub align_gc_unit: Option<&'a str>,
    pub zone: Option<&'a str>,
    pub open_zones: u32,
    pub backend: &'a str,
    pub fdp_handles: u16,
    pub trim_on_reset: bool,
    pub fill: &'a str,
    pub buffer: &'a str,
    pub batch: u32,
    pub theta: &'a str,
    pub pattern: Option<&'a str>,
    pub read_fraction: &'a str,
    pub records_per_page: u32,
    pub data_ratio: &'a str,
    pub warmup: &'a str,
    pub measure: &'a str,
    pub measure_ops: Option<&'a str>,
    pub workers: u32,
    pub no_verify: bool,
    pub data: &'a str,
    pub check_model: bool,
    pub seed: u64,
}

fn invalid(msg: String) -> FlagError {
    FlagError(msg)
}

/// A fraction: 0.9 or 90%.
pub fn parse_fraction(flag: &str, s: &str) -> Result<f64, FlagError> {
    parse_share(s).ok_or_else(|| {
        invalid(format!(
            "invalid {flag} \"{s}\": expected a number like 0.9 or 90%"
        ))
    })
}

/// A bound in bytes: a plain number is in device capacities; at most [`MAX_CAPACITIES`].
fn parse_writes(flag: &str, s: &str, capacity: u64) -> Result<u64, FlagError> {
    let bytes = match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => x * capacity as f64,
        _ => parse_size(s).map_err(|_| {
            invalid(format!(
                "invalid {flag} \"{s}\": expected device capacities (like 3) or a size (like 8GiB)"
            ))
        })? as f64,
    };
    if bytes > MAX_CAPACITIES * capacity as f64 {
        return Err(invalid(format!(
            "invalid {flag} \"{s}\": at most {MAX_CAPACITIES} device capacities ({})",
            format_size((MAX_CAPACITIES * capacity as f64) as u64)
        )));
    }
    Ok(bytes as u64)
}

/// A count like 1M or 500k, from 1 to [`MAX_OPS`].
fn parse_count(flag: &str, s: &str) -> Result<u64, FlagError> {
    let t = s.trim();
    let (num, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('G') => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    num.parse::<f64>()
        .ok()
        .map(|v| v * mult)
        .filter(|v| *v >= 1.0 && *v <= MAX_OPS)
        .map(|v| v as u64)
        .ok_or_else(|| {
            invalid(format!(
                "invalid {flag} \"{s}\": expected a count from 1 to {MAX_OPS:e}, like 1M or 500k"
            ))
        })
}

/// An error unless `v` lies in `lo..=hi`.
fn in_range(flag: &str, v: u32, lo: u32, hi: u32, why: &str) -> Result<(), FlagError> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(invalid(format!(
            "invalid {flag} \"{v}\": expected {lo} to {hi} ({why})"
        )))
    }
}

/// A row of the paper's tables: how it changes the options.
pub fn row_options(name: &str, base: &Options) -> Result<Options, FlagError> {
    Row::parse(name).map(|r| r.apply(base)).ok_or_else(|| {
        invalid(format!(
            "invalid --rows entry \"{name}\": expected {}",
            rows::expected()
        ))
    })
}

impl StoreFlags<'_> {
    /// The integer flags, before anything else is looked at.
    pub fn check_ranges(&self) -> Result<(), FlagError> {
        in_range(
            "--records-per-page",
            self.records_per_page,
            1,
            1024,
            "records in a 4 KiB page",
        )?;
        in_range(
            "--batch",
            self.batch,
            1,
            1 << 16,
            "pages per eviction batch",
        )?;
        in_range(
            "--workers",
            self.workers,
            1,
            4096,
            "concurrent operations on the emulated drive",
        )?;
        in_range(
            "--open-zones",
            self.open_zones,
            1,
            1024,
            "zones appended at once",
        )?;
        in_range(
            "--fdp-handles",
            self.fdp_handles as u32,
            1,
            64,
            "placement handles",
        )?;
        Ok(())
    }

    /// The configuration the flags describe (the buffer is set per row, [`Self::buffer_share`]);
    /// `emulated` is false when `target` is a file or a device.
    pub fn options(&self, target: &str, emulated: bool) -> Result<Options, FlagError> {
        let backend = match self.backend {
            "conventional" => BackendChoice::Conventional,
            "fdp" => BackendChoice::Fdp,
            "zns" => BackendChoice::Zns,
            other => {
                return Err(invalid(format!(
                    "invalid --backend \"{other}\": expected conventional, fdp or zns"
                )))
            }
        };
        let size = |flag: &str, s: &str| {
            parse_size(s).map_err(|e| invalid(format!("invalid {flag} \"{s}\": {}", e.reason)))
        };
        let align = match self.align_gc_unit {
            None => None,
            Some("device") => Some(None),
            Some(s) => Some(Some(size("--align-gc-unit", s)?)),
        };
        let data = match self.data {
            "bytes" => DataMode::Bytes,
            "model" => DataMode::Model,
            other => {
                return Err(invalid(format!(
                    "invalid --data \"{other}\": expected bytes or model"
                )))
            }
        };
        if data == DataMode::Model && self.check_model {
            return Err(invalid(
                "invalid --check-model with --data model: the check compares the model with real LZ4 sizes, which only --data bytes has".to_string(),
            ));
        }
        if data == DataMode::Model && !emulated {
            return Err(invalid(format!(
                "invalid --data model: {target} is not an emulated drive; the model data mode runs on emu:PROFILE targets only"
            )));
        }
        Ok(Options {
            out_of_place: !self.in_place,
            dwb: !self.no_dwb,
            compression: self.compression,
            gdt: self.gdt,
            nowa: self.nowa,
            align,
            zone: self.zone.map(|z| size("--zone", z)).transpose()?,
            open_zones: self.open_zones,
            backend,
            fill: parse_fraction("--fill", self.fill)?,
            buffer: 0.0,
            evict_batch: self.batch,
            records_per_page: self.records_per_page,
            data_ratio: parse_fraction("--data-ratio", self.data_ratio)?,
            gdt_groups: 2,
            trim_on_reset: self.trim_on_reset,
            verify: !self.no_verify,
            seed: self.seed,
            data,
        })
    }

    /// YCSB-A at `--theta`, or a page-level `--pattern`.
    pub fn workload(&self) -> Result<Workload, FlagError> {
        let rf = parse_fraction("--read-fraction", self.read_fraction)?;
        Ok(match self.pattern {
            Some(p) => Workload::Pages {
                pattern: p.to_string(),
                read_fraction: rf,
            },
            None => Workload::Ycsb {
                theta: self
                    .theta
                    .parse::<f64>()
                    .ok()
                    .filter(|t| *t > 0.0 && t.is_finite())
                    .ok_or_else(|| {
                        invalid(format!(
                            "invalid --theta \"{}\": expected a number > 0",
                            self.theta
                        ))
                    })?,
                read_fraction: rf,
            },
        })
    }

    /// `--buffer` as a share of a dataset filling `fill` of `capacity` bytes.
    pub fn buffer_share(&self, fill: f64, capacity: u64) -> Result<f64, FlagError> {
        match self.buffer.trim().strip_suffix('%') {
            Some(_) => parse_fraction("--buffer", self.buffer),
            None => {
                let b = parse_size(self.buffer).map_err(|e| {
                    invalid(format!(
                        "invalid --buffer \"{}\": {}",
                        self.buffer, e.reason
                    ))
                })?;
                Ok(b as f64 / (fill * capacity as f64))
            }
        }
    }

    /// The phases' bounds on a device of `capacity` bytes, checked.
    pub fn phases(
        &self,
        capacity: u64,
        virtual_time: bool,
        op_cpu_ns: u64,
    ) -> Result<Phases, FlagError> {
        Ok(Phases {
            warmup: Until {
                ops: None,
                db_bytes: Some(parse_writes("--warmup", self.warmup, capacity)?),
            },
            measure: match self.measure_ops {
                Some(n) => {
                    // Checked although the operations bound it: a bad value is never
                    // passed over in silence.
                    parse_writes("--measure", self.measure, capacity)?;
                    Until {
                        ops: Some(parse_count("--measure-ops", n)?),
                        db_bytes: None,
                    }
                }
                None => {
                    let b = parse_writes("--measure", self.measure, capacity)?;
                    if b == 0 {
                        return Err(invalid(format!(
                            "invalid --measure \"{}\": the measured window must write something (> 0)",
                            self.measure
                        )));
                    }
                    Until {
                        ops: None,
                        db_bytes: Some(b),
                    }
                }
            },
            workers: if virtual_time { self.workers } else { 1 },
            op_cpu_ns,
        })
    }
}
