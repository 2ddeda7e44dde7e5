//! A twin's predictions and their ranges, with each variant the range ran (its keys' ends and
//! the corners): what `ssdiq fit --check` draws, without a run to check against.
//!   cargo run --release -p ssdiq-fit --example range -- TWIN.toml [SEED=1]

use ssdiq_fit::predict::predictions;
use ssdiq_fit::range::with_ranges;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: range TWIN.toml [SEED=1]");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {path:?}: {e}");
            std::process::exit(2);
        }
    };
    let seed: u64 = match args.get(1).map(|s| s.parse()) {
        None => 1,
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            eprintln!("bad SEED {:?}: expected a whole number", args[1]);
            std::process::exit(2);
        }
    };
    let run = || -> Result<(), ssdiq_fit::FitError> {
        let mut preds = predictions(&text, seed, &mut |_| {})?;
        with_ranges(&text, &mut preds, seed, &mut |v| eprintln!("ran: {v}"))?;
        for p in &preds {
            println!("{} (keys: {})", p.study, p.range_keys.join("; "));
            for ((x, y), (lo, hi)) in p.points.iter().zip(&p.range) {
                println!("  {x}: {y:.3} in {lo:.3}-{hi:.3}");
            }
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
