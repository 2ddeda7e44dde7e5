//! What a measurement says of a drive, in the keys of the run result's figures
//! (`ssdiq_schema::figures`): the fit's only input, from a run's `run.json` or a paper's row.

use std::collections::BTreeMap;

use ssdiq_schema::info::InfoReport;
use ssdiq_schema::{figures as keys, steps, RunResult, Spec, StudyDoc};

use crate::load_curve::LoadCurve;
use crate::skew_curve::{self, SkewCurve};
use crate::FitError;
use ssdiq_suite::result_file::ResultDoc;

/// The idle QD1 write's median and P99.9 (over the protocol's write-latency steps): keys the
/// fit reads beside the run's figures. The median is the buffered write's own time; the P99.9
/// shows firmware stalls, which a QD1 write meets alone (no queue, no full buffer).
pub const WRITE_IDLE_P50_US: &str = "write_lat_idle_p50_us";
pub const WRITE_IDLE_P999_US: &str = "write_lat_idle_p99.9_us";
/// The uniform random writes' rate over the span of the reference window with every interval
/// counted (kIOPS; [`span_rates`]): a key the fit reads beside the run's figures.
pub const RAND_WRITE_SPAN_KIOPS: &str = "rand_write_span_kiops.uniform";

/// A run's figures as the fit reads them, the same for a drive and for its twin: each
/// figure's median, but the clean drive's best for the sequential read (a sequential read
/// after random writes reads a scattered drive; the paper's figure is the clean drive's),
/// the idle QD1 write's percentiles ([`step_percentiles`]), and all of these again over the
/// steps before the write workloads alone ([`before_values`]).
pub fn values(doc: &RunResult) -> BTreeMap<String, f64> {
    let mut v = medians(&doc.figures);
    v.extend(step_percentiles(doc));
    v.extend(span_rates(doc));
    v.extend(before_values(doc));
    v
}

/// [`RAND_WRITE_SPAN_KIOPS`] of a run: the median over its uniform random-write steps of
/// the I/Os of every whole interval inside the reference window's span over their time.
///
/// The reference window drops intervals outside 0.5-1.5x their moving mean, so its figure
/// falls further below the rate the dies sustain the burstier the GC's stalls are: seed 66's
/// hidden drive 19 (2R GC) dropped 53% of its intervals, a window figure of 1.28 kIOPS for a
/// span rate of 1.46; its twin (greedy with a GC frontier) dropped 72%, 1.29 for 1.76. Program
/// time fitted to the window figure was 17% short (2588 us for 3126). Seed 68's hidden drive
/// 10 (8 dies of 4 planes) got a twin of 16 dies of 2 planes that dropped 91%: the window
/// figures met (1.24, 1.19) with span rates of 1.26 and 1.78.
pub fn span_rates(doc: &RunResult) -> BTreeMap<String, f64> {
    let rates: Vec<f64> = doc
        .steps
        .iter()
        .filter(|s| s.name == steps::RAND_WRITE_UNIFORM)
        .filter_map(|s| {
            let [from, to] = s.value.as_ref()?.window_s?;
            let (ios, secs) = s
                .seconds
                .iter()
                .filter(|p| p.stream == "write" && !p.partial)
                .filter(|p| p.t_s >= from - 1e-9 && p.t_s < to - 1e-9)
                .fold((0u64, 0.0), |(n, t), p| {
                    (n + p.ios, t + p.span_s.or(s.interval_s).unwrap_or(1.0))
                });
            (secs > 0.0).then(|| ios as f64 / secs / 1e3)
        })
        .collect();
    ssdiq_suite::reference::median(&rates)
        .map(|m| BTreeMap::from([(RAND_WRITE_SPAN_KIOPS.to_string(), m)]))
        .unwrap_or_default()
}

/// The stage of the steps that run before a pass's write workload, on the drive its init left.
const BEFORE: &str = "before";

