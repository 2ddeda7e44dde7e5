//! `ssdiq study NAME [TARGET]`: one of the papers' experiments as a sweep of points
//! (`ssdiq study list` names them). Same order as `run`: validate everything and open the
//! target with its safety checks (bad input: one line, exit 2, nothing written) -> check the
//! output directory -> run with progress on stderr -> write study.json, points.csv,
//! study.html -> findings on stdout. Ctrl-C keeps the finished points, marked partial
//! (exit 130); a failed I/O keeps them too and names the error (exit 1).

use std::path::PathBuf;
use std::process::ExitCode;

use ssdiq_suite::study::{self, StudyOptions, STUDIES};

use super::run_bars::Bars;
use super::run_out;
use super::run_target::{suite_usage, DriveArgs};
use super::study_out;
use crate::error::{usage, OrUsage};

#[derive(clap::Args)]
#[command(
    about = "Run one of the papers' experiments (skew, gc-unit, latency-load, ...) on a drive",
    after_help = "Examples:\n  ssdiq study list\n  ssdiq study skew --quick\n  ssdiq study gc-unit emu:7450max --out results/gc-unit\n  ssdiq study latency-load /dev/nvme1n1 --allow-destroy /dev/nvme1n1 --spec-rand-write 70\n  ssdiq study pts-iops emu:p5520 --pts-cell 5s\n\n\
Each study resets the drive (emulated: to empty; file: truncated; block device: as `ssdiq run`\n\
does) wherever it needs a known state, and writes study.json, points.csv and study.html into\n\
--out. docs/studies.md describes every study and shows full-length results."
)]
pub struct Args {
    /// The study (`list` prints them all).
    name: String,
    /// emu:PROFILE[,key=value...], a block device, or a file (with --size) [default:
    /// emu:default].
    target: Option<String>,
    /// Fewer points and shorter ones: a demonstration, numbers rough.
    #[arg(long)]
    quick: bool,
    /// Output directory (default: ssdiq-results/study-NAME-<target>-<UTC time>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of the request streams.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random 4 KiB write kIOPS of the datasheet: latency-load's 100% (default: the emulated
    /// profile's datasheet, else the measured rate).
    #[arg(long, value_name = "kIOPS")]
    spec_rand_write: Option<String>,
    /// Seconds of one SNIA PTS test period (pts-* studies; default: the spec's 60, with
    /// --quick 1).
    #[arg(long, value_name = "SECONDS")]
    pts_cell: Option<String>,
    /// latency-load's highest level, percent of its 100% (default 100; up to 200, to find a
    /// knee above the datasheet's rate).
    #[arg(long, value_name = "PERCENT")]
    max_load: Option<String>,
    /// What latency-load's 100% is: spec (the datasheet's random-write IOPS; the default where
    /// there is one) or own (the drive's sustained rate, measured over a drive write after the warm-up).
    #[arg(long, value_name = "spec|own")]
    relative_to: Option<String>,
    #[command(flatten)]
    drive: DriveArgs,
    /// No progress and no findings; print only the output directory.
    #[arg(long)]
    quiet: bool,
}

const DEFAULT_TARGET: &str = "emu:default";

