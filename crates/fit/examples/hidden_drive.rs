//! Prints the profile of one of the wider round trip's hidden drives, so a miss can be
//! reproduced with `ssdiq run` / `ssdiq io` on `emu:FILE.toml`.
//!   cargo run --release -p ssdiq-fit --example hidden_drive -- INDEX [SEED=52] > drive.toml
//!   cargo run --release -p ssdiq-fit --example hidden_drive -- other INDEX [SEED=52]
//!   (the held-out drives of another generator)

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let other = args.first().is_some_and(|a| a == "other");
    if other {
        args.remove(0);
    }
    let parse = |i: usize, default: u64| match args.get(i).map(|s| s.parse::<u64>()) {
        None => default,
        Some(Ok(v)) => v,
        Some(Err(_)) => {
            eprintln!("bad argument {:?}: expected a whole number", args[i]);
            std::process::exit(2);
        }
    };
    if args.is_empty() {
        eprintln!("usage: hidden_drive [other] INDEX [SEED=52]");
        std::process::exit(2);
    }
    let (seed, index) = (parse(1, 52), parse(0, 0));
    let h = if other {
        ssdiq_fit::roundtrip_wide::hidden_other(seed, index, 1 << 30)
    } else {
        ssdiq_fit::roundtrip_wide::hidden_wide(seed, index, 1 << 30)
    };
    eprintln!("{}", h.summary);
    print!("{}", h.text);
}