/// `key` over the steps before each pass's write workload only ([`before_values`]).
pub fn before(key: &str) -> String {
    format!("{key}.{BEFORE}")
}

/// The figures of the steps before each pass's write workload (sequential and random reads,
/// QD1 latencies, the sequential write), each under [`before`]'s key. A figure is the median
/// over every pass, before and after its workload; the fit's read stage runs only the steps
/// before it, so it is fitted to these (seed 61's hidden drive 12 read 458 kIOPS before and 87
/// after, a figure of 273; its twin, fitted to 273 before, read 272 before and 61 after, 167).
fn before_values(doc: &RunResult) -> BTreeMap<String, f64> {
    let steps: Vec<_> = doc
        .steps
        .iter()
        .filter(|s| s.stage.as_deref() == Some(BEFORE))
        .cloned()
        .collect();
    if steps.is_empty() {
        return BTreeMap::new();
    }
    let part = RunResult {
        steps,
        ..RunResult::default()
    };
    let mut v = medians(&ssdiq_suite::figures_of(&part));
    v.extend(step_percentiles(&part));
    v.into_iter().map(|(k, x)| (before(&k), x)).collect()
}

/// Each figure's median, but the best sequential read (see [`values`]).
fn medians(figures: &BTreeMap<String, ssdiq_schema::Figure>) -> BTreeMap<String, f64> {
    figures
        .iter()
        .map(|(k, f)| {
            let x = if k == keys::SEQ_READ_MB_S {
                f.max
            } else {
                f.median
            };
            (k.clone(), x)
        })
        .filter(|(_, x)| x.is_finite())
        .collect()
}

/// Fewest writes a step's P99.9 is counted from: over fewer it is about the step's slowest
/// write, not a tail (FEMU under TCG: 27-51 idle QD1 writes a step, and the stall stage
/// fitted 0.7 s stalls to their slowest).
pub const MIN_P999_WRITES: u64 = 1000;

/// [`WRITE_IDLE_P50_US`] and [`WRITE_IDLE_P999_US`] of a run: the median over its
/// write-latency steps of each step's percentile (the P99.9 over steps of at least
/// [`MIN_P999_WRITES`] writes only).
pub fn step_percentiles(doc: &RunResult) -> BTreeMap<String, f64> {
    let ops: Vec<_> = doc
        .steps
        .iter()
        .filter(|s| s.name == steps::WRITE_LATENCY)
        .filter_map(|s| s.ops.get("write"))
        .filter(|o| o.ios > 0)
        .collect();
    let median = |v: Vec<f64>| ssdiq_suite::reference::median(&v);
    let mut out = BTreeMap::new();
    if let Some(m) = median(ops.iter().map(|o| o.lat_ns.p50 as f64 / 1e3).collect()) {
        out.insert(WRITE_IDLE_P50_US.to_string(), m);
    }
    let tails = ops
        .iter()
        .filter(|o| o.ios >= MIN_P999_WRITES)
        .map(|o| o.lat_ns.p99_9 as f64 / 1e3)
        .collect();
    if let Some(m) = median(tails) {
        out.insert(WRITE_IDLE_P999_US.to_string(), m);
    }
    out
}

/// The three write workloads of the SSD-iq protocol and ssdiq's heavy-skew pass (Zipf 1.1,
/// absent from runs made before it), by their figure suffix.
pub const WORKLOADS: [&str; 4] = ["uniform", "twozone", "zipf", "zipf_heavy"];
/// The skewed ones: what the WA stage scores a GC policy against.
pub const SKEWED: [&str; 3] = ["twozone", "zipf", "zipf_heavy"];

