//! The fit: from a drive's figures to an emulated profile that reproduces them.
//!
//! Invariants:
//! - Every value the fit sets is measured on the twin by the protocol's own steps
//!   ([`crate::twin`]) and moved until the twin's figure meets the drive's, so a fitted value
//!   carries the figure it was fitted to, the twin's figure and their residual.
//! - What the figures cannot identify (geometry, buffer, GC watermarks, idle-time GC, erase
//!   and retry times) is the nearest library profile's value, and the twin's text says so.
//! - Order matters and is fixed: WA first (it sets how much GC work each write costs), then
//!   the read path, then program time against the random-write throughput (which pays GC's
//!   reads), then the tails under load. Each stage keeps what the earlier ones set.
//! - Deterministic: the twin's measurements take the given seed.

use std::collections::BTreeMap;

use ssdiq_emu::Profile;
use ssdiq_schema::{figures as keys, Spec};

use crate::observed::Observed;
use crate::profile_text::{set, size_literal};
use crate::twin::{measure, Part};
use crate::FitError;

/// How a twin's value came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// Moved until the twin's figure met the drive's.
    Fitted,
    /// Taken as it is from the input (capacity, datasheet).
    Input,
    /// The figures do not identify it: the nearest library profile's value.
    Kept,
}

/// One value of the twin and where it comes from.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Param {
    /// `section.key`.
    pub key: String,
    /// As the TOML holds it.
    pub value: String,
    pub how: How,
    /// "uniform WA 4.21 (twin 4.20)", or why it is kept.
    pub source: String,
    /// (twin - drive) / drive of the figure it was fitted to.
    pub residual: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// The library profile to start from; `None`: the nearest by datasheet.
    pub base: Option<String>,
    /// The twin's emulated capacity; `None`: the drive's own if it was emulated, else the
    /// base's (scaled) capacity.
    pub capacity: Option<u64>,
    pub seed: u64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            base: None,
            capacity: None,
            seed: 1,
        }
    }
}

/// The fitted twin.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The library profile the twin started from.
    pub base: String,
    /// The twin's profile, as TOML (works as `emu:FILE.toml`).
    pub text: String,
    pub params: Vec<Param>,
}

/// Profiles a twin may start from: the data-center drives of the library (the consumer and
/// SATA profiles model mechanisms the protocol's figures cannot identify).
pub fn bases() -> Vec<(&'static str, Profile)> {
    ssdiq_emu::profile::builtin_profiles()
        .filter_map(|(name, text)| Some((name, Profile::parse(text, &[]).ok()?)))
        .filter(|(_, p)| p.group() == "data-center")
        .collect()
}

/// The library profile whose datasheet is nearest the drive's (log distance over the
/// datasheet's throughputs; measured figures stand in for missing datasheet values).
pub fn nearest_base(obs: &Observed) -> &'static str {
    let want = [
        obs.spec
            .seq_read_mb_s
            .or_else(|| obs.get(keys::SEQ_READ_MB_S)),
        obs.spec
            .seq_write_mb_s
            .or_else(|| obs.get(keys::SEQ_WRITE_FREE_POOL_MB_S)),
        obs.spec
            .rand_read_kiops
            .or_else(|| obs.get(keys::RAND_READ_KIOPS)),
        obs.spec
            .rand_write_kiops
            .or_else(|| obs.get(&keys::of(keys::RAND_WRITE_KIOPS, "uniform"))),
    ];
    let mut best = ("default", f64::INFINITY);
    for (name, p) in bases() {
        let have = [
            p.spec.seq_read_mb_s,
            p.spec.seq_write_mb_s,
            p.spec.rand_read_kiops,
            p.spec.rand_write_kiops,
        ];
        let d: f64 = want
            .iter()
            .zip(have)
            .filter_map(|(w, h)| {
                Some(
                    (w.filter(|w| *w > 0.0)? / h.filter(|h| *h > 0.0)?)
                        .ln()
                        .powi(2),
                )
            })
            .sum();
        if d < best.1 {
            best = (name, d);
        }
    }
    best.0
}

