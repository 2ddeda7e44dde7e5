//! `ssdiq fit`: a digital twin of a measured drive (an emulated profile fitted to its
//! figures), and `--check`, the twin's figures beside the drive's.

use std::path::PathBuf;
use std::process::ExitCode;

use ssdiq_fit::{check, FitOptions, How, Observed};
use ssdiq_suite::result_file::{load_fit_input, result_file};
use ssdiq_workload::units::parse_size;

use crate::error::{usage, OrUsage};
use crate::output::{check_outputs, write_json, write_output};
use ssdiq_emu::memory::drive_bytes;
use ssdiq_target::check_memory;

#[derive(clap::Args)]
#[command(
    about = "Fit an emulated twin to a measured drive, or check a twin against one",
    after_help = "The twin is an emulated profile (TOML): run it as emu:FILE.toml with every \
command. Each value the fit sets is measured on the twin with the SSD-iq protocol's own steps \
and moved until the twin's figure meets the drive's; the file says, line by line, what each \
value was fitted to and which values the figures cannot identify (those are the nearest \
library profile's). docs/fit.md explains the model.\n\n\
Examples:\n  ssdiq run /dev/nvme1n1 --out r && ssdiq fit r/run.json --out mydrive.toml\n  \
ssdiq fit --check mydrive.toml r/run.json\n  \
ssdiq fit --paper ssd-iq:pm9a3 --capacity 2GiB --out pm9a3-twin.toml\n  \
ssdiq study skew emu:mydrive.toml"
)]
pub struct Args {
    /// Results of `ssdiq run` on one drive (run.json or its directory); several (e.g.
    /// repetitions) are fitted by each figure's median. Studies of the same drive may join
    /// them: `study latency-load` (the buffer is then fitted to its write P99 at every load,
    /// and --check compares the twin's curve), `study skew` (every GC policy and buffer
    /// candidate is scored on its WA at each skew, and --check compares the twin's) and
    /// `study gc-unit` (its GC unit sets the twin's superblock); so may `ssdiq info --json`
    /// of an FDP drive (its reclaim unit sets the superblock where no gc-unit study is
    /// given).
    inputs: Vec<PathBuf>,
    /// Fit to a paper's published row instead: ssd-iq:NAME, NAME one of pm9a3, pe8110, p5520,
    /// sn640, 7450pro, 7450max, pm1733, cm7r, i4i (Tables 2 and 3).
    #[arg(long, value_name = "PAPER:DRIVE")]
    paper: Option<String>,
    /// Check this twin (a profile TOML) against the inputs: run the whole protocol on it and
    /// print every figure beside the drive's.
    #[arg(long, value_name = "TWIN.toml")]
    check: Option<PathBuf>,
    /// Where to write the fitted twin (TOML).
    #[arg(long, value_name = "FILE.toml")]
    out: Option<PathBuf>,
    /// The twin's emulated capacity (default: the drive's own if it was emulated, else the
    /// library's scaled 16 GiB). Smaller fits faster.
    #[arg(long, value_name = "SIZE")]
    capacity: Option<String>,
    /// The library profile to start from (default: the nearest by datasheet).
    #[arg(long, value_name = "PROFILE")]
    base: Option<String>,
    /// Seed of the twin's measurements.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write what was fitted (or checked) as JSON; a fit's JSON holds the twin's
    /// predictions with their ranges too, which runs them (as --check does).
    #[arg(long, value_name = "FILE.json")]
    json: Option<PathBuf>,
    /// With --check: write the page (the drive beside its twin, and the twin's predictions).
    #[arg(long, value_name = "FILE.html")]
    html: Option<PathBuf>,
    /// With --check or --json: predictions without their ranges (each prediction's range
    /// reruns it with every key the twin keeps from its base, and that a run cannot identify,
    /// at either end of its plausible range, on a 1 GiB copy: docs/fit.md).
    #[arg(long)]
    no_range: bool,
    /// With --check: also run these patterns (comma-separated, e.g. twozone:90/10,zipf:0.9)
    /// steadily on the twin, as its predictions run theirs (reset, fill, two drive writes of
    /// 4 KiB random writes at QD 32, then four more measured), and print each one's WA and
    /// write throughput: a workload to set beside the same on the drive.
    #[arg(long, value_name = "PATTERNS", value_delimiter = ',')]
    steady: Vec<String>,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    if a.paper.is_some() && !a.steady.is_empty() {
        return Err(usage(
            "--steady runs patterns on a twin checked against a drive's run (--check TWIN.toml RUN.json); a published row (--paper) has no run to check against",
        ));
    }
    if a.check.is_some() {
        if a.paper.is_some() {
            return Err(usage(
                "--check checks a twin against run results: give run.json files, not --paper",
            ));
        }
        for (flag, given) in [
            ("--out", a.out.is_some()),
            ("--capacity", a.capacity.is_some()),
            ("--base", a.base.is_some()),
        ] {
            if given {
                return Err(usage(format!(
                    "{flag} belongs to fitting a twin; --check only checks one"
                )));
            }
        }
    } else if a.html.is_some() {
        return Err(usage(
            "--html writes the page of a check: give --check TWIN.toml",
        ));
    } else if !a.steady.is_empty() {
        return Err(usage(
            "--steady runs patterns on a twin being checked: give --check TWIN.toml",
        ));
    } else if a.no_range && a.json.is_none() {
        return Err(usage(
            "--no-range leaves out the prediction ranges of a check or of --json: give --check TWIN.toml or --json FILE.json",
        ));
    }
    for p in &a.steady {
        if p.trim().is_empty() {
            return Err(usage(format!(
                "invalid --steady \"{}\": an empty pattern between commas; expected patterns like twozone:90/10,zipf:0.9",
                a.steady.join(",")
            )));
        }
        ssdiq_workload::Pattern::parse(p).map_err(|e| usage(format!("--steady: {e}")))?;
    }
    let obs = observed(&a)?;
    match &a.check {
        Some(twin) => check_twin(&a, twin, &obs),
        None => fit(&a, obs),
    }
}