#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// Where the figures come from, for the twin's source comments ("run.json", "SSD-iq paper
    /// Table 2/3: Samsung PM9A3").
    pub source: String,
    /// The drive's name (model, or the paper's name).
    pub name: String,
    pub capacity_bytes: u64,
    /// The figures were measured on an emulated drive of exactly this capacity (a twin of it
    /// runs at the same size); false for real drives and published rows, whose twin is scaled.
    pub emulated: bool,
    /// The full-size drive an emulated drive stands for (its scale: superblocks, erase time
    /// and the Zipf draws follow it); `None` for real drives and published rows.
    pub full_capacity_bytes: Option<u64>,
    /// The drive's GC unit (superblock) in bytes, when the run knew it or a `study gc-unit`
    /// of the drive found it.
    pub gc_unit_bytes: Option<u64>,
    /// Where the GC unit comes from when not from the run: a `study gc-unit` result, or the
    /// FDP reclaim unit of `ssdiq info` (`None`: the run's own).
    pub gc_unit_source: Option<String>,
    pub spec: Spec,
    /// The WA figures are measured from media-write counters; else they are implied.
    pub media_counters: bool,
    /// The run was `--quick` (its steps shortened): the twin runs the same shortened steps.
    pub quick: bool,
    /// Figure key -> value (`values` of a run).
    pub figures: BTreeMap<String, f64>,
    /// A latency-load study of the drive, when one was given.
    pub load_curve: Option<LoadCurve>,
    /// A skew study of the drive, when one was given.
    pub skew_curve: Option<SkewCurve>,
    /// MiB the run's write burst after idle took without its writes ever waiting for the
    /// flash (the burst ran and never filled the buffer, so there is no
    /// `write_burst_fast_mib`); `None` where it filled or did not run.
    pub burst_unfilled_mib: Option<f64>,
    /// The share of the offered writes the drive completed under the protocol's latency under
    /// load (the median over its steps), where it fell below [`KEPT_UP`]: the load outran the
    /// drive, so its latencies are a queue's, which no buffer, suspension or stall sets.
    pub load_outran: Option<f64>,
}

/// A load step whose drive completed less than this share of the offered writes outran it
/// (the latency-load study's knee takes 95%; this leaves room for a Poisson load's spread).
pub const KEPT_UP: f64 = 0.9;

/// The share of the offered main-load bytes each latency-under-load step completed, median
/// over the steps; `None` without such steps or without their rate.
fn load_completed(doc: &RunResult) -> Option<f64> {
    let shares: Vec<f64> = doc
        .steps
        .iter()
        .filter(|s| s.name == steps::LATENCY_UNDER_LOAD)
        .filter_map(|s| {
            let rate = s.rate_mb_s.filter(|r| *r > 0.0)?;
            let secs = s.elapsed_s.filter(|t| *t > 0.0)?;
            let bytes: u64 = s.ops.values().map(|o| o.bytes).sum();
            Some(bytes as f64 / 1e6 / secs / rate)
        })
        .collect();
    ssdiq_suite::reference::median(&shares)
}

/// Largest drive a run may describe: 1 PiB (the twin stands for it at a scaled capacity).
const MAX_CAPACITY: u64 = 1 << 50;
/// Largest figure of a run: no throughput, latency or WA of a drive comes near it.
const MAX_FIGURE: f64 = 1e12;

