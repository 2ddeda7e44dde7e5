//! What moves a prediction: each knob of a profile that a run does not identify, set to either
//! end of its plausible range, and how far every prediction of the fit moves from the
//! profile's own (`bench/fit-sensitivity.sh` prints docs/fit.md's table from it).
//!
//! Invariants: a knob's ends are plausible for a drive of the library (each end is a value a
//! library profile or a cited drive has, or the range docs/fit.md states); both ends of every
//! knob give a valid profile on every library profile the fit starts from (tested); a move is
//! relative to the profile's own prediction at the same point, and a point the profile or the
//! variant cannot measure (NaN) moves nothing.

use ssdiq_schema::Prediction;

use crate::predict::predictions;
use crate::profile_text::{comment, get, set};
use crate::FitError;

/// A value a knob sets.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// A TOML literal.
    Literal(&'static str),
    /// The profile's own value times a factor (rounded where the profile's is a whole number).
    Times(f64),
    /// A sixth of the profile's native `program_us`: an SLC program unit (one bit of three,
    /// and a faster algorithm), as the library's consumer drives have it. A profile that has a
    /// cache keeps its own (fitted to the init's throughput, or the same guess).
    SlcProgram,
    /// The literal, but not below the profile's own value where its comment calls that value
    /// [`LOWER_BOUND`] (a range then spans from the fitted value up, not down).
    AtLeastOwn(&'static str),
    /// The `i`-th of the library's GC families ([`FAMILIES`]) other than the profile's own
    /// policy, as a TOML string: a range over the policy spans the families the twin is not.
    OtherFamily(usize),
    /// The GC unit held while the channels move by this factor: the planes divided by it where
    /// that leaves a whole number of them, from 1 to 4, and the program units per block where
    /// it does not. (Set on the planes' key; the units' key takes it where the planes cannot.)
    HoldUnit(f64),
    /// The share of relocated data a GC frontier keeps apart, where the profile has a frontier
    /// (elsewhere nothing: a policy without one has no share to move).
    FrontierShare(f64),
}

/// What a fitted value's comment says where the figure it was fitted to bounds it from below
/// only: the range still spans its knob, from that value up ([`Value::AtLeastOwn`]).
pub const LOWER_BOUND: &str = "a lower bound";

/// What a buffer size's comment says where the drive's write burst after idle identified it
/// (`fitter::tails::set_buffer_from_burst`).
pub const BURST_MARK: &str = "write burst after idle:";

/// The GC families of the library, in the order a policy knob's ends take them.
pub const FAMILIES: [&str; 3] = ["greedy", "cost-benefit", "2r-greedy"];

/// The `i`-th family of [`FAMILIES`] that is not `own`.
pub fn other_family(own: &str, i: usize) -> &'static str {
    FAMILIES
        .iter()
        .copied()
        .filter(|f| *f != own)
        .nth(i)
        .expect("two families besides any policy")
}

/// One key a knob's end sets.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub section: &'static str,
    pub key: &'static str,
    pub value: Value,
}

const fn lit(section: &'static str, key: &'static str, v: &'static str) -> Setting {
    Setting {
        section,
        key,
        value: Value::Literal(v),
    }
}

const fn times(section: &'static str, key: &'static str, f: f64) -> Setting {
    Setting {
        section,
        key,
        value: Value::Times(f),
    }
}

const fn at_least_own(section: &'static str, key: &'static str, v: &'static str) -> Setting {
    Setting {
        section,
        key,
        value: Value::AtLeastOwn(v),
    }
}

const fn hold_unit(f: f64) -> Setting {
    Setting {
        section: "nand",
        key: "planes",
        value: Value::HoldUnit(f),
    }
}

