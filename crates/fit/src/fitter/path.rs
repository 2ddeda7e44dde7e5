//! The read and write paths: read time, link, read overhead and the buffered write against
//! the read figures and QD1 latencies; program time against the uniform random writes and
//! the sequential write.

use std::collections::BTreeMap;

/// The longest program time the fit gives a twin: ten times a QLC program, half the limit a
/// profile takes (a twin whose throughput asked for more was slowed by something else; the
/// wider round trip's search ran into the limit and built no twin).
const MAX_PROGRAM_US: f64 = 50_000.0;

use ssdiq_schema::figures as keys;

use super::{num, res, How, Work};
use crate::observed::{before, WRITE_IDLE_P50_US};
use crate::profile_text::set;
use crate::sensitivity::LOWER_BOUND;
use crate::twin::Part;
use crate::FitError;

/// The channels' bandwidth over the drive's sequential read where the twin's channels would
/// carry less than it reads: seed 66's hidden drive 2 (4 channels at 3600 MB/s, 6973 MB/s
/// read through its link) got a twin of 2 channels at the base's 2400, which read 4802 MB/s
/// with the link at the stage's 100000 MB/s cap. Its host writes then ran at twice the
/// drive's rate, and its buffer absorbed twice the Zipf 1.2 rewrites (WA 0.041 for 0.086).
const CHANNEL_HEADROOM: f64 = 1.1;