/// Fields no drive can have (a capacity of 0, a negative or absurd figure or datasheet value),
/// refused naming the file and the field before anything is fitted to them.
fn check_fields(doc: &RunResult, source: &str) -> Result<(), FitError> {
    let cap = doc.target.capacity_bytes;
    if !(1 << 20..=MAX_CAPACITY).contains(&cap) || !cap.is_multiple_of(512) {
        return Err(FitError::Input(format!(
            "{source}: invalid target.capacity_bytes {cap}: expected a multiple of 512 from 1 MiB to 1 PiB"
        )));
    }
    if let Some(u) = doc.target.gc_unit_bytes {
        if !(4096..=cap).contains(&u) {
            return Err(FitError::Input(format!(
                "{source}: invalid target.gc_unit_bytes {u}: expected from 4 KiB to the capacity ({cap})"
            )));
        }
    }
    for (k, f) in &doc.figures {
        for (part, v) in [("median", f.median), ("min", f.min), ("max", f.max)] {
            if !(0.0..=MAX_FIGURE).contains(&v) {
                return Err(FitError::Input(format!(
                    "{source}: invalid figures.{k}.{part} {v}: expected a number from 0 to {MAX_FIGURE:e}"
                )));
            }
        }
    }
    if let Some(spec) = &doc.spec {
        for (k, v) in spec.values() {
            if let Some(v) = v {
                if !(v > 0.0 && v <= MAX_FIGURE) {
                    return Err(FitError::Input(format!(
                        "{source}: invalid spec.{k} {v}: expected a datasheet value > 0"
                    )));
                }
            }
        }
    }
    Ok(())
}

impl Observed {
    /// The figures of a finished `ssdiq run`.
    pub fn from_run(doc: &RunResult, source: &str) -> Result<Observed, FitError> {
        if doc.kind != "run" {
            return Err(FitError::Input(format!(
                "{source}: a \"{}\" document, expected the run.json of `ssdiq run`",
                doc.kind
            )));
        }
        if doc.figures.is_empty() {
            return Err(FitError::Input(format!(
                "{source}: the run has no figures (an empty or partial run, or a result of an earlier version); run `ssdiq run` to the end"
            )));
        }
        if doc.partial {
            return Err(FitError::Input(format!(
                "{source}: a partial run (\"partial\": true, interrupted or failed): its figures miss steps; fit a run that ended"
            )));
        }
        check_fields(doc, source)?;
        let mut figures = values(doc);
        // An implied WA the run found meaningless is no WA to fit to.
        if doc.derived.implied_not_meaningful.is_some() {
            figures.retain(|k, _| !k.starts_with(keys::WAF_IMPLIED));
        }
        let burst_unfilled_mib = if figures.contains_key(keys::WRITE_BURST_FAST_MIB) {
            None
        } else {
            let bytes: u64 = doc
                .steps
                .iter()
                .filter(|s| s.name == ssdiq_schema::steps::WRITE_BURST)
                .flat_map(|s| s.seconds.iter())
                .filter(|p| p.stream == "write")
                .map(|p| p.bytes)
                .sum();
            (bytes > 0).then(|| bytes as f64 / (1u64 << 20) as f64)
        };
        Ok(Observed {
            source: source.to_string(),
            name: doc
                .target
                .model
                .clone()
                .unwrap_or_else(|| doc.target.name.clone()),
            capacity_bytes: doc.target.capacity_bytes,
            emulated: doc.target.emulated,
            full_capacity_bytes: doc
                .target
                .full_capacity_bytes
                .filter(|_| doc.target.emulated),
            gc_unit_bytes: doc.target.gc_unit_bytes,
            gc_unit_source: None,
            spec: doc.spec.clone().unwrap_or_default(),
            media_counters: doc.target.reports_media_writes,
            quick: doc.run.as_ref().is_some_and(|r| r.quick),
            figures,
            load_curve: None,
            skew_curve: None,
            burst_unfilled_mib,
            load_outran: load_completed(doc).filter(|&share| share < KEPT_UP),
        })
    }

