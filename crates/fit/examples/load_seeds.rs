//! A profile's write-load curve (write P99 at 25-90% of its sustained uniform random-write
//! rate, as `ssdiq fit` predicts it) at each of several seeds: how far the phase of the run
//! moves the knee, which a range must hold.
//!   cargo run --release -p ssdiq-fit --example load_seeds -- PROFILE.toml SEED [SEED ...]

use ssdiq_fit::predict::load_curve;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: load_seeds PROFILE.toml SEED [SEED ...]");
        std::process::exit(2);
    }
    let path = &args[0];
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {path:?}: {e}");
            std::process::exit(2);
        }
    };
    let mut seeds = Vec::new();
    for s in &args[1..] {
        match s.parse::<u64>() {
            Ok(seed) => seeds.push(seed),
            Err(_) => {
                eprintln!("bad SEED {s:?}: expected a whole number");
                std::process::exit(2);
            }
        }
    }
    for seed in seeds {
        match load_curve(&text, seed, &mut |_| {}) {
            Ok(c) => {
                let points: Vec<String> = c
                    .points
                    .iter()
                    .map(|(load, p99)| format!("{load}%: {p99:.1} us"))
                    .collect();
                println!("seed {seed}: {}", points.join(", "));
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
}