fn observed(a: &Args) -> anyhow::Result<Observed> {
    if let Some(p) = &a.paper {
        if !a.inputs.is_empty() {
            return Err(usage(
                "--paper fits a published row: give no run results with it",
            ));
        }
        return ssdiq_fit::paper::observed(p).or_usage();
    }
    if a.inputs.is_empty() {
        return Err(usage(
            "no input: give the run.json of `ssdiq run` (or --paper ssd-iq:DRIVE)",
        ));
    }
    let mut docs = Vec::new();
    let mut seen: Vec<((u64, u64), &PathBuf)> = Vec::new();
    for p in &a.inputs {
        // One file named twice would count as two measurements of the drive.
        if let Ok(m) = std::fs::metadata(result_file(p)) {
            use std::os::unix::fs::MetadataExt;
            let id = (m.dev(), m.ino());
            if let Some((_, first)) = seen.iter().find(|(i, _)| *i == id) {
                return Err(usage(format!(
                    "\"{}\" and \"{}\" are the same result: give each measurement once",
                    first.display(),
                    p.display()
                )));
            }
            seen.push((id, p));
        }
        docs.push((p.display().to_string(), load_fit_input(p).or_usage()?));
    }
    Observed::from_results(docs).or_usage()
}

fn fit(a: &Args, obs: Observed) -> anyhow::Result<ExitCode> {
    let out = a
        .out
        .as_ref()
        .ok_or_else(|| usage("missing --out FILE.toml: where to write the twin"))?;
    let capacity = a
        .capacity
        .as_deref()
        .map(|c| {
            parse_size(c)
                .ok()
                .filter(|b| *b >= 256 << 20 && b.is_multiple_of(1 << 20))
                .ok_or_else(|| {
                    usage(format!(
                        "invalid --capacity \"{c}\": expected a size of at least 256MiB in whole MiB, e.g. 2GiB"
                    ))
                })
        })
        .transpose()?;
    check_outputs(
        &[
            ("--out", Some(out.as_path())),
            ("--json", a.json.as_deref()),
        ],
        &read_files(a),
    )?;
    let o = FitOptions {
        base: a.base.clone(),
        capacity,
        seed: a.seed,
        before_first_twin: Some(twin_memory),
    };
    let started = std::time::Instant::now();
    let f = ssdiq_fit::fit(&obs, &o, &mut |s| eprintln!("fit: {s}")).map_err(|e| match e {
        ssdiq_fit::FitError::Input(m) => usage(m),
        e => e.into(),
    })?;
    write_output(out, f.text.as_bytes())?;
    println!(
        "twin of {} (from {}), starting from emu:{}:",
        obs.name, obs.source, f.base
    );
    for p in &f.params {
        let how = match p.how {
            How::Fitted => "fitted",
            How::Input => "input",
            How::Kept => "kept",
        };
        let r = p
            .residual
            .map(|r| format!(" [{:+.1}% when fitted]", r * 100.0))
            .unwrap_or_default();
        println!("  {:<28} {:<12} {how:<6} {}{r}", p.key, p.value, p.source);
    }
    println!(
        "the twin as written, measured once more with the run's protocol (as fit --check will):"
    );
    print!("{}", ssdiq_report::fit::rows_text(&f.measured));
    if let Some(j) = &a.json {
        let predictions = predictions_of(&f.text, a, "fit")?;
        print!("{}", ssdiq_report::fit::predictions_text(&predictions));
        write_json(
            j,
            &ssdiq_schema::FitDoc {
                schema: ssdiq_schema::SCHEMA.into(),
                kind: "fit".into(),
                drive: obs.name.clone(),
                source: obs.source.clone(),
                base: f.base.clone(),
                params: f.params.clone(),
                twin_runs: f.runs.clone(),
                measured: f.measured.clone(),
                predictions,
            },
        )?;
    }
    let runs: Vec<String> = f
        .runs
        .iter()
        .filter(|r| r.runs > 0)
        .map(|r| format!("{} {}", r.runs, stage_name(&r.stage)))
        .collect();
    println!(
        "emulator runs of protocol steps on candidate twins: {} ({})",
        f.runs.iter().map(|r| r.runs).sum::<u32>(),
        runs.join(", ")
    );
    println!(
        "twin: {} ({:.0} s wall); use it as emu:{}; check it with ssdiq fit --check {} ...",
        out.display(),
        started.elapsed().as_secs_f64(),
        out.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The twin's predictions, each with its range unless --no-range; progress on stderr after
/// `who: `.
fn predictions_of(
    twin: &str,
    a: &Args,
    who: &str,
) -> anyhow::Result<Vec<ssdiq_schema::Prediction>> {
    let mut predictions =
        ssdiq_fit::predict::predictions(twin, a.seed, &mut |s| eprintln!("{who}: predicting {s}"))?;
    if !a.no_range {
        ssdiq_fit::range::with_ranges(twin, &mut predictions, a.seed, &mut |s| {
            eprintln!("{who}: the predictions' range, {s}")
        })?;
    }
    Ok(predictions)
}

/// Refuses a twin whose drive this machine cannot hold, before the first is built (the fit
/// builds one drive at a time and resets it between steps, as `run` does).
fn twin_memory(p: &ssdiq_emu::Profile) -> Result<(), String> {
    let what = format!("the twin (a {} drive)", p.drive.capacity);
    let need = drive_bytes(p).map_err(|e| e.to_string())?;
    check_memory(&what, need.peak_with_reset(), "use a smaller --capacity")
        .map_err(|e| e.to_string())
}

/// The files the inputs name (a run given as its directory is its run.json): none may be
/// an output.
fn read_files(a: &Args) -> Vec<PathBuf> {
    a.inputs.iter().map(|p| result_file(p)).collect()
}

/// A stage's progress line as a short name: "fitting OP and the GC policy to ..." -> "OP and
/// the GC policy"; a stage run once more says so ("... again").
fn stage_name(stage: &str) -> String {
    let s = stage.strip_prefix("fitting ").unwrap_or(stage);
    let name = s
        .split(" to the ")
        .next()
        .unwrap_or(s)
        .split(" again")
        .next()
        .unwrap_or(s)
        .split(", with")
        .next()
        .unwrap_or(s);
    if s.contains(" again") && !name.ends_with("again") {
        format!("{name} again")
    } else {
        name.to_string()
    }
}

fn check_twin(a: &Args, twin: &std::path::Path, obs: &Observed) -> anyhow::Result<ExitCode> {
    let mut inputs = read_files(a);
    inputs.push(twin.to_path_buf());
    check_outputs(
        &[("--json", a.json.as_deref()), ("--html", a.html.as_deref())],
        &inputs,
    )?;
    let text = ssdiq_engine::textfile::read_text(twin, 1 << 20)
        .map_err(|e| usage(format!("cannot read twin \"{}\": {e}", twin.display())))?;
    let profile = ssdiq_emu::Profile::parse_checked(&text, &[])
        .map_err(|e| usage(format!("invalid twin \"{}\": {e}", twin.display())))?;
    twin_memory(&profile).map_err(usage)?;
    eprintln!("check: running the SSD-iq protocol on the twin");
    let figures = ssdiq_fit::twin::measure(
        &text,
        &obs.spec,
        ssdiq_fit::twin::Part::All,
        a.seed,
        obs.quick,
    )?;
    let mut rows = check::compare(obs, &figures);
    if let Some(curve) = &obs.load_curve {
        eprintln!("check: running the latency-load study on the twin");
        let twin_curve = ssdiq_fit::measure_curve(&text, curve)?;
        rows.extend(check::curve_rows(curve, &twin_curve));
    }
    if let Some(curve) = &obs.skew_curve {
        eprintln!("check: running the skew study on the twin");
        let twin_curve = ssdiq_fit::measure_skew(&text, curve)?;
        rows.extend(check::skew_rows(curve, &twin_curve));
    }
    let mut steady = Vec::new();
    for p in &a.steady {
        eprintln!("check: running {p} steadily on the twin");
        steady.push((p, ssdiq_fit::predict::steady_writes(&text, p, a.seed)?));
    }
    let predictions = predictions_of(&text, a, "check")?;
    let doc = ssdiq_schema::FitCheckDoc {
        schema: ssdiq_schema::SCHEMA.into(),
        kind: "fit-check".into(),
        drive: obs.name.clone(),
        source: obs.source.clone(),
        twin: twin.display().to_string(),
        rows,
        predictions,
    };
    print!("{}", ssdiq_report::fit::check_text(&doc));
    for (p, o) in &steady {
        let show = |v: Option<f64>, digits: usize| {
            v.map(|v| format!("{v:.digits$}"))
                .unwrap_or_else(|| "-".into())
        };
        println!(
            "twin, steady {p}: WA {}, write {} kIOPS",
            show(o.waf, 3),
            show(o.write_kiops, 3)
        );
    }
    if let Some(j) = &a.json {
        write_json(j, &doc)?;
    }
    if let Some(h) = &a.html {
        write_output(h, ssdiq_report::fit::page(&doc).as_bytes())?;
        println!("page: {}", h.display());
    }
    Ok(ExitCode::SUCCESS)
}