    /// Several measurements of one drive as one: each figure's median over the inputs that
    /// have it, and whether the load outran the drive and the burst never filled its buffer
    /// as most of them say (the first input names the drive).
    pub fn merge(all: Vec<Observed>) -> Result<Observed, FitError> {
        let mut it = all.into_iter();
        let Some(mut first) = it.next() else {
            return Err(FitError::Input("no measurement to fit".into()));
        };
        let rest: Vec<Observed> = it.collect();
        if rest.is_empty() {
            return Ok(first);
        }
        for o in &rest {
            if o.capacity_bytes != first.capacity_bytes {
                return Err(FitError::Input(format!(
                    "{} and {} measured drives of different capacities ({} and {} bytes): fit one drive at a time",
                    first.source, o.source, first.capacity_bytes, o.capacity_bytes
                )));
            }
        }
        // Every figure any run has (a run's steps can differ: one burst filled, one did not).
        let keys: std::collections::BTreeSet<String> = std::iter::once(&first)
            .chain(&rest)
            .flat_map(|o| o.figures.keys().cloned())
            .collect();
        for k in keys {
            let v: Vec<f64> = std::iter::once(&first)
                .chain(&rest)
                .filter_map(|o| o.get(&k))
                .collect();
            if let Some(m) = ssdiq_suite::reference::median(&v) {
                first.figures.insert(k, m);
            }
        }
        // The load outran the drive in the merged figures where it did in most runs (a run
        // that kept up counts as a share of 1), at the median share.
        let shares: Vec<f64> = std::iter::once(&first)
            .chain(&rest)
            .map(|o| o.load_outran.unwrap_or(1.0))
            .collect();
        first.load_outran = ssdiq_suite::reference::median(&shares).filter(|&s| s < KEPT_UP);
        // An unfilled burst only where the merged figures have no filled one: no run filled.
        first.burst_unfilled_mib = if first.figures.contains_key(keys::WRITE_BURST_FAST_MIB) {
            None
        } else {
            let v: Vec<f64> = std::iter::once(&first)
                .chain(&rest)
                .filter_map(|o| o.burst_unfilled_mib)
                .collect();
            ssdiq_suite::reference::median(&v)
        };
        if first.load_curve.is_none() {
            first.load_curve = rest.iter().find_map(|o| o.load_curve.clone());
        }
        if first.skew_curve.is_none() {
            first.skew_curve = rest.iter().find_map(|o| o.skew_curve.clone());
        }
        first.source = format!("{} (+{} more)", first.source, rest.len());
        Ok(first)
    }

    /// The inputs of a fit, each with its name: one or more runs of the drive (merged by
    /// [`Self::merge`]), and at most one latency-load study, one skew study and one gc-unit
    /// study of the same drive.
    pub fn from_results(inputs: Vec<(String, ResultDoc)>) -> Result<Observed, FitError> {
        let mut runs = Vec::new();
        // Each beside the run: (what it gives, its name, the capacity of the drive it measured).
        let mut curves = Vec::new();
        let mut units = Vec::new();
        let mut skews = Vec::new();
        let mut infos = Vec::new();
        for (name, doc) in inputs {
            match doc {
                ResultDoc::Run(r) => runs.push(Observed::from_run(&r, &name)?),
                ResultDoc::Study(s) if s.study == GC_UNIT_STUDY => {
                    units.push((gc_unit(&s, &name)?, name, s.target.capacity_bytes))
                }
                ResultDoc::Study(s) if s.study == skew_curve::STUDY => {
                    let c = SkewCurve::from_study(&s, &name)?;
                    skews.push((c, name, s.target.capacity_bytes));
                }
                ResultDoc::Study(s) => {
                    let c = LoadCurve::from_study(&s, &name)?;
                    curves.push((c, name, s.target.capacity_bytes));
                }
                ResultDoc::Info(i) => {
                    let cap = i.capacity_bytes.map_or(0, |c| c as u64);
                    infos.push((reclaim_unit(&i, &name)?, name, cap))
                }
            }
        }
        if runs.is_empty() {
            return Err(FitError::Input(
                "no run among the inputs: a study refines a fit to the run.json of `ssdiq run`; give one".into(),
            ));
        }
        at_most_one("latency-load", &curves)?;
        at_most_one("gc-unit", &units)?;
        at_most_one("skew", &skews)?;
        at_most_one("info", &infos)?;
        let mut obs = Observed::merge(runs)?;
        let curve = of_drive(curves, obs.capacity_bytes)?;
        let unit = of_drive(units, obs.capacity_bytes)?;
        let info = of_drive(infos, obs.capacity_bytes)?;
        obs.load_curve = curve.map(|c| c.0);
        obs.skew_curve = of_drive(skews, obs.capacity_bytes)?.map(|c| c.0);
        // What GC did (a gc-unit study) over what the drive declares (FDP's reclaim unit).
        let unit = unit
            .map(|(u, name)| (u, format!("study gc-unit: {name}")))
            .or_else(|| {
                info.map(|(u, name)| (u, format!("FDP reclaim unit in ssdiq info: {name}")))
            });
        if let Some((unit, source)) = unit {
            obs.gc_unit_bytes = Some(unit);
            obs.gc_unit_source = Some(source);
        }
        Ok(obs)
    }