/// A property of a drive a run may leave open, and the two ends of its plausible range.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    /// What it is, as docs/fit.md's table names it.
    pub name: &'static str,
    /// The ends, as shown ("none", "x2").
    pub labels: [&'static str; 2],
    pub ends: [&'static [Setting]; 2],
    /// Why the range is plausible.
    pub why: &'static str,
    /// Whether a prediction's range spans it: one of its ends, conditioned on the uniform WA,
    /// moved a prediction by more than 5% in docs/fit.md's sensitivity table (emu:pm9a3 at
    /// 1 GiB), or on a round trip's drive its `why` names (the buffer's size, which moves
    /// nothing on pm9a3, whose buffer absorbs no rewrites); the others moved none by more than
    /// 0.1%.
    pub in_range: bool,
    /// The key whose fitted value settles the knob, where not every key its ends set must be
    /// (the SLC cache's size settles it: its program time moves the throughputs, not the WA,
    /// and only where the cache has room), and the figure its comment must name where the fit
    /// also sets the key from figures that do not identify it (the buffer's size: only the
    /// write burst after idle); `None`: every key.
    pub settled_by: Option<(&'static str, &'static str, Option<&'static str>)>,
    /// Whether the range spans it even where the fit set it: the run's figures resolve it
    /// only coarsely, or only given keys the run leaves open.
    pub coarse: bool,
}

impl Knob {
    /// Whether an end holds the GC unit against the other keys ([`Value::HoldUnit`]).
    pub fn holds_unit(&self) -> bool {
        self.ends
            .iter()
            .flat_map(|e| e.iter())
            .any(|s| matches!(s.value, Value::HoldUnit(_)))
    }

    /// End `end`'s label on profile `text`: a family end names the family it sets there.
    pub fn label(&self, end: usize, text: &str) -> String {
        for s in self.ends[end] {
            if let Value::OtherFamily(i) = s.value {
                let own = get(text, s.section, s.key).unwrap_or_default();
                return other_family(own.trim_matches('"'), i).to_string();
            }
        }
        self.labels[end].to_string()
    }
}

/// The knobs a prediction's range spans ([`crate::range`]).
pub fn range_knobs() -> impl Iterator<Item = &'static Knob> {
    KNOBS.iter().filter(|k| k.in_range)
}

/// The knobs a fit keeps from its base profile (`fitter::mark_kept`), with their ranges.
pub const KNOBS: &[Knob] = &[
    Knob {
        name: "buffer.rewrite_window",
        labels: ["none", "full"],
        ends: [
            &[lit("buffer", "rewrite_window", "\"none\"")],
            &[lit("buffer", "rewrite_window", "\"full\"")],
        ],
        why: "a staging buffer (9 library profiles) to one that absorbs every rewrite it holds",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "buffer.buffer_kib",
        labels: ["x0.5", "x2"],
        ends: [
            &[times("buffer", "buffer_kib", 0.5)],
            &[times("buffer", "buffer_kib", 2.0)],
        ],
        why: "half to twice the size: the skewed WA and the load tell sizes apart only as far as a buffer absorbs rewrites or fills, and the write burst after idle identifies it (seed 66's hidden drive 11: 64 MiB, its twin 32 MiB from the load and the skewed WA; Zipf 1.2 WA 0.29 for the twin's 0.41, and the twin at 64 MiB gives 0.29)",
        in_range: true,
        settled_by: Some(("buffer", "buffer_kib", Some(BURST_MARK))),
        coarse: false,
    },
    Knob {
        name: "gc.wear_level_gap",
        labels: ["off", "5"],
        ends: [
            &[lit("gc", "wear_level_gap", "0")],
            &[lit("gc", "wear_level_gap", "5")],
        ],
        why: "no static wear levelling, to one that moves cold data at a gap of 5 erases",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "nand.units_per_block (superblock)",
        labels: ["x0.5", "x2"],
        ends: [
            &[times("nand", "units_per_block", 0.5)],
            &[times("nand", "units_per_block", 2.0)],
        ],
        why: "blocks of 18-24 MB at full size are the base's; half and twice cover the library's 32-447 units with its dies",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "drive.policy",
        // On a greedy profile; on another, greedy takes its own place (`other_family`).
        labels: ["cost-benefit", "2r-greedy"],
        ends: [
            &[Setting {
                section: "drive",
                key: "policy",
                value: Value::OtherFamily(0),
            }],
            // 2R merges victims in place: it has no GC frontier (and where the second other
            // family is cost-benefit, the profile was 2R and had none either).
            &[
                Setting {
                    section: "drive",
                    key: "policy",
                    value: Value::OtherFamily(1),
                },
                lit("drive", "gc_frontier", "false"),
                lit("drive", "gc_frontier_share", ""),
            ],
        ],
        why: "the library's families other than the profile's own (the fit tries each; where the skews do not tell them apart, the policy is its guess)",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "drive.gc_frontier_share",
        labels: ["0.5", "1"],
        ends: [
            &[Setting {
                section: "drive",
                key: "gc_frontier_share",
                value: Value::FrontierShare(0.5),
            }],
            &[Setting {
                section: "drive",
                key: "gc_frontier_share",
                value: Value::FrontierShare(1.0),
            }],
        ],
        why: "half to all of relocated data apart, with a GC frontier (the library's shares are 0.75 to 1; the WA stage's fit of a share scores the protocol's skews, which hardly tell 0.75 from 1: seed 60's hidden drive 11); a twin without one gets one at both ends, but 2R, which has none",
        in_range: true,
        settled_by: None,
        coarse: true,
    },
    Knob {
        name: "drive.gc_mode",
        labels: ["naive", "batched"],
        ends: [
            &[lit("drive", "gc_mode", "\"naive\"")],
            &[lit("drive", "gc_mode", "\"batched\"")],
        ],
        why: "one victim per trigger into the host's block, or victims gathered apart (the WA stage tries the other mode; where the skews do not tell the modes apart, the base's is its guess); open where fitted too, as the skews tell the modes apart only at the twin's GC watermarks, which the run leaves open (seed 64's hidden drive 3: batched at 8/4 and naive at 3/2 both met its skewed WA, and at half the OP only the drive's pair gave its uniform WA, 6.76 where 8/4 alone gave 6.44)",
        in_range: true,
        settled_by: None,
        coarse: true,
    },
    Knob {
        name: "nand.channels (dies)",
        labels: ["x0.5", "x2"],
        // The dies alone, at the twin's GC unit: the unit is the superblock knob's (and the run
        // may identify it), and a drive of twice the dies at half the planes paces its GC and
        // its buffer's drain otherwise (seed 58's hidden drive 15).
        ends: [
            &[times("nand", "channels", 0.5), hold_unit(0.5)],
            &[times("nand", "channels", 2.0), hold_unit(2.0)],
        ],
        why: "the library's data-center drives have 4-32 dies; the GC unit held (half or twice the planes, or the block)",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "nand.planes",
        labels: ["2", "4"],
        ends: [
            &[lit("nand", "planes", "2")],
            &[lit("nand", "planes", "4")],
        ],
        why: "2-4 planes per die (docs/sources.md#flash-timing)",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "nand.erase_us",
        labels: ["x0.5", "x2"],
        ends: [
            &[times("nand", "erase_us", 0.5)],
            &[times("nand", "erase_us", 2.0)],
        ],
        why: "tBERS 3-5 ms and beyond (docs/sources.md#flash-timing)",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "nand.channel_mb_s",
        labels: ["800", "3600"],
        ends: [
            &[at_least_own("nand", "channel_mb_s", "800")],
            &[at_least_own("nand", "channel_mb_s", "3600")],
        ],
        why: "ONFI 4 to ONFI 5.1 NAND I/O; where the sequential read needs faster channels than the twin's, the read stage sets their lower bound and the range spans from it up",
        in_range: true,
        settled_by: Some(("nand", "channel_mb_s", None)),
        coarse: false,
    },
    Knob {
        name: "gc watermarks",
        labels: ["2/1", "8/4"],
        ends: [
            &[
                lit("gc", "low_watermark", "2"),
                lit("gc", "critical_watermark", "1"),
            ],
            &[
                lit("gc", "low_watermark", "8"),
                lit("gc", "critical_watermark", "4"),
            ],
        ],
        why: "free superblocks where background and foreground GC start",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "gc.idle_mb_s",
        labels: ["0", "800"],
        ends: [
            &[lit("gc", "idle_mb_s", "0")],
            &[lit("gc", "idle_mb_s", "800")],
        ],
        why: "no idle-time GC, to one at half the dies' program bandwidth",
        in_range: false,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "slc.slc_share",
        labels: ["0", "0.1"],
        ends: [
            &[Setting {
                section: "slc",
                key: "slc_share",
                value: Value::AtLeastOwn("0"),
            }],
            &[
                Setting {
                    section: "slc",
                    key: "slc_share",
                    value: Value::AtLeastOwn("0.1"),
                },
                Setting {
                    section: "slc",
                    key: "slc_program_us",
                    value: Value::SlcProgram,
                },
            ],
        ],
        why: "no SLC cache (data-center), to a consumer drive's 5-16% (the library's 970 EVO Plus, NV2, GSM2NE)",
        in_range: true,
        settled_by: Some(("slc", "slc_share", None)),
        coarse: false,
    },
    Knob {
        name: "map.map_cache_kib",
        labels: ["DRAM", "64 MiB"],
        ends: [
            &[lit("map", "map_cache_kib", "0")],
            &[lit("map", "map_cache_kib", "65536")],
        ],
        why: "the whole map in DRAM, or a DRAM-less drive's cache (the library's two)",
        in_range: true,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "nand.suspend timings",
        labels: ["x0.5", "x2"],
        ends: [
            &[
                times("nand", "program_suspend_us", 0.5),
                times("nand", "erase_suspend_us", 0.5),
            ],
            &[
                times("nand", "program_suspend_us", 2.0),
                times("nand", "erase_suspend_us", 2.0),
            ],
        ],
        why: "MQSim's suspend times, halved and doubled",
        in_range: false,
        settled_by: None,
        coarse: false,
    },
    Knob {
        name: "host.dram_read_us",
        labels: ["1", "5"],
        ends: [
            &[lit("host", "dram_read_us", "1")],
            &[lit("host", "dram_read_us", "5")],
        ],
        why: "a read served from the controller's DRAM",
        in_range: false,
        settled_by: None,
        coarse: false,
    },
];

/// `text` with `knob` at end `end` (0 or 1).
pub fn apply(text: &str, knob: &Knob, end: usize) -> Result<String, FitError> {
    let mut t = text.to_string();
    for s in knob.ends[end] {
        let value = match s.value {
            Value::HoldUnit(f) => {
                t = hold_unit_at(&t, text, f)?;
                continue;
            }
            Value::FrontierShare(share) => {
                if get(text, "drive", "gc_frontier").as_deref() != Some("true") {
                    // 2R merges victims in place: it has no frontier to share.
                    let policy = get(text, "drive", "policy").unwrap_or_default();
                    if policy.trim_matches('"').starts_with("2r") {
                        continue;
                    }
                    // A twin whose relocated data go with the host's may stand for a drive
                    // that keeps some apart: the protocol's skews hardly tell them apart where
                    // another term dominates their score (seed 63's hidden drive 0, share 0.5:
                    // its twin without a frontier met the skews within 2.5% but gave 1.27 at
                    // two-zone 95/5 for the drive's 0.95).
                    t = set(&t, "drive", "gc_frontier", "true", "what if");
                }
                format!("{share}")
            }
            Value::Literal(v) => v.to_string(),
            Value::AtLeastOwn(v) => {
                if comment(text, s.section, s.key).is_some_and(|c| c.contains(LOWER_BOUND)) {
                    let own = number(text, s.section, s.key)?;
                    if v.parse::<f64>().map_or(true, |v| v <= own) {
                        continue;
                    }
                }
                v.to_string()
            }
            Value::SlcProgram => {
                if number(text, "slc", "slc_share").is_ok_and(|share| share > 0.0) {
                    continue;
                }
                format!("{:.0}", number(text, "nand", "program_us")? / 6.0)
            }
            Value::OtherFamily(i) => {
                let own = get(text, s.section, s.key).unwrap_or_default();
                format!("\"{}\"", other_family(own.trim_matches('"'), i))
            }
            Value::Times(f) => {
                let own = get(text, s.section, s.key).unwrap_or_default();
                let v = number(text, s.section, s.key)? * f;
                if own.contains('.') {
                    format!("{v:.2}")
                } else {
                    format!("{}", v.round().max(1.0))
                }
            }
        };
        t = set(&t, s.section, s.key, &value, "what if");
    }
    Ok(t)
}

/// `t` with the planes of `text` divided by `f` where whole and from 1 to 4, else its program
/// units per block (at least 1).
fn hold_unit_at(t: &str, text: &str, f: f64) -> Result<String, FitError> {
    let planes = number(text, "nand", "planes")? / f;
    if planes.fract() == 0.0 && (1.0..=4.0).contains(&planes) {
        return Ok(set(t, "nand", "planes", &format!("{planes}"), "what if"));
    }
    let units = (number(text, "nand", "units_per_block")? / f)
        .round()
        .max(1.0);
    Ok(set(
        t,
        "nand",
        "units_per_block",
        &format!("{units}"),
        "what if",
    ))
}

fn number(text: &str, section: &str, key: &str) -> Result<f64, FitError> {
    get(text, section, key)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| FitError::Profile(format!("the profile has no number {section}.{key}")))
}

