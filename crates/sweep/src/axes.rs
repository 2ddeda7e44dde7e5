//! The parameter lists of a sweep. The product is taken in the order of the fields below
//! (capacity outermost, write buffer innermost); that order is the sweep's point order.

use ssdiq_flash::{GcMode, GcPolicy, Provision};
use ssdiq_trace::{MapKind, TraceOptions};
use ssdiq_workload::Pattern;

/// What writes to the simulated drive.
#[derive(Clone, Debug, PartialEq)]
pub enum Workload {
    Pattern(Pattern),
    Trace(TraceWorkload),
}

/// A trace and how its pages land on the drive.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceWorkload {
    pub options: TraceOptions,
    pub map: MapKind,
}

/// How much the workload writes after the sequential fill.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Writes {
    /// Multiples of the logical capacity (`10x`).
    DriveWrites(f64),
    /// Passes over a trace's writes (`1pass`); the trace starts over as often as needed.
    Passes(f64),
}

impl Writes {
    /// `10x`, `2.5` (drive writes) or `1pass`, `0.5pass` (passes over a trace).
    pub fn parse(s: &str) -> Result<Writes, String> {
        let bad = || {
            format!("invalid --writes \"{s}\": expected drive writes like 10x or 2.5, or trace passes like 1pass")
        };
        let num = |t: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| *v > 0.0 && v.is_finite())
        };
        if let Some(p) = s.strip_suffix("passes").or_else(|| s.strip_suffix("pass")) {
            return num(p).map(Writes::Passes).ok_or_else(bad);
        }
        num(s.strip_suffix('x').unwrap_or(s))
            .map(Writes::DriveWrites)
            .ok_or_else(bad)
    }
}

/// `--write-buffer`: a fraction of the physical capacity, or a size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufSpec {
    Fraction(f64),
    Bytes(u64),
}

/// `--warmup`: drive writes, or one physical capacity (SSD-iq's simulator's warm-up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Warmup {
    DriveWrites(f64),
    Physical,
}

impl Warmup {
    pub fn parse(s: &str) -> Result<Warmup, String> {
        if s.eq_ignore_ascii_case("physical") {
            return Ok(Warmup::Physical);
        }
        let t = s.strip_suffix('x').unwrap_or(s);
        t.parse()
            .ok()
            .filter(|v: &f64| *v >= 0.0 && v.is_finite())
            .map(Warmup::DriveWrites)
            .ok_or_else(|| {
                format!("invalid --warmup \"{s}\": expected drive writes like 1x or 0, or physical")
            })
    }
}

/// The lists whose cartesian product is the sweep.
#[derive(Clone, Debug)]
pub struct Axes {
    pub capacities: Vec<u64>,
    pub pages: Vec<u64>,
    pub blocks: Vec<u64>,
    pub provisions: Vec<Provision>,
    pub reserves: Vec<u32>,
    pub policies: Vec<GcPolicy>,
    pub modes: Vec<GcMode>,
    /// A separate GC frontier for every policy (2R policies always have one).
    pub gc_frontier: bool,
    /// The GC frontier's share of relocated pages (`[1.0]` unless swept).
    pub gc_frontier_shares: Vec<f64>,
    /// Static wear levelling's erase-count gaps (`[0]`, off, unless swept).
    pub wear_level_gaps: Vec<u32>,
    pub workloads: Vec<Workload>,
    pub warmups: Vec<Warmup>,
    pub writes: Vec<Writes>,
    pub seeds: Vec<u64>,
    pub buffers: Vec<BufSpec>,
}

impl Axes {
    /// Number of points, without building them.
    pub fn len(&self) -> usize {
        self.capacities.len()
            * self.pages.len()
            * self.blocks.len()
            * self.provisions.len()
            * self.reserves.len()
            * self.policies.len()
            * self.modes.len()
            * self.gc_frontier_shares.len()
            * self.wear_level_gaps.len()
            * self.warmups.len()
            * self.workloads.len()
            * self.writes.len()
            * self.seeds.len()
            * self.buffers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when every point has the same geometry.
    pub fn one_geometry(&self) -> bool {
        self.capacities.len()
            * self.pages.len()
            * self.blocks.len()
            * self.provisions.len()
            * self.reserves.len()
            == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_forms() {
        assert_eq!(Writes::parse("10x"), Ok(Writes::DriveWrites(10.0)));
        assert_eq!(Writes::parse("2.5"), Ok(Writes::DriveWrites(2.5)));
        assert_eq!(Writes::parse("1pass"), Ok(Writes::Passes(1.0)));
        assert_eq!(Writes::parse("3passes"), Ok(Writes::Passes(3.0)));
        for bad in ["0x", "x", "-1", "pass", "0pass", "nan", "1y"] {
            assert!(Writes::parse(bad).unwrap_err().contains(bad), "{bad}");
        }
    }
}
