//! docs/fit.md's sensitivity table: each knob a run does not identify, at either end of its
//! plausible range, on a library profile at a given capacity, and the largest move of any of
//! the fit's predictions. `bench/fit-sensitivity.sh` runs it.
//!   cargo run --release -p ssdiq-fit --example sensitivity -- PROFILE [CAPACITY=1GiB] [SEED=52]
//! `CONDITION=1`: each end's OP moved until its uniform WA meets the profile's.
//! `KNOB=PREFIX`: only the knobs whose name starts with it (one row again, after its range
//! changed).

use ssdiq_fit::predict::predictions;
use ssdiq_fit::sensitivity::{effects, KNOBS};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprintln!("usage: sensitivity PROFILE [CAPACITY=1GiB] [SEED=52]");
        std::process::exit(2);
    };
    let capacity = args.get(1).map(String::as_str).unwrap_or("1GiB");
    let seed: u64 = match args.get(2).map(|s| s.parse()) {
        None => 52,
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            eprintln!("bad SEED {:?}: expected a whole number", args[2]);
            std::process::exit(2);
        }
    };
    let Some(text) = ssdiq_emu::profile::builtin(name) else {
        eprintln!("unknown profile {name:?}: expected a library profile (ssdiq info emu:list)");
        std::process::exit(2);
    };
    let text = ssdiq_fit::profile_text::set(
        text,
        "drive",
        "capacity",
        &format!("\"{capacity}\""),
        "sensitivity",
    );
    // Checked before the profile's own predictions, which take minutes.
    let prefix = std::env::var("KNOB").unwrap_or_default();
    let knobs: Vec<_> = KNOBS
        .iter()
        .filter(|k| k.name.starts_with(&prefix))
        .copied()
        .collect();
    if knobs.is_empty() {
        eprintln!("no knob's name starts with KNOB={prefix:?}: expected a name of docs/fit.md's sensitivity table");
        std::process::exit(2);
    }
    let run = || -> Result<(), ssdiq_fit::FitError> {
        let base = predictions(&text, seed, &mut |p| eprintln!("emu:{name}: {p}"))?;
        for p in &base {
            let pts: Vec<String> = p
                .points
                .iter()
                .map(|(x, y)| format!("{x}: {y:.3}"))
                .collect();
            println!("emu:{name} at {capacity}, {}: {}", p.study, pts.join(", "));
        }
        let condition = std::env::var("CONDITION").is_ok_and(|v| v == "1");
        let fx = effects(&text, &base, &knobs, seed, condition, &mut |p| {
            eprintln!("emu:{name}: {p}")
        })?;
        println!(
            "{}",
            if condition {
                "each end conditioned on the profile's uniform WA (its OP moved to meet it):"
            } else {
                "each end with every other key as the profile has it:"
            }
        );
        let studies: Vec<&str> = base.iter().map(|p| p.study.as_str()).collect();
        println!("| knob | range | {} |", studies.join(" | "));
        println!("|---|---|{}", "---:|".repeat(studies.len()));
        for (k, e) in knobs.iter().zip(&fx) {
            let cells: Vec<String> = e
                .moves
                .iter()
                .map(|m| format!("{:.1}% ({})", m.share * 100.0, m.at))
                .collect();
            println!(
                "| `{}` | {} to {} | {} |",
                k.name,
                k.labels[0],
                k.labels[1],
                cells.join(" | ")
            );
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