    pub fn get(&self, key: &str) -> Option<f64> {
        self.figures.get(key).copied()
    }

    /// `key` over the steps before the write workloads ([`before`]) where the input tells
    /// them apart (a run), else over all of them (a published row).
    pub fn get_before(&self, key: &str) -> Option<f64> {
        self.get(&before(key)).or_else(|| self.get(key))
    }

    /// The WA of `workload` the fit aims at: measured where the drive counts media writes,
    /// else implied from the throughput (the paper's Table 3 does the same).
    pub fn wa(&self, workload: &str) -> Option<f64> {
        let family = if self.media_counters {
            keys::WAF_MEASURED
        } else {
            keys::WAF_IMPLIED
        };
        self.get(&keys::of(family, workload))
    }
}

/// Inputs beside the run are `(what it gives, its name, the capacity of the drive it
/// measured)`: at most one of a kind.
fn at_most_one<T>(kind: &str, given: &[(T, String, u64)]) -> Result<(), FitError> {
    match given {
        [first, second, ..] => Err(FitError::Input(format!(
            "{} {kind} results given ({} and {}): give one",
            given.len(),
            first.1,
            second.1
        ))),
        _ => Ok(()),
    }
}

/// The one input of a kind, if given, when it measured the drive the run did (`capacity`).
fn of_drive<T>(
    mut given: Vec<(T, String, u64)>,
    capacity: u64,
) -> Result<Option<(T, String)>, FitError> {
    match given.pop() {
        Some((_, name, cap)) if cap != capacity => Err(FitError::Input(format!(
            "{name} measured a drive of {cap} bytes, the run one of {capacity} bytes: give results of the drive the run measured"
        ))),
        Some((v, name, _)) => Ok(Some((v, name))),
        None => Ok(None),
    }
}

/// The study whose result is the drive's GC unit.
const GC_UNIT_STUDY: &str = "gc-unit";

/// The GC unit a finished gc-unit study found.
fn gc_unit(doc: &StudyDoc, source: &str) -> Result<u64, FitError> {
    if doc.partial {
        return Err(FitError::Input(format!(
            "{source}: the gc-unit study was stopped before its end (partial); run it to the end"
        )));
    }
    match doc.result.get("gc_unit_bytes") {
        Some(&u) if u >= 1.0 => Ok(u as u64),
        _ => Err(FitError::Input(format!(
            "{source}: the gc-unit study found no GC unit (no zone size it tried reached WAF 1); fit without it"
        ))),
    }
}