/// The working state: the twin's text and the record of what was set.
struct Work<'a> {
    obs: &'a Observed,
    spec: Spec,
    text: String,
    params: BTreeMap<String, Param>,
    seed: u64,
}

impl Work<'_> {
    fn set(
        &mut self,
        section: &str,
        key: &str,
        value: String,
        how: How,
        source: String,
        residual: Option<f64>,
    ) {
        let comment = match how {
            How::Fitted => format!("fitted to {}: {source}", self.obs.source),
            How::Input => format!("from {}: {source}", self.obs.source),
            How::Kept => source.clone(),
        };
        self.text = set(&self.text, section, key, &value, &comment);
        let k = format!("{section}.{key}");
        self.params.insert(
            k.clone(),
            Param {
                key: k,
                value,
                how,
                source,
                residual,
            },
        );
    }

    fn profile(&self) -> Result<Profile, FitError> {
        Profile::parse(&self.text, &[]).map_err(|e| FitError::Profile(e.to_string()))
    }

    fn measure(&self, part: Part) -> Result<BTreeMap<String, f64>, FitError> {
        measure(&self.text, &self.spec, part, self.seed)
    }

    fn with(&self, edits: &[(&str, &str, String)]) -> String {
        edits.iter().fold(self.text.clone(), |t, (s, k, v)| {
            set(&t, s, k, v, "candidate")
        })
    }
}

fn res(twin: f64, drive: f64) -> f64 {
    (twin - drive) / drive
}