/// The predictions of `text` with `knob` at end `end`; with `target`, its OP first moved until
/// its steady uniform WA meets that ([`crate::range::conditioned`]).
pub fn predictions_at_end(
    text: &str,
    knob: &Knob,
    end: usize,
    target: Option<f64>,
    seed: u64,
) -> Result<Option<Vec<Prediction>>, FitError> {
    predictions_of(apply(text, knob, end)?, target, seed)
}

/// The predictions of profile `variant`, conditioned on `target` as [`predictions_at_end`]'s;
/// `None` where no OP makes the variant meet it.
fn predictions_of(
    mut variant: String,
    target: Option<f64>,
    seed: u64,
) -> Result<Option<Vec<Prediction>>, FitError> {
    if let Some(target) = target {
        match crate::range::conditioned(&variant, target, seed)? {
            Some(v) => variant = v,
            None => return Ok(None),
        }
    }
    predictions(&variant, seed, &mut |_| {}).map(Some)
}

/// How far one knob moves one prediction: the largest relative move over both ends and the
/// curve's points, and where it is ("1.2 at none: 1.145 -> 8.880").
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Move {
    pub study: String,
    pub share: f64,
    pub at: String,
}

/// For each curve of `base`, the largest relative move of `other`'s same point, and where.
pub fn moves(base: &[Prediction], other: &[Prediction], label: &str) -> Vec<Move> {
    base.iter()
        .zip(other)
        .map(|(b, o)| {
            let mut m = Move {
                study: b.study.clone(),
                share: 0.0,
                at: "-".into(),
            };
            for (&(x, y0), &(_, y1)) in b.points.iter().zip(&o.points) {
                let share = ((y1 - y0) / y0).abs();
                if share.is_finite() && share > m.share {
                    m.share = share;
                    m.at = format!("{x} at {label}: {y0:.3} -> {y1:.3}");
                }
            }
            m
        })
        .collect()
}