/// The reclaim unit an FDP drive declares (`ssdiq info --json`): the unit its GC erases.
fn reclaim_unit(info: &InfoReport, source: &str) -> Result<u64, FitError> {
    let mut sizes: Vec<u64> = info
        .fdp
        .iter()
        .filter(|f| f.supported)
        .flat_map(|f| f.configs.iter().filter(|c| c.valid && c.runs > 0))
        .map(|c| c.runs)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    match sizes[..] {
        [runs] => Ok(runs),
        [] => Err(FitError::Input(format!(
            "{source}: the drive reports no FDP reclaim unit, the one figure the fit takes from ssdiq info; fit without it"
        ))),
        _ => Err(FitError::Input(format!(
            "{source}: the drive's FDP configurations have reclaim units of {} sizes ({}); the fit cannot tell which is in use: fit without it, or with a study gc-unit",
            sizes.len(),
            sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdiq_schema::info::{FdpConfig, FdpInfo};

    fn run(outran: Option<f64>, burst: Result<f64, f64>) -> Observed {
        let mut o = crate::paper::from_paper(
            &ssdiq_report::paper::reference("ssd-iq")
                .expect("shipped")
                .drives[0],
            "a run",
        );
        o.load_outran = outran;
        o.figures.remove(keys::WRITE_BURST_FAST_MIB);
        match burst {
            Ok(fast) => {
                o.figures.insert(keys::WRITE_BURST_FAST_MIB.into(), fast);
            }
            Err(unfilled) => o.burst_unfilled_mib = Some(unfilled),
        }
        o
    }

    #[test]
    fn merged_runs_take_the_median_of_whether_the_load_outran_and_the_burst_filled() {
        let m = Observed::merge(vec![
            run(None, Err(100.0)),
            run(Some(0.2), Err(300.0)),
            run(Some(0.4), Err(200.0)),
        ])
        .unwrap();
        assert_eq!(m.load_outran, Some(0.4));
        assert_eq!(m.burst_unfilled_mib, Some(200.0));
        let m = Observed::merge(vec![
            run(Some(0.2), Err(100.0)),
            run(None, Ok(40.0)),
            run(None, Err(300.0)),
        ])
        .unwrap();
        assert_eq!(m.load_outran, None, "most runs kept up");
        assert_eq!(m.burst_unfilled_mib, None, "a run filled its buffer");
        assert_eq!(m.get(keys::WRITE_BURST_FAST_MIB), Some(40.0));
    }

    fn fdp(sizes: &[u64]) -> InfoReport {
        InfoReport {
            capacity_bytes: Some(1 << 30),
            fdp: Some(FdpInfo {
                supported: true,
                configs: sizes
                    .iter()
                    .map(|&runs| FdpConfig {
                        valid: true,
                        rgif: 0,
                        fdpvwc: false,
                        nrg: 1,
                        nruh: 8,
                        max_pids: 8,
                        nnss: 1,
                        runs,
                        erutl: 0,
                        ruh_types: vec![],
                    })
                    .collect(),
                ..FdpInfo::default()
            }),
            ..InfoReport::default()
        }
    }

    /// A run whose random reads gave `before` kIOPS before each pass's workload and `after`
    /// after it, as its steps and its figures.
    fn reads(before: f64, after: f64) -> RunResult {
        let step = |stage: &str, kiops: f64| ssdiq_schema::StepResult {
            name: steps::RAND_READ.into(),
            stage: Some(stage.into()),
            value: Some(ssdiq_schema::StepValue {
                iops: Some(kiops * 1e3),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut r = RunResult {
            kind: "run".into(),
            steps: (0..3)
                .flat_map(|_| [step("before", before), step("after", after)])
                .collect(),
            ..RunResult::default()
        };
        r.target.capacity_bytes = 1 << 30;
        r.figures = ssdiq_suite::figures_of(&r);
        r
    }

    #[test]
    fn the_steps_before_the_workloads_give_figures_of_their_own() {
        let run = Observed::from_run(&reads(458.0, 87.0), "run.json").unwrap();
        // The figure is the median over both stages, a value neither stage read.
        assert_eq!(run.get(keys::RAND_READ_KIOPS), Some((458.0 + 87.0) / 2.0));
        assert_eq!(run.get_before(keys::RAND_READ_KIOPS), Some(458.0));
        // A published row has no stages: its figure stands for both.
        let mut row = run.clone();
        row.figures.retain(|k, _| !k.ends_with(".before"));
        assert_eq!(
            row.get_before(keys::RAND_READ_KIOPS),
            Some((458.0 + 87.0) / 2.0)
        );
    }

    #[test]
    fn an_fdp_drive_declares_its_reclaim_unit() {
        assert_eq!(reclaim_unit(&fdp(&[96 << 20]), "i").unwrap(), 96 << 20);
        // Configurations that agree are one size.
        assert_eq!(
            reclaim_unit(&fdp(&[96 << 20, 96 << 20]), "i").unwrap(),
            96 << 20
        );
        let e = reclaim_unit(&fdp(&[96 << 20, 48 << 20]), "i.json").unwrap_err();
        assert!(
            e.to_string()
                .contains("reclaim units of 2 sizes (50331648, 100663296)"),
            "{e}"
        );
        let e = reclaim_unit(&InfoReport::default(), "i.json").unwrap_err();
        assert!(
            e.to_string()
                .contains("i.json: the drive reports no FDP reclaim unit"),
            "{e}"
        );
        // An invalid configuration's size does not count.
        let mut i = fdp(&[96 << 20]);
        i.fdp.as_mut().unwrap().configs[0].valid = false;
        assert!(reclaim_unit(&i, "i").is_err());
    }

    /// A uniform random-write step whose 0.1 s intervals alternate a GC stall with a burst:
    /// `ios[k]` I/Os in interval k, the reference window over `window`.
    fn stalling_step(ios: &[u64], window: [f64; 2]) -> ssdiq_schema::StepResult {
        let mut seconds: Vec<ssdiq_schema::SecondPoint> = ios
            .iter()
            .enumerate()
            .map(|(k, &n)| ssdiq_schema::SecondPoint {
                t_s: k as f64 / 10.0,
                stream: "write".into(),
                ios: n,
                span_s: Some(0.1),
                ..Default::default()
            })
            .collect();
        // The job's end: a partial interval, which the window leaves out.
        seconds.push(ssdiq_schema::SecondPoint {
            t_s: ios.len() as f64 / 10.0,
            stream: "write".into(),
            ios: 1000,
            span_s: Some(0.01),
            partial: true,
            ..Default::default()
        });
        ssdiq_schema::StepResult {
            name: steps::RAND_WRITE_UNIFORM.into(),
            interval_s: Some(0.1),
            seconds,
            value: Some(ssdiq_schema::StepValue {
                window_s: Some(window),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_span_rate_counts_every_interval_of_the_window_and_none_outside_it() {
        // Ten intervals: a fast start outside the window, then stalls (0) and bursts (300).
        let ios = [900, 900, 0, 300, 0, 300, 0, 300, 0, 300];
        let doc = RunResult {
            steps: vec![stalling_step(&ios, [0.2, 1.0])],
            ..RunResult::default()
        };
        let v = span_rates(&doc);
        // 1200 I/Os over 0.8 s: 1.5 kIOPS, the stalls counted, the start and the partial
        // interval not.
        let rate = v[RAND_WRITE_SPAN_KIOPS];
        assert!((rate - 1.5).abs() < 1e-9, "{rate}");
    }

    #[test]
    fn the_span_rate_is_the_median_over_the_steps_and_absent_without_a_window() {
        let step = |n: u64| stalling_step(&[n; 10], [0.0, 1.0]);
        let mut no_window = step(5000);
        no_window.value = None;
        let doc = RunResult {
            steps: vec![step(100), step(300), step(200), no_window],
            ..RunResult::default()
        };
        assert!((span_rates(&doc)[RAND_WRITE_SPAN_KIOPS] - 2.0).abs() < 1e-9);
        let doc = RunResult {
            steps: vec![step(100)]
                .into_iter()
                .map(|mut s| {
                    s.value = None;
                    s
                })
                .collect(),
            ..RunResult::default()
        };
        assert!(span_rates(&doc).is_empty());
    }
}