fn num(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    if s.is_empty() || s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// Fits a twin to `obs`. `progress` hears one line per stage.
pub fn fit(
    obs: &Observed,
    o: &FitOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Fit, FitError> {
    let base = match &o.base {
        Some(b) => {
            if !bases().iter().any(|(n, _)| n == b) {
                return Err(FitError::Input(format!(
                    "invalid base \"{b}\": expected a data-center library profile ({})",
                    bases()
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            b.clone()
        }
        None => nearest_base(obs).to_string(),
    };
    let text = ssdiq_emu::profile::builtin(&base)
        .expect("a listed base")
        .to_string();
    let mut w = Work {
        obs,
        spec: obs.spec.clone(),
        text: header(obs, &base) + &text,
        params: BTreeMap::new(),
        seed: o.seed,
    };
    progress(&format!(
        "starting from emu:{base} (the nearest datasheet in the library)"
    ));
    w.text = set(
        &w.text,
        "",
        "name",
        "\"twin\"",
        "the twin's name in results",
    );
    w.text = set(
        &w.text,
        "",
        "description",
        &format!("\"twin of {} (fitted)\"", obs.name.replace('"', "'")),
        "shown by `ssdiq info`",
    );
    size_and_spec(&mut w, o)?;
    progress("fitting OP and the GC policy to the WA of the three workloads");
    fit_wa(&mut w)?;
    progress("fitting the read path to the sequential and random reads and QD1 latencies");
    fit_reads(&mut w)?;
    progress("fitting program time to the uniform random-write throughput");
    fit_program(&mut w)?;
    progress("fitting suspension and write stalls to the tails under load");
    fit_tails(&mut w)?;
    mark_kept(&mut w, &base);
    w.profile()?;
    Ok(Fit {
        base,
        text: w.text,
        params: w.params.into_values().collect(),
    })
}

fn header(obs: &Observed, base: &str) -> String {
    format!(
        "# A digital twin of {}, fitted by `ssdiq fit` from {}.\n\
         # Lines whose comment starts \"fitted to\" were moved until the twin's figure met the\n\
         # drive's; \"from\" lines are the input's own values. Every other line is emu:{base}'s\n\
         # (the nearest library profile), with its source: the figures do not identify it.\n",
        obs.name, obs.source
    )
}

fn size_and_spec(w: &mut Work, o: &FitOptions) -> Result<(), FitError> {
    let obs = w.obs;
    let base = w.profile()?;
    if obs.emulated || o.capacity.is_some() {
        let cap = o.capacity.unwrap_or(obs.capacity_bytes);
        w.set(
            "drive",
            "capacity",
            size_literal(cap),
            How::Input,
            "the drive's capacity".into(),
            None,
        );
    }
    if !obs.emulated {
        // The twin is scaled: its full-size drive is the measured one.
        w.set(
            "drive",
            "full_capacity",
            format!("\"{}\"", obs.capacity_bytes),
            How::Input,
            "the measured drive's capacity".into(),
            None,
        );
    }
    if let Some(unit) = obs.gc_unit_bytes {
        let p = w.profile()?;
        let n = &p.nand;
        let unit_bytes = (n.channels * n.dies_per_channel * n.bits_per_cell * n.planes) as u64
            * n.page_kib as u64
            * 1024;
        let scale = p.scale().map_err(|e| FitError::Profile(e.to_string()))?;
        let scaled = (unit as f64 / unit_bytes as f64).max(1.0);
        let full = ((scaled / scale).round() as u64).clamp(1, 1024);
        w.set(
            "nand",
            "units_per_block",
            full.to_string(),
            How::Input,
            format!("the drive's GC unit, {} MiB", unit >> 20),
            None,
        );
    }
    let s = &obs.spec;
    for (key, v) in [
        ("seq_read_mb_s", s.seq_read_mb_s),
        ("seq_write_mb_s", s.seq_write_mb_s),
        ("rand_read_kiops", s.rand_read_kiops),
        ("rand_write_kiops", s.rand_write_kiops),
        ("read_lat_us", s.read_lat_us),
        ("write_lat_us", s.write_lat_us),
    ] {
        if let Some(v) = v {
            w.set(
                "spec",
                key,
                num(v),
                How::Input,
                "the datasheet".into(),
                None,
            );
        }
    }
    // The twin is measured against the drive's datasheet (latency under load runs at 25% of
    // its random-write rate), or the base's where the drive has none.
    let b = &base.spec;
    let merged = Spec {
        seq_read_mb_s: s.seq_read_mb_s.or(b.seq_read_mb_s),
        seq_write_mb_s: s.seq_write_mb_s.or(b.seq_write_mb_s),
        rand_read_kiops: s.rand_read_kiops.or(b.rand_read_kiops),
        rand_write_kiops: s.rand_write_kiops.or(b.rand_write_kiops),
        ..s.clone()
    };
    w.spec = merged;
    Ok(())
}

/// OP by the secant method on ln WA, for one GC policy; returns (op, twin's uniform WA).
fn op_for(w: &Work, policy: &[(&str, &str, String)], target: f64) -> Result<(f64, f64), FitError> {
    let wa_at = |op: f64| -> Result<f64, FitError> {
        let mut edits = policy.to_vec();
        edits.push(("drive", "op", num(op)));
        let t = w.with(&edits);
        let f = measure(
            &t,
            &w.spec,
            Part::Writes {
                uniform: true,
                skewed: false,
            },
            w.seed,
        )?;
        f.get(&keys::of(keys::WAF_MEASURED, "uniform"))
            .copied()
            .ok_or_else(|| FitError::Twin("the twin measured no uniform WA".into()))
    };
    let g = |wa: f64| (wa / target).ln();
    let start = ssdiq_flash::analytic::op_from_greedy_waf(target, None)
        .unwrap_or(0.12)
        .clamp(0.02, 2.0);
    let (mut a, mut fa) = (start, g(wa_at(start)?));
    let mut b = (start * 1.25).min(3.0);
    let mut wb = wa_at(b)?;
    let mut fb = g(wb);
    for _ in 0..6 {
        if fb.abs() < 0.004 || (fb - fa).abs() < 1e-9 {
            break;
        }
        let next = (b - fb * (b - a) / (fb - fa)).clamp(0.01, 3.0);
        (a, fa) = (b, fb);
        b = next;
        wb = wa_at(b)?;
        fb = g(wb);
    }
    if fa.abs() < fb.abs() {
        // The last step overshot: keep the better of the two.
        let wa = target * fa.exp();
        return Ok((a, wa));
    }
    Ok((b, wb))
}

/// Profile edits: (section, key, TOML literal; empty: remove the key).
type Edits = Vec<(&'static str, &'static str, String)>;

/// A policy candidate's outcome: (skew score, candidate, OP, uniform WA, skewed figures).
type Scored = (f64, usize, f64, f64, BTreeMap<String, f64>);

fn fit_wa(w: &mut Work) -> Result<(), FitError> {
    let obs = w.obs;
    let Some(target) = obs.wa("uniform") else {
        return Ok(());
    };
    let kind = if obs.media_counters {
        "measured"
    } else {
        "implied"
    };
    let skew: Vec<(&str, f64)> = ["twozone", "zipf"]
        .into_iter()
        .filter_map(|k| Some((k, obs.wa(k)?)))
        .collect();
    let candidates: Vec<(&str, Edits)> = vec![
        (
            "greedy, relocated data with the host's",
            vec![
                ("drive", "policy", "\"greedy\"".into()),
                ("drive", "gc_frontier", "false".into()),
                ("drive", "gc_frontier_share", String::new()),
            ],
        ),
        (
            "greedy + GC frontier (relocated data apart)",
            vec![
                ("drive", "policy", "\"greedy\"".into()),
                ("drive", "gc_frontier", "true".into()),
                ("drive", "gc_frontier_share", "1.0".into()),
            ],
        ),
    ];
    let mut best: Option<Scored> = None;
    for (i, (_, policy)) in candidates.iter().enumerate() {
        let (op, wa) = op_for(w, policy, target)?;
        let mut score = 0.0;
        let mut twin = BTreeMap::new();
        if !skew.is_empty() {
            let mut edits = policy.clone();
            edits.push(("drive", "op", num(op)));
            twin = measure(
                &w.with(&edits),
                &w.spec,
                Part::Writes {
                    uniform: false,
                    skewed: true,
                },
                w.seed,
            )?;
            for (k, v) in &skew {
                let t = twin
                    .get(&keys::of(keys::WAF_MEASURED, k))
                    .copied()
                    .unwrap_or(f64::NAN);
                score += (t / v).ln().powi(2);
            }
        }
        if best.as_ref().is_none_or(|b| score < b.0) {
            best = Some((score, i, op, wa, twin));
        }
    }
    let (_, i, op, wa, twin) = best.expect("two candidates");
    let (what, policy) = &candidates[i];
    let skew_text: Vec<String> = skew
        .iter()
        .map(|(k, v)| {
            let t = twin
                .get(&keys::of(keys::WAF_MEASURED, k))
                .copied()
                .unwrap_or(f64::NAN);
            format!("{k} WA {v:.2} (twin {t:.2})")
        })
        .collect();
    w.set(
        "drive",
        "op",
        num(op),
        How::Fitted,
        format!("uniform WA {target:.2} ({kind}; twin {wa:.2})"),
        Some(res(wa, target)),
    );
    if skew.is_empty() {
        return Ok(());
    }
    let why = format!("{what}: the policy whose {} fit best", skew_text.join(", "));
    for (s, k, v) in policy {
        if v.is_empty() {
            w.text = crate::profile_text::unset(&w.text, s, k);
        } else {
            w.set(s, k, v.clone(), How::Fitted, why.clone(), None);
        }
    }
    Ok(())
}

fn fit_reads(w: &mut Work) -> Result<(), FitError> {
    let obs = w.obs;
    let rr = obs.get(keys::RAND_READ_KIOPS);
    let sr = obs.get(keys::SEQ_READ_MB_S);
    let rl = obs.get(keys::READ_LAT_IDLE_US);
    let wl = obs.get(keys::WRITE_LAT_IDLE_US);
    if [rr, sr, rl, wl].iter().all(Option::is_none) {
        return Ok(());
    }
    let mut twin = BTreeMap::new();
    for _ in 0..4 {
        twin = w.measure(Part::Reads)?;
        let p = w.profile()?;
        let mut t = w.text.clone();
        if let (Some(o), Some(m)) = (rr, twin.get(keys::RAND_READ_KIOPS)) {
            let v = (p.nand.read_us * m / o).clamp(1.0, 5000.0);
            t = set(&t, "nand", "read_us", &num(v), "candidate");
        }
        if let (Some(o), Some(m)) = (sr, twin.get(keys::SEQ_READ_MB_S)) {
            let v = (p.host.link_mb_s * o / m).clamp(50.0, 100_000.0);
            t = set(&t, "host", "link_mb_s", &num(v), "candidate");
        }
        if let (Some(o), Some(m)) = (rl, twin.get(keys::READ_LAT_IDLE_US)) {
            let v = (p.host.read_overhead_us + o - m).clamp(0.0, 10_000.0);
            t = set(&t, "host", "read_overhead_us", &num(v), "candidate");
        }
        if let (Some(o), Some(m)) = (wl, twin.get(keys::WRITE_LAT_IDLE_US)) {
            let v = (p.host.write_us + o - m).clamp(0.5, 10_000.0);
            t = set(&t, "host", "write_us", &num(v), "candidate");
        }
        w.text = t;
    }
    twin = {
        let last = w.measure(Part::Reads)?;
        if last.is_empty() {
            twin
        } else {
            last
        }
    };
    let p = w.profile()?;
    for (o, key, section, name, value, label, unit) in [
        (
            rr,
            keys::RAND_READ_KIOPS,
            "nand",
            "read_us",
            p.nand.read_us,
            "random 4 KiB read",
            "kIOPS",
        ),
        (
            sr,
            keys::SEQ_READ_MB_S,
            "host",
            "link_mb_s",
            p.host.link_mb_s,
            "sequential read",
            "MB/s",
        ),
        (
            rl,
            keys::READ_LAT_IDLE_US,
            "host",
            "read_overhead_us",
            p.host.read_overhead_us,
            "QD1 read latency",
            "us",
        ),
        (
            wl,
            keys::WRITE_LAT_IDLE_US,
            "host",
            "write_us",
            p.host.write_us,
            "QD1 write latency",
            "us",
        ),
    ] {
        let (Some(o), Some(m)) = (o, twin.get(key).copied()) else {
            continue;
        };
        w.set(
            section,
            name,
            num(value),
            How::Fitted,
            format!("{label} {o:.1} {unit} (twin {m:.1})"),
            Some(res(m, o)),
        );
    }
    Ok(())
}

fn fit_program(w: &mut Work) -> Result<(), FitError> {
    let key = keys::of(keys::RAND_WRITE_KIOPS, "uniform");
    let Some(o) = w.obs.get(&key) else {
        return Ok(());
    };
    let mut m = f64::NAN;
    for i in 0..4 {
        let twin = w.measure(Part::Writes {
            uniform: true,
            skewed: false,
        })?;
        m = twin.get(&key).copied().unwrap_or(f64::NAN);
        if !m.is_finite() || (m / o - 1.0).abs() < 0.01 || i == 3 {
            break;
        }
        let p = w.profile()?;
        let v = (p.nand.program_us * m / o).clamp(10.0, 100_000.0);
        w.text = set(&w.text, "nand", "program_us", &num(v), "candidate");
    }
    let p = w.profile()?;
    w.set(
        "nand",
        "program_us",
        num(p.nand.program_us),
        How::Fitted,
        format!("uniform random write {o:.1} kIOPS (twin {m:.1})"),
        Some(res(m, o)),
    );
    Ok(())
}

fn fit_tails(w: &mut Work) -> Result<(), FitError> {
    let obs = w.obs;
    let rp = obs.get(keys::READ_LAT_LOAD_P999_US);
    let wp = obs.get(keys::WRITE_LAT_LOAD_P999_US);
    if rp.is_none() && wp.is_none() {
        return Ok(());
    }
    let mut twin = w.measure(Part::Load)?;
    if let (Some(o), Some(m)) = (rp, twin.get(keys::READ_LAT_LOAD_P999_US).copied()) {
        // A read that waits for a whole program or erase shows as a millisecond tail: the
        // paper's red class (above 1 ms) is what no suspension gives.
        let suspend = w.profile()?.nand.suspend;
        if (o > 1000.0) == suspend && (m > 1000.0) != (o > 1000.0) {
            let t = set(
                &w.text,
                "nand",
                "suspend",
                &(!suspend).to_string(),
                "candidate",
            );
            let other = measure(&t, &w.spec, Part::Load, w.seed)?;
            let m2 = other
                .get(keys::READ_LAT_LOAD_P999_US)
                .copied()
                .unwrap_or(f64::NAN);
            if (m2 / o).ln().abs() < (m / o).ln().abs() {
                w.text = t;
                twin = other;
            }
        }
        let m = twin
            .get(keys::READ_LAT_LOAD_P999_US)
            .copied()
            .unwrap_or(f64::NAN);
        let s = w.profile()?.nand.suspend;
        w.set(
            "nand",
            "suspend",
            s.to_string(),
            How::Fitted,
            format!("read P99.9 under load {o:.0} us (twin {m:.0})"),
            Some(res(m, o)),
        );
    }
    if let (Some(o), Some(idle)) = (wp, twin.get(keys::WRITE_LAT_LOAD_P999_US).copied()) {
        let buffered = w.profile()?.host.write_us;
        let mut m = idle;
        if o > 2.0 * buffered.max(1.0) {
            // Stalls: 0.2% of writes wait half to all of a stall, so the P99.9 falls in the
            // stalled writes at about 3/4 of it.
            let mut us = o / 0.75;
            for _ in 0..3 {
                let t = w.with(&[
                    ("host", "write_stall_rate", "0.002".into()),
                    ("host", "write_stall_us", num(us)),
                ]);
                m = write_p999(&t, &w.spec, w.seed)?;
                w.text = t;
                if !m.is_finite() || (m / o - 1.0).abs() < 0.05 {
                    break;
                }
                us = (us * o / m).clamp(1.0, 1e6);
            }
            let p = w.profile()?;
            let why = format!("write P99.9 under load {o:.0} us (twin {m:.0})");
            w.set(
                "host",
                "write_stall_rate",
                "0.002".into(),
                How::Fitted,
                why.clone(),
                Some(res(m, o)),
            );
            w.set(
                "host",
                "write_stall_us",
                num(p.host.write_stall_us),
                How::Fitted,
                why,
                Some(res(m, o)),
            );
        } else {
            let t = w.with(&[("host", "write_stall_rate", "0".into())]);
            m = write_p999(&t, &w.spec, w.seed)?;
            w.text = t;
            w.set(
                "host",
                "write_stall_rate",
                "0".into(),
                How::Fitted,
                format!("write P99.9 under load {o:.0} us (twin {m:.0}): no stalls"),
                Some(res(m, o)),
            );
        }
    }
    Ok(())
}

/// The write P99.9 under load of twin `text` (NaN if it measured none).
fn write_p999(text: &str, spec: &Spec, seed: u64) -> Result<f64, FitError> {
    Ok(measure(text, spec, Part::Load, seed)?
        .get(keys::WRITE_LAT_LOAD_P999_US)
        .copied()
        .unwrap_or(f64::NAN))
}

/// Records the values the fit did not set (the base's, unidentified), for the report.
fn mark_kept(w: &mut Work, base: &str) {
    for (key, why) in [
        (
            "nand.channels",
            "parallelism: the throughputs fix dies x time, not dies",
        ),
        ("nand.dies_per_channel", "as channels"),
        ("nand.planes", "as channels"),
        ("nand.erase_us", "no figure isolates the erase"),
        (
            "buffer.buffer_kib",
            "the protocol's load (25%) leaves the buffer far from full",
        ),
        (
            "gc.idle_mb_s",
            "the protocol's idle periods end in full reads, not bursts",
        ),
        ("gc.idle_spare", "as idle_mb_s"),
    ] {
        if w.params.contains_key(key) {
            continue;
        }
        let (section, name) = key.split_once('.').expect("section.key");
        let value = w
            .text
            .lines()
            .skip_while(|l| l.trim() != format!("[{section}]"))
            .find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == name).then(|| v.split('#').next().unwrap_or("").trim().to_string())
            })
            .unwrap_or_default();
        w.params.insert(
            key.to_string(),
            Param {
                key: key.to_string(),
                value,
                how: How::Kept,
                source: format!("emu:{base}'s: {why}"),
                residual: None,
            },
        );
    }
}
