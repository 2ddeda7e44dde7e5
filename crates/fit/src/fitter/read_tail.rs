//! The read tail under load: suspension, and read-retry where suspension alone cannot give
//! the drive's read P99.9 and average together.
//!
//! A millisecond read P99.9 (the paper's red class) comes from reads that wait for a whole
//! program or erase (no suspension), or from reads that retry many times. The two differ in
//! the average: without suspension every read that meets a program waits for it, so the
//! average rises with the tail; a deep retry is rare and leaves the average alone. The
//! CM7-R's row (read average 65 us, green; P99.9 1153 us, red) is the second kind.

use std::collections::BTreeMap;

use ssdiq_report::colour;
use ssdiq_schema::figures as keys;

use super::{figure, num, res, How, Work};
use crate::profile_text::set;
use crate::twin::Part;
use crate::FitError;

/// The most extra read steps the emulator takes for one retried read (its profile check).
const RETRY_STEPS_MAX: f64 = 100.0;

/// Fits suspension (and, where the drive's read average says so, read-retry) to the drive's
/// read P99.9 under load `o`; `twin` is the twin's load figures as it stands.
pub(super) fn fit_read_tail(
    w: &mut Work,
    o: f64,
    mut twin: BTreeMap<String, f64>,
) -> Result<(), FitError> {
    let p999 = |f: &BTreeMap<String, f64>| figure(f, keys::READ_LAT_LOAD_P999_US);
    let m = p999(&twin);
    if !m.is_finite() {
        return Ok(());
    }
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
        let other = w.twin(&t, Part::Load)?;
        if (p999(&other) / o).ln().abs() < (m / o).ln().abs() {
            w.text = t;
            twin = other;
        }
    }
    if let Some(avg) = w.obs.get(keys::READ_LAT_LOAD_AVG_US) {
        if let Some(found) = try_retries(w, o, avg, &twin)? {
            twin = found;
        }
    }
    let m = p999(&twin);
    let s = w.profile()?.nand.suspend;
    w.set(
        "nand",
        "suspend",
        s.to_string(),
        How::Fitted,
        format!("read P99.9 under load {o:.0} us (twin {m:.0})"),
        Some(res(m, o)),
    );
    Ok(())
}

/// Where the twin's read average under load is in a worse colour class than the drive's
/// `avg`, tries suspension with deep read-retry sized to the P99.9 `o`; kept if it meets the
/// two figures better (squared log residuals). The retries cost die time, so the read path is
/// fitted again with them first; the depth then follows the measured P99.9. Returns the
/// twin's load figures if kept.
fn try_retries(
    w: &mut Work,
    o: f64,
    avg: f64,
    twin: &BTreeMap<String, f64>,
) -> Result<Option<BTreeMap<String, f64>>, FitError> {
    let a = figure(twin, keys::READ_LAT_LOAD_AVG_US);
    if !a.is_finite() || colour::read_avg(a) == colour::read_avg(avg) {
        return Ok(None);
    }
    let score = |f: &BTreeMap<String, f64>| {
        (figure(f, keys::READ_LAT_LOAD_P999_US) / o).ln().powi(2)
            + (figure(f, keys::READ_LAT_LOAD_AVG_US) / avg).ln().powi(2)
    };
    let before = score(twin);
    let saved = w.text.clone();
    let step_us = w.profile()?.nand.read_us;
    // A retried read takes 1 to `max` extra steps of about a read each, uniformly: with
    // `max` twice the steps that reach the P99.9 and a rate that puts 0.1% of all reads
    // beyond them, the P99.9 falls there (`rate` x (1 - steps / max) = 0.001).
    let mut steps = (o / step_us).max(1.0);
    let mut found = None;
    let mut base = saved.clone();
    for round in 0..3 {
        let max = (2.0 * steps).ceil().clamp(2.0, RETRY_STEPS_MAX);
        let s = steps.min(0.9 * max);
        let rate = (0.001 / (1.0 - s / max)).clamp(0.001, 0.05);
        w.text = set(&base, "nand", "suspend", "true", "candidate");
        w.text = set(&w.text, "nand", "read_retry_rate", &num(rate), "candidate");
        w.text = set(
            &w.text,
            "nand",
            "read_retry_max_steps",
            &format!("{max:.0}"),
            "candidate",
        );
        if round == 0 {
            // The retries take die time from the random reads: the read path again, before
            // the tail is measured (a read step is a read: the depth follows it).
            super::path::fit_reads(w)?;
            base = w.text.clone();
        }
        let f = w.twin(&w.text, Part::Load)?;
        let m = figure(&f, keys::READ_LAT_LOAD_P999_US);
        found = Some((rate, max, f));
        if !m.is_finite() || (m / o - 1.0).abs() < 0.05 {
            break;
        }
        steps *= o / m;
    }
    let Some((rate, max, f)) = found.filter(|(_, _, f)| score(f) < before) else {
        w.text = saved;
        return Ok(None);
    };
    let why = format!(
        "read P99.9 under load {o:.0} us (twin {:.0}) with the read average {avg:.0} us (twin {:.0}; {a:.0} without them): a deep retry is rare, so the tail does not lift the average as waits for whole programs do",
        figure(&f, keys::READ_LAT_LOAD_P999_US),
        figure(&f, keys::READ_LAT_LOAD_AVG_US),
    );
    let r = Some(res(figure(&f, keys::READ_LAT_LOAD_P999_US), o));
    w.set(
        "nand",
        "read_retry_rate",
        num(rate),
        How::Fitted,
        why.clone(),
        r,
    );
    w.set(
        "nand",
        "read_retry_max_steps",
        format!("{max:.0}"),
        How::Fitted,
        why,
        r,
    );
    Ok(Some(f))
}