pub(super) fn fit_reads(w: &mut Work) -> Result<(), FitError> {
    // Each figure over the steps before the write workloads, the steps the twin runs here
    // (`Observed::get_before`).
    let obs = w.obs;
    let rr = obs.get_before(keys::RAND_READ_KIOPS);
    let sr = obs.get_before(keys::SEQ_READ_MB_S);
    let rl = obs.get_before(keys::READ_LAT_IDLE_US);
    // The buffered write's own time is the QD1 median (stalls lengthen the mean); the mean
    // where a published row gives nothing else.
    let (wl_key, wl_label) = if obs.get(WRITE_IDLE_P50_US).is_some() {
        (WRITE_IDLE_P50_US, "QD1 write latency, median")
    } else {
        (keys::WRITE_LAT_IDLE_US, "QD1 write latency")
    };
    let wl = obs.get_before(wl_key);
    if [rr, sr, rl, wl].iter().all(Option::is_none) {
        return Ok(());
    }
    let channel_mb_s = w.profile()?.nand.channel_mb_s;
    let mut twin = BTreeMap::new();
    for _ in 0..4 {
        twin = w.measure(Part::Reads)?;
        let p = w.profile()?;
        let mut t = w.text.clone();
        if let (Some(o), Some(m)) = (rr, twin.get(&before(keys::RAND_READ_KIOPS))) {
            let v = (p.nand.read_us * m / o).clamp(1.0, 5000.0);
            t = set(&t, "nand", "read_us", &num(v), "candidate");
        }
        if let (Some(o), Some(m)) = (sr, twin.get(&before(keys::SEQ_READ_MB_S))) {
            let v = (p.host.link_mb_s * o / m).clamp(50.0, 100_000.0);
            t = set(&t, "host", "link_mb_s", &num(v), "candidate");
            // Every read crosses the channels: past what they carry, a faster link reads
            // nothing faster.
            let need = o * CHANNEL_HEADROOM / f64::from(p.nand.channels);
            if need > p.nand.channel_mb_s * 1.01 {
                t = set(&t, "nand", "channel_mb_s", &num(need), "candidate");
            }
        }
        if let (Some(o), Some(m)) = (rl, twin.get(&before(keys::READ_LAT_IDLE_US))) {
            let v = (p.host.read_overhead_us + o - m).clamp(0.0, 10_000.0);
            t = set(&t, "host", "read_overhead_us", &num(v), "candidate");
        }
        if let (Some(o), Some(m)) = (wl, twin.get(&before(wl_key))) {
            if !waits_for_programs(*m, &p) {
                let v = (p.host.write_us + o - m).clamp(0.5, 10_000.0);
                t = set(&t, "host", "write_us", &num(v), "candidate");
            }
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
    // A bound an earlier round set is written again with this round's figure (its comment
    // is what tells the range the value is a lower bound).
    let bound = p.nand.channel_mb_s != channel_mb_s
        || w.params
            .get("nand.channel_mb_s")
            .is_some_and(|b| b.how == How::Fitted);
    if let (Some(o), true) = (sr, bound) {
        w.set(
            "nand",
            "channel_mb_s",
            num(p.nand.channel_mb_s),
            How::Fitted,
            format!(
                "sequential read {o:.1} MB/s over {} channels, with a tenth to spare: {LOWER_BOUND} (the channels carry every read, and where they carry more the link alone sets the read)",
                p.nand.channels
            ),
            None,
        );
    }
    w.qd1_write_waits = None;
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
            wl_key,
            "host",
            "write_us",
            p.host.write_us,
            wl_label,
            "us",
        ),
    ] {
        let (Some(o), Some(m)) = (o, twin.get(&before(key)).copied()) else {
            continue;
        };
        if name == "write_us" && waits_for_programs(m, &p) {
            // Where the drive's median is a program's wait too.
            if o > p.nand.program_us / 2.0 {
                w.qd1_write_waits = Some(m / o);
            }
            w.set(
                section,
                name,
                num(value),
                How::Kept,
                format!(
                    "the base's: the QD1 write's median ({o:.0} us, twin {m:.0}) is about a program ({:.0} us): the writes waited for the flash, which hides the buffered write's own time",
                    p.nand.program_us
                ),
                None,
            );
            continue;
        }
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

/// Whether the twin `p`'s QD1 write median `m` us holds about a program or more beyond its
/// buffered write's own time: its writes then waited for the flash (a full buffer), and the
/// median is the program's. Moving the buffered write to it moved the random-write rate
/// instead (seed 61's hidden drive 12: 299 us where the drive takes 20, and program time
/// fitted to the rate then went from 3061 to 4456 us).
fn waits_for_programs(m: f64, p: &ssdiq_emu::Profile) -> bool {
    m - p.host.write_us > p.nand.program_us / 2.0
}

/// Program time moved until the twin's uniform random writes meet the drive's `o` kIOPS; the
/// twin's figure at the program time it keeps.
///
/// First steps proportional to the miss (4 twin runs at most), the last kept. The rate is not
/// always inverse to program time: on a GC-bound drive a program a sixth shorter can raise it
/// by three quarters (seed 63's hidden drive 1: 2039 us gave 1.47 kIOPS, 1763 us 2.54, for the
/// drive's 1.43), and there the last proportional step ended 78% off. Where it ends more than
/// [`PROPORTIONAL_MISS`] off, up to [`PROGRAM_STEPS`] more follow the log-log slope of the last
/// two tried inside any bracket found, and the nearest tried is kept. (Not in place of the
/// proportional steps, nor after a smaller miss: near a drive's saturation the rate jumps by
/// 10% within 0.1% of program time, as on seed 62's hidden drive 6 around 6640 us, and the
/// nearest point of such a search sat where the twin's GC blocked the host under load.)
fn program_to(w: &mut Work, key: &str, o: f64) -> Result<f64, FitError> {
    let mut tried: Vec<(f64, f64)> = Vec::new();
    let mut m = f64::NAN;
    for i in 0..4 {
        m = uniform_write_figure(w, key)?;
        let p = w.profile()?;
        if !m.is_finite() {
            return Ok(m);
        }
        tried.push((p.nand.program_us, m));
        if (m / o - 1.0).abs() < 0.01 || i == 3 {
            break;
        }
        set_program(
            w,
            &p,
            (p.nand.program_us * m / o).clamp(10.0, MAX_PROGRAM_US),
        );
    }
    if (m / o).ln().abs() <= PROPORTIONAL_MISS.ln_1p() {
        return Ok(m);
    }
    for _ in 0..PROGRAM_STEPS {
        let p = w.profile()?;
        let v = next_program(&tried, o).clamp(10.0, MAX_PROGRAM_US);
        if tried.iter().any(|(t, _)| (t / v - 1.0).abs() < 1e-4) {
            break;
        }
        set_program(w, &p, v);
        let m = uniform_write_figure(w, key)?;
        if !m.is_finite() {
            break;
        }
        tried.push((v, m));
        if (m / o - 1.0).abs() < 0.01 {
            break;
        }
    }
    let &(best, m) = tried
        .iter()
        .min_by(|a, b| (a.1 / o).ln().abs().total_cmp(&(b.1 / o).ln().abs()))
        .expect("one tried");
    let p = w.profile()?;
    if p.nand.program_us != best {
        set_program(w, &p, best);
    }
    Ok(m)
}

/// The twin's figure `key` of the uniform random writes alone (NaN where it has none).
fn uniform_write_figure(w: &Work, key: &str) -> Result<f64, FitError> {
    let twin = w.measure(Part::Writes {
        uniform: true,
        skewed: false,
        heavy: false,
    })?;
    Ok(twin.get(key).copied().unwrap_or(f64::NAN))
}

/// How far the proportional steps may leave the rate before the slope's steps follow: past
/// the jumps of a rate near saturation (about 10%, seed 62's hidden drive 6, where a twin the
/// slope's steps left at 6636 us blocked the host under load and missed its watermarks), short
/// of a GC-bound rate the steps overshoot (78%, seed 63's hidden drive 1).
const PROPORTIONAL_MISS: f64 = 0.5;

/// Twin runs of [`program_to`]'s slope steps at most.
const PROGRAM_STEPS: usize = 6;

/// The next program time to try for the rate `o`, from the (program time, rate) pairs tried:
/// along the log-log slope of the last two (-1, the rate inverse to program time, with one),
/// bounded to a factor 4 a step, and halfway in log between the nearest pair that brackets `o`
/// where the slope leads outside it.
fn next_program(tried: &[(f64, f64)], o: f64) -> f64 {
    let &(p1, m1) = tried.last().expect("one tried");
    let slope = match tried.len() {
        0 | 1 => -1.0,
        n => {
            let (p0, m0) = tried[n - 2];
            let k = (m1 / m0).ln() / (p1 / p0).ln();
            if k.is_finite() && k < -0.1 {
                k.max(-10.0)
            } else {
                -1.0
            }
        }
    };
    let v = p1 * ((o / m1).ln() / slope).exp().clamp(0.25, 4.0);
    // The longest program time whose rate is above `o`, and the shortest whose rate is below.
    let above = tried
        .iter()
        .filter(|t| t.1 > o)
        .map(|t| t.0)
        .fold(f64::NAN, f64::max);
    let below = tried
        .iter()
        .filter(|t| t.1 < o)
        .map(|t| t.0)
        .fold(f64::NAN, f64::min);
    if above.is_finite() && below.is_finite() && above < below && !(v > above && v < below) {
        return (above * below).sqrt();
    }
    v
}

/// The twin's program time set to `v` (a candidate), its SLC program time kept below it.
fn set_program(w: &mut Work, p: &ssdiq_emu::Profile, v: f64) {
    w.text = set(&w.text, "nand", "program_us", &num(v), "candidate");
    // An SLC program must stay faster than a native one: where the native time falls to
    // the SLC time fitted before it (seed 56's hidden drive 4: SLC 1774 us, fitted to an
    // init the host bound, then native 1064 us once the buffer moved), the SLC time keeps
    // its ratio to the native one.
    if p.slc.slc_share > 0.0 && p.slc.slc_program_us >= v {
        let slc = p.slc.slc_program_us * v / p.nand.program_us;
        w.text = set(
            &w.text,
            "slc",
            "slc_program_us",
            &num(slc),
            "the SLC cache's program time as fitted, scaled with the native program time to stay below it",
        );
    }
}

/// The twin is `fast` times the drive at the longest program time: fewer dies, then fewer
/// planes, each halving until the factor is spent (the throughputs fix dies x time, not dies;
/// FEMU programs one 4 KiB page per die in 2 ms, where the base's 16 dies program 192 KiB
/// units: at 50 ms the twin wrote 3.0 kIOPS for its 0.8). The superblock keeps the drive's GC
/// unit where one is known. Returns whether any moved.
fn fewer_dies(w: &mut Work, mut fast: f64) -> Result<bool, FitError> {
    let n = w.profile()?.nand.clone();
    let (before, params) = (w.text.clone(), w.params.clone());
    let (mut ch, mut dpc, mut planes) = (n.channels, n.dies_per_channel, n.planes);
    while fast > 1.05 {
        let (was, now) = if ch > 1 {
            let was = ch;
            ch = ch.div_ceil(2);
            (was, ch)
        } else if dpc > 1 {
            let was = dpc;
            dpc = dpc.div_ceil(2);
            (was, dpc)
        } else if planes > 1 {
            let was = planes;
            planes = planes.div_ceil(2);
            (was, planes)
        } else {
            break;
        };
        fast *= f64::from(now) / f64::from(was);
    }
    let why = format!(
        "the fit's best guess: the drive's uniform random writes are slower than {} dies of {} planes make at the longest program time ({MAX_PROGRAM_US:.0} us), so fewer program in parallel",
        n.channels * n.dies_per_channel,
        n.planes
    );
    let mut moved = false;
    for (key, was, now) in [
        ("channels", n.channels, ch),
        ("dies_per_channel", n.dies_per_channel, dpc),
        ("planes", n.planes, planes),
    ] {
        if now != was {
            w.set("nand", key, now.to_string(), How::Kept, why.clone(), None);
            moved = true;
        }
    }
    if moved {
        if let Some(unit) = w.obs.gc_unit_bytes {
            // Fewer dies hold the GC unit in more program units each; where that is past the
            // emulator's most, the twin keeps its dies (and its program time's cap).
            if super::superblock_of_gc_unit(w, unit).is_err() {
                w.text = before;
                w.params = params;
                return Ok(false);
            }
        }
    }
    Ok(moved)
}

pub(super) fn fit_program(w: &mut Work) -> Result<(), FitError> {
    let Some((key, o)) = program_figure(w) else {
        return Ok(());
    };
    let mut m = program_to(w, &key, o)?;
    let capped = w.profile()?.nand.program_us >= MAX_PROGRAM_US * 0.999;
    if capped && m.is_finite() && m / o > 1.05 && fewer_dies(w, m / o)? {
        // Other dies, another superblock: OP, the policy and the buffers' OPs again.
        super::wa::fit_wa(w)?;
        m = program_to(w, &key, o)?;
    }
    let p = w.profile()?;
    w.set(
        "nand",
        "program_us",
        num(p.nand.program_us),
        How::Fitted,
        format!("{} {o:.2} kIOPS (twin {m:.2})", program_figure_name(&key)),
        Some(res(m, o)),
    );
    Ok(())
}

/// The uniform random-write figure program time is fitted to, and the drive's value: the
/// rate over the reference window's span with every interval counted, where the run has its
/// intervals (`observed::span_rates`: the window's own figure moves with how bursty the GC
/// is, which the GC policy the fit guesses sets as much as the drive), else the window's
/// figure (a paper's row).
fn program_figure(w: &Work) -> Option<(String, f64)> {
    [
        crate::observed::RAND_WRITE_SPAN_KIOPS.to_string(),
        keys::of(keys::RAND_WRITE_KIOPS, "uniform"),
    ]
    .into_iter()
    .find_map(|k| w.obs.get(&k).map(|o| (k, o)))
}

fn program_figure_name(key: &str) -> &'static str {
    if key == crate::observed::RAND_WRITE_SPAN_KIOPS {
        "uniform random write, every interval of the reference window,"
    } else {
        "uniform random write"
    }
}

/// How far the twin's sequential write may miss the drive's before program time is balanced
/// between it and the random write.
const SEQ_WRITE_MISS: f64 = 0.05;

/// Program time sets two figures: the sequential write (the step's free-pool phase programs at
/// the dies' bandwidth) and, with the WA, the uniform random write. Where one program time
/// cannot meet both (the model's GC costs the dies more or less time than the drive's), the
/// one that leaves the larger miss smallest: both scale as 1 / `program_us`, so it moves by
/// the geometric mean of the two ratios. Kept only if the larger miss shrinks. Returns
/// whether program time moved.
///
/// Not for an emulated drive fitted at its own size: its twin runs the drive's own model, so
/// one program time meets both figures once everything else is right, and a miss comes from
/// elsewhere (on a 1 GiB drive the free-pool phase lasts a few of the step's rounds). Moving
/// program time there only costs the random rate the predictions rest on (round trip, hidden
/// drive 5: 1893 us hidden, 1668 balanced, unseen throughputs 13% high).
pub(super) fn balance_program(w: &mut Work) -> Result<bool, FitError> {
    if w.obs.emulated {
        return Ok(false);
    }
    let (Some(os), Some((rand_key, or))) = (
        w.obs.get_before(keys::SEQ_WRITE_FREE_POOL_MB_S),
        program_figure(w),
    ) else {
        return Ok(false);
    };
    let ratios = |w: &Work| -> Result<Option<(f64, f64)>, FitError> {
        let s = w.measure(Part::SeqWrite)?;
        let r = w.measure(Part::Writes {
            uniform: true,
            skewed: false,
            heavy: false,
        })?;
        Ok(s.get(&before(keys::SEQ_WRITE_FREE_POOL_MB_S))
            .zip(r.get(&rand_key))
            .map(|(s, r)| (s / os, r / or)))
    };
    let Some((seq, rand)) = ratios(w)? else {
        return Ok(false);
    };
    if (seq - 1.0).abs() <= SEQ_WRITE_MISS {
        return Ok(false);
    }
    let worst = |a: f64, b: f64| a.ln().abs().max(b.ln().abs());
    let kept = w.text.clone();
    let v = (w.profile()?.nand.program_us * (seq * rand).sqrt()).clamp(10.0, MAX_PROGRAM_US);
    w.text = set(&w.text, "nand", "program_us", &num(v), "candidate");
    let moved = ratios(w)?.filter(|&(s, r)| worst(s, r) < worst(seq, rand));
    let Some((seq, rand)) = moved else {
        w.text = kept;
        return Ok(false);
    };
    let (ms, mr) = (seq * os, rand * or);
    w.set(
        "nand",
        "program_us",
        num(v),
        How::Fitted,
        format!(
            "{} {or:.2} kIOPS (twin {mr:.2}) and sequential write {os:.0} MB/s (twin {ms:.0}): one program time cannot meet both, so the one whose larger miss is smallest",
            program_figure_name(&rand_key)
        ),
        Some(if (seq - 1.0).abs() > (rand - 1.0).abs() {
            res(ms, os)
        } else {
            res(mr, or)
        }),
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::{next_program, PROGRAM_STEPS};

    /// The steps of `program_to` against a rate function: the nearest rate's miss.
    fn search(rate: impl Fn(f64) -> f64, start: f64, o: f64) -> f64 {
        let mut tried = Vec::new();
        let mut p = start;
        for _ in 0..PROGRAM_STEPS {
            tried.push((p, rate(p)));
            p = next_program(&tried, o);
        }
        tried
            .iter()
            .map(|t| (t.1 / o - 1.0).abs())
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn program_time_meets_a_rate_inverse_to_it_and_a_steep_one() {
        // Inverse: one step.
        assert!(search(|p| 1e3 / p, 3000.0, 0.5) < 1e-9);
        // Seed 63's hidden drive 1, about: a sixth shorter, three quarters faster (slope -3.5),
        // from the program time its first stage left (3010 us).
        let steep = |p: f64| 1.43 * (2039.0 / p).powf(3.5);
        assert!(search(steep, 3010.0, 1.43) < 0.01);
        // A knee: inverse above 2000 us, flat (bound elsewhere) below it; the rate asked lies on
        // the inverse part.
        let knee = |p: f64| 4.0 / p.max(2000.0) * 1e3;
        assert!(search(knee, 800.0, 1.0) < 0.01);
    }
}