fn list() -> String {
    // The name column as wide as the longest name, so no title shifts.
    let w = STUDIES.iter().map(|st| st.name.len()).max().unwrap_or(0);
    let mut s = String::new();
    for st in STUDIES {
        s.push_str(&format!(
            "{:<w$}  {}\n{:<w$}  ({})\n",
            st.name, st.title, "", st.source
        ));
    }
    s
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let stop = crate::signals::stop_on_signals()?;
    if args.name == "list" {
        // `list` runs nothing: a target or an option given with it is a mistake to name.
        let given = [
            ("a target", args.target.is_some()),
            ("--out", args.out.is_some()),
            ("--quick", args.quick),
            ("--spec-rand-write", args.spec_rand_write.is_some()),
            ("--pts-cell", args.pts_cell.is_some()),
            ("--size", args.drive.size.is_some()),
            ("--recreate", args.drive.recreate),
            ("--allow-destroy", args.drive.allow_destroy.is_some()),
        ];
        if let Some((what, _)) = given.iter().find(|g| g.1) {
            return Err(usage(format!(
                "study list prints the studies and runs none: it takes no {}; name a study to run (ssdiq study NAME TARGET)",
                what.trim_start_matches("a ")
            )));
        }
        print!("{}", list());
        return Ok(ExitCode::SUCCESS);
    }
    let target_name = args
        .target
        .clone()
        .unwrap_or_else(|| DEFAULT_TARGET.to_string());
    let Some(st) = study::find(&args.name) else {
        let names: Vec<&str> = STUDIES.iter().map(|s| s.name).collect();
        return Err(usage(format!(
            "unknown study \"{}\": expected one of {} (ssdiq study list)",
            args.name,
            names.join(", ")
        )));
    };
    // An option the study does not read would be passed over in silence: refused.
    for (flag, given, takes, who) in [
        (
            "--spec-rand-write",
            args.spec_rand_write.is_some(),
            st.takes_spec_rand_write(),
            "latency-load reads",
        ),
        (
            "--pts-cell",
            args.pts_cell.is_some(),
            st.takes_pts_cell(),
            "the pts-* studies read",
        ),
        (
            "--max-load",
            args.max_load.is_some(),
            st.takes_load_levels(),
            "latency-load reads",
        ),
        (
            "--relative-to",
            args.relative_to.is_some(),
            st.takes_load_levels(),
            "latency-load reads",
        ),
    ] {
        if given && !takes {
            return Err(usage(format!(
                "study {} takes no {flag} (only {who} it)",
                st.name
            )));
        }
    }
    let spec_iops =
        ssdiq_suite::spec::spec_flag("spec-rand-write", args.spec_rand_write.as_deref())
            .or_usage()?
            .map(|kiops| kiops * 1e3);
    let pts_cell_s = match &args.pts_cell {
        None => None,
        Some(t) => {
            let ns = ssdiq_workload::units::parse_duration_ns(t)
                .map_err(|e| usage(format!("invalid --pts-cell \"{t}\": {e}")))?;
            // One cell is one job: it may last as long as a job may.
            if ns == 0 || ns > ssdiq_engine::MAX_JOB_NS {
                return Err(usage(format!(
                    "invalid --pts-cell \"{t}\": expected a duration above 0 and at most 30 days (720h)"
                )));
            }
            Some(ns as f64 / 1e9)
        }
    };
    let max_load_percent = args
        .max_load
        .as_deref()
        .map(|m| {
            let t = m.trim();
            t.strip_suffix('%')
                .unwrap_or(t)
                .trim()
                .parse::<f64>()
                .ok()
                // Levels are whole percentages: 100.5% would run (and read) as 101%.
                .filter(|p| (10.0..=200.0).contains(p) && p.fract() == 0.0)
                .ok_or_else(|| {
                    usage(format!(
                        "invalid --max-load \"{m}\": expected a whole percentage from 10% to 200%, e.g. 150%"
                    ))
                })
        })
        .transpose()?;
    let load_relative_to_own = match args.relative_to.as_deref() {
        None | Some("spec") => false,
        Some("own") => true,
        Some(other) => {
            return Err(usage(format!(
                "invalid --relative-to \"{other}\": expected spec or own"
            )))
        }
    };
    if load_relative_to_own && args.spec_rand_write.is_some() {
        return Err(usage(
            "--relative-to own takes 100% from the drive itself: give no --spec-rand-write with it",
        ));
    }
    // Checked before --out: bad input writes nothing.
    args.drive.size_bytes()?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| run_out::default_dir(&format!("study-{}-{}", st.name, target_name)));
    run_out::check_dir_for(&out, &study_out::FILES, &target_name)?;
    let mut target = args.drive.open(&target_name, "study")?;
    let spec_iops = spec_iops.or_else(|| {
        target
            .builtin_spec()
            .and_then(|s| s.rand_write_kiops)
            .map(|k| k * 1e3)
    });
    let _claim = ssdiq_target::OutDir::claim(&out, &study_out::FILES, args.drive.recreate)?;
    crate::signals::drain_on_signals();

    let bars = Bars::new(args.quiet);
    let opts = StudyOptions {
        quick: args.quick,
        seed: args.seed,
        spec_rand_write_iops: spec_iops,
        pts_cell_s,
        max_load_percent,
        load_relative_to_own,
    };
    let doc = study::run(st, target.as_mut(), &opts, stop, &bars);
    bars.clear();
    let doc = doc.map_err(suite_usage)?;
    study_out::write_all(&out, &doc)?;
    if args.quiet {
        println!("{}", out.display());
    } else {
        println!("{} on {}: {}", doc.study, doc.target.name, doc.title);
        for f in &doc.findings {
            println!("  {f}");
        }
        println!(
            "{} points in {:.1} s wall{}",
            doc.points.len(),
            doc.wall_s,
            if doc.partial { ", partial" } else { "" }
        );
        println!(
            "results: {}/{{study.json,points.csv,study.html}}",
            out.display()
        );
    }
    if let Some(e) = &doc.error {
        eprintln!("ssdiq: error: {e}; the points before it are saved, marked partial");
        return Ok(ExitCode::from(1));
    }
    if doc.partial {
        eprintln!("ssdiq: interrupted; results are partial");
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