/// The larger of two moves of each curve.
fn larger(a: Vec<Move>, b: Vec<Move>) -> Vec<Move> {
    a.into_iter()
        .zip(b)
        .map(|(a, b)| if b.share > a.share { b } else { a })
        .collect()
}

/// How far one knob moves each prediction.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Effect {
    pub knob: &'static str,
    pub moves: Vec<Move>,
}

/// The predictions of `text` with each knob at each end, beside `base` (the predictions of
/// `text` itself); `condition`: each end's OP moved until its steady uniform WA meets
/// `text`'s ([`crate::range::conditioned`]), as a run that measured it would leave it.
/// `progress` hears each variant.
pub fn effects(
    text: &str,
    base: &[Prediction],
    knobs: &[Knob],
    seed: u64,
    condition: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Effect>, FitError> {
    let target = match condition {
        true => Some(crate::range::uniform_waf(text, seed)?),
        false => None,
    };
    let mut out = Vec::new();
    for k in knobs {
        let mut all: Option<Vec<Move>> = None;
        for end in 0..2 {
            let label = k.label(end, text);
            progress(&format!("{} = {label}", k.name));
            let Some(p) = predictions_at_end(text, k, end, target, seed)? else {
                continue;
            };
            let m = moves(base, &p, &label);
            all = Some(match all {
                None => m,
                Some(a) => larger(a, m),
            });
        }
        out.push(Effect {
            knob: k.name,
            moves: all.unwrap_or_default(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdiq_emu::Profile;

    #[test]
    fn every_end_of_every_knob_is_a_valid_profile_on_every_base() {
        for base in ssdiq_emu::profile::SSD_IQ_PROFILES
            .iter()
            .chain(&["default"])
        {
            let text = ssdiq_emu::profile::builtin(base).unwrap();
            let own = Profile::parse(text, &[]).unwrap();
            for k in KNOBS {
                let mut moved = false;
                for end in 0..2 {
                    let t = apply(text, k, end).unwrap();
                    let p = Profile::parse_checked(&t, &[]);
                    assert!(
                        p.is_ok(),
                        "{base}: {} = {}: {:?}",
                        k.name,
                        k.labels[end],
                        p.err()
                    );
                    moved |= p.unwrap() != own;
                }
                // A frontier's share has nothing to move on a policy without a frontier.
                let shares_only = k
                    .ends
                    .iter()
                    .flat_map(|e| e.iter())
                    .all(|s| matches!(s.value, Value::FrontierShare(_)));
                assert!(
                    moved || (shares_only && !own.drive.gc_frontier),
                    "{base}: both ends of {} are the base's",
                    k.name
                );
            }
        }
    }

    #[test]
    fn a_move_is_relative_and_skips_what_was_not_measured() {
        let curve = |pts: Vec<(f64, f64)>| Prediction {
            study: "skew".into(),
            title: String::new(),
            x_axis: String::new(),
            y_axis: String::new(),
            points: pts,
            range: Vec::new(),
            range_keys: Vec::new(),
        };
        let base = [curve(vec![(0.6, 2.0), (1.2, 8.0), (1.4, f64::NAN)])];
        let other = [curve(vec![(0.6, 2.2), (1.2, 2.0), (1.4, 3.0)])];
        let m = &moves(&base, &other, "none")[0];
        assert!((m.share - 0.75).abs() < 1e-12, "{m:?}");
        assert_eq!(m.at, "1.2 at none: 8.000 -> 2.000");
    }
}
