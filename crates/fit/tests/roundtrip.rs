//! Issue 34's round trip on drives the fit has never seen (seeded hidden drives: a library
//! profile with random OP, GC policy, buffer, timings, suspension and write stalls), each
//! measured once with the whole SSD-iq protocol and fitted from that run alone.

use ssdiq_fit::roundtrip::{
    hidden, measure_hidden, p99_within, round_trip, wa_and_throughput_within, Studies,
};
use ssdiq_fit::twin::{measure, Part};
use ssdiq_fit::{compare, fit, FitOptions};

const SEED: u64 = 34;

/// The twin, run through the whole protocol again, reproduces the figures it was fitted to
/// (the skewed workloads' figures only choose among policies and buffers, so they are not
/// among them): uniform WA and the throughputs within 5%, QD1 latencies within 10%. Two hidden
/// drives of 1 GiB, each a run, a fit and the twin's run. Drive 7's OP step (12 MiB
/// superblocks, 1.2% of OP, about 8% of its WA) is coarser than the WA tolerance: a search
/// between nearby OPs stalled on one superblock too few there (uniform WA +9.2%). Each twin
/// also has its hidden drive's write buffer, from the write burst.
#[test]
#[ignore = "slow, about 3.5 min on two cores: .ci/extra/slow-tests.sh runs it"]
fn twins_reproduce_the_figures_they_were_fitted_to() {
    reproduce(&[5, 7]);
}

/// The same on drive 18, whose write burst never filled its buffer (a cm7r of 128 dies
/// draining fast): its twin's buffer comes from the sizes that burst leaves (the load stage
/// alone took 8 MiB for 32). About 10 min of one core (600 s of CPU on 2026-11-30), longer
/// than every other fit test together, so CI leaves it to `bench/fit-roundtrip.sh figures`.
#[test]
#[ignore = "slow, about 10 min: bench/fit-roundtrip.sh figures runs it"]
fn a_twin_takes_its_buffer_from_the_sizes_a_burst_that_never_filled_leaves() {
    reproduce(&[18]);
}

/// Runs [`twin_reproduces_its_figures`] on `drives`, one thread each (each fit is sequential),
/// and fails with every problem found.
fn reproduce(drives: &[u64]) {
    let problems: Vec<String> = std::thread::scope(|sc| {
        let runs: Vec<_> = drives
            .iter()
            .map(|&i| sc.spawn(move || twin_reproduces_its_figures(i)))
            .collect();
        runs.into_iter()
            .flat_map(|r| r.join().expect("a drive's thread panicked"))
            .collect()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What hidden drive `i`'s twin does not reproduce, one line each.
fn twin_reproduces_its_figures(i: u64) -> Vec<String> {
    let h = hidden(SEED, i, 1 << 30);
    let obs = measure_hidden(&h.text, SEED, false).unwrap();
    let f = fit(&obs, &FitOptions::default(), &mut |_| {}).unwrap();
    let buffer = |text: &str| {
        ssdiq_emu::Profile::parse(text, &[])
            .unwrap()
            .buffer
            .buffer_kib
    };
    let mut problems = Vec::new();
    if buffer(&f.text) != buffer(&h.text) {
        problems.push(format!(
            "drive {i} ({}): buffer {} KiB, the drive's {} KiB",
            h.summary,
            buffer(&f.text),
            buffer(&h.text)
        ));
    }
    let twin = measure(&f.text, &obs.spec, Part::All, SEED, obs.quick).unwrap();
    for r in compare(&obs, &twin) {
        let bound = if [
            "waf_measured.uniform",
            "rand_write_kiops.uniform",
            "rand_read_kiops",
            "seq_read_mb_s",
        ]
        .contains(&r.key.as_str())
        {
            0.05
        } else if r.key.ends_with("idle_us") {
            0.10
        } else {
            continue;
        };
        // A figure the twin lacks (no residual, or NaN) is a miss too.
        if r.residual
            .is_none_or(|res| res.is_nan() || res.abs() > bound)
        {
            problems.push(format!(
                "drive {i} ({}): {} drive {} twin {:?}",
                h.summary, r.key, r.drive, r.twin
            ));
        }
    }
    problems
}

/// The bar, on workloads the run did not include: WAF and throughput within 10%,
/// write P99 within 2x on at least 9 of 10 drives. Not met yet (docs/fit.md: a write buffer
/// that absorbs rewrites is not identified by the protocol), so it runs on request:
/// `SSDIQ_FIT_HIDDEN=10 cargo test --release -p ssdiq-fit -- --ignored` or
/// `bench/fit-roundtrip.sh`.
#[test]
#[ignore]
fn twins_of_hidden_drives_predict_unseen_workloads() {
    let n: u64 = std::env::var("SSDIQ_FIT_HIDDEN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    // The first hidden drive: `SSDIQ_FIT_FIRST=K` looks at drives K.. alone.
    let first: u64 = std::env::var("SSDIQ_FIT_FIRST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // `SSDIQ_FIT_STUDY=1` also gives each fit the hidden drive's latency-load study.
    // `SSDIQ_FIT_SKEW=1`: and its skew study.
    let on = |k: &str| std::env::var(k).is_ok_and(|v| v == "1");
    let studies = Studies {
        latency_load: on("SSDIQ_FIT_STUDY"),
        skew: on("SSDIQ_FIT_SKEW"),
    };
    let (mut wa_ok, mut p99_ok) = (0, 0);
    for i in first..first + n {
        let (h, f, rows) = round_trip(SEED, i, 1 << 30, studies).expect("round trip");
        println!("drive {i}: {}", h.summary);
        // The drive's and its twin's profiles, to run them again by hand (`emu:FILE`).
        if let Ok(dir) = std::env::var("SSDIQ_FIT_DUMP") {
            let dir = std::path::Path::new(&dir);
            std::fs::create_dir_all(dir).expect("SSDIQ_FIT_DUMP is a writable directory");
            std::fs::write(dir.join(format!("drive{i}.toml")), &h.text).unwrap();
            std::fs::write(dir.join(format!("twin{i}.toml")), &f.text).unwrap();
        }
        let twin: Vec<String> = f
            .params
            .iter()
            .filter(|p| p.how == ssdiq_fit::How::Fitted)
            .map(|p| format!("{}={}", p.key.rsplit('.').next().unwrap_or(""), p.value))
            .collect();
        println!("  twin (from emu:{}): {}", f.base, twin.join(" "));
        for p in f.params.iter().filter(|p| p.key.ends_with("buffer_kib")) {
            println!("  buffer: {} ({})", p.value, p.source);
        }
        for c in &rows {
            let f = |o: Option<f64>| o.map(|v| format!("{v:.3}")).unwrap_or("-".into());
            println!(
                "  {:<14} WAF {} / {}  kIOPS {} / {}  write P99 us {} / {}",
                c.workload,
                f(c.hidden.waf),
                f(c.twin.waf),
                f(c.hidden.write_kiops),
                f(c.twin.write_kiops),
                f(c.hidden.write_p99_us),
                f(c.twin.write_p99_us)
            );
        }
        let wa = rows
            .iter()
            .filter(|c| !c.workload.starts_with("load"))
            .all(|c| wa_and_throughput_within(c, 0.10));
        let p99 = rows.iter().all(|c| p99_within(c, 2.0));
        println!("  WAF and throughput within 10%: {wa}; write P99 within 2x: {p99}");
        wa_ok += wa as u32;
        p99_ok += p99 as u32;
    }
    println!(
        "drives within the WAF/throughput bar: {wa_ok} of {n}; within the P99 bar: {p99_ok} of {n}"
    );
    assert!(wa_ok as u64 == n && p99_ok as f64 >= 0.9 * n as f64);
}

/// Whether the write buffer absorbs rewrites moves the skewed WA more than any other key the
/// fit used to keep from its base (issue 52, docs/fit.md): a drive whose buffer absorbs every
/// rewrite it holds gets a twin that does, from the run's TwoZ and Zipf WA alone; the base's
/// staging buffer ("none") stays on the base's own drive.
#[test]
#[ignore = "slow, about 40 s: .ci/extra/slow-tests.sh runs it"]
fn the_twin_has_the_drives_rewrite_window() {
    use ssdiq_fit::profile_text::set;
    let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
    let small = set(base, "drive", "capacity", "\"1GiB\"", "test");
    for window in ["full", "none"] {
        let text = set(
            &small,
            "buffer",
            "rewrite_window",
            &format!("\"{window}\""),
            "test",
        );
        let obs = measure_hidden(&text, SEED, true).unwrap();
        let f = fit(&obs, &FitOptions::default(), &mut |_| {}).unwrap();
        let twin = ssdiq_emu::Profile::parse(&f.text, &[]).unwrap();
        assert_eq!(twin.buffer.rewrite_window, window, "{}", f.text);
    }
}

/// A DRAM-less drive's map write-backs nearly double its WA, which a twin with the map in DRAM
/// takes as less OP (issue 52's hidden drive 8): the run's map reads give the twin the drive's
/// map cache (the same number of cached map pages at the same size) and so its OP; a drive
/// with the whole map in DRAM gets none.
#[test]
#[ignore = "slow, about 64 s: .ci/extra/slow-tests.sh runs it"]
fn the_twin_has_the_drives_map_cache() {
    use ssdiq_fit::profile_text::set;
    let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
    let small = set(base, "drive", "capacity", "\"1GiB\"", "test");
    for kib in ["65536", "0"] {
        let text = set(&small, "map", "map_cache_kib", kib, "test");
        let obs = measure_hidden(&text, SEED, true).unwrap();
        let f = fit(&obs, &FitOptions::default(), &mut |_| {}).unwrap();
        let pages = |t: &str| {
            let p = ssdiq_emu::Profile::parse(t, &[]).unwrap();
            ssdiq_emu::map_cache_pages(&p, p.scale().unwrap())
        };
        assert_eq!(pages(&f.text), pages(&text), "{}", f.text);
        let op = |t: &str| ssdiq_emu::Profile::parse(t, &[]).unwrap().drive.op;
        assert!((op(&f.text) - op(&text)).abs() < 0.01, "{}", f.text);
    }
}

/// An SLC cache has no room on a full drive, so none of the protocol's steps after the init
/// shows it: the init on the fresh drive does (its folds in the init's WA, its speed in the
/// init's throughput where the flash bounds it). A drive with a cache gets its share and SLC
/// program time; one without gets none. Either way a prediction's range spans the cache.
#[test]
#[ignore = "slow, about 41 s: .ci/extra/slow-tests.sh runs it"]
fn the_twin_has_the_drives_slc_cache() {
    use ssdiq_fit::profile_text::set;
    let base = ssdiq_emu::profile::builtin("pm9a3").unwrap();
    let small = set(base, "drive", "capacity", "\"1GiB\"", "test");
    for (share, program) in [(0.1, 400.0), (0.0, 400.0)] {
        let text = set(&small, "slc", "slc_share", &share.to_string(), "test");
        let text = set(&text, "slc", "slc_program_us", &program.to_string(), "test");
        let obs = measure_hidden(&text, SEED, true).unwrap();
        let f = fit(&obs, &FitOptions::default(), &mut |_| {}).unwrap();
        let slc = ssdiq_emu::Profile::parse(&f.text, &[]).unwrap().slc;
        assert!((slc.slc_share - share).abs() < 0.005, "{}", f.text);
        // The init's folds bound the share from below only: the range spans the cache either
        // way (from the fitted share up where there is one).
        assert!(
            ssdiq_fit::range::unidentified(&f.text)
                .iter()
                .any(|k| k.name == "slc.slc_share"),
            "{}",
            f.text
        );
        if share > 0.0 {
            assert!(
                (slc.slc_program_us / program - 1.0).abs() < 0.1,
                "{}",
                f.text
            );
        }
    }
}

/// A drive that batches its GC victims (their pages in blocks of their own) shows it only in
/// its skewed WA (issue 52's wider round trip, seed 56, hidden drive 0): the WA stage tries
/// the other GC mode with its best policy, and the twin takes the drive's mode either way.
/// Runs in .ci/extra/slow-tests.sh (about 70 s).
#[test]
#[ignore = "slow, about 70 s: .ci/extra/slow-tests.sh runs it"]
fn the_twin_has_the_drives_gc_mode() {
    use ssdiq_fit::profile_text::{set, unset};
    let base = ssdiq_emu::profile::builtin("p5520").unwrap();
    let small = set(base, "drive", "capacity", "\"1GiB\"", "test");
    let small = set(&small, "drive", "gc_frontier", "false", "test");
    let small = unset(&small, "drive", "gc_frontier_share");
    let small = set(&small, "drive", "op", "0.37", "test");
    for mode in ["batched", "naive"] {
        let text = set(&small, "drive", "gc_mode", &format!("\"{mode}\""), "test");
        let obs = measure_hidden(&text, SEED, true).unwrap();
        let f = fit(&obs, &FitOptions::default(), &mut |_| {}).unwrap();
        let twin = ssdiq_emu::Profile::parse(&f.text, &[]).unwrap();
        assert_eq!(twin.drive.gc_mode, mode, "{}", f.text);
    }
}

/// Issue 52's bar, on hidden drives that differ from the library in every key of the
/// sensitivity table too (`roundtrip_wide`): at every prediction point the twin is within 10%
/// of the drive or the drive lies in the twin's range, on at least 19 of 20 drives; the median
/// range half-width under 15%. Not met yet (docs/fit.md): runs on request,
/// `bench/fit-roundtrip-wide.sh` (`SSDIQ_FIT_HIDDEN=N`, `SSDIQ_FIT_FIRST=K`, `SSDIQ_FIT_QUICK=1`:
/// each drive measured by a quick run; `SSDIQ_FIT_SEED=S`, default 52).
#[test]
#[ignore]
fn twins_of_wide_hidden_drives_hold_the_drive_or_their_range() {
    use ssdiq_fit::roundtrip_wide::round_trip_wide;
    let (n, first) = (var("SSDIQ_FIT_HIDDEN", 20), var("SSDIQ_FIT_FIRST", 0));
    let quick = var("SSDIQ_FIT_QUICK", 0) == 1;
    // Seed 52's drives have since been used to find what the fit lacked (docs/fit.md): the
    // bar is for a seed the fit was never tuned on.
    let seed = var("SSDIQ_FIT_SEED", 52);
    let (passed, median) = held(first..first + n, |i| {
        round_trip_wide(seed, i, 1 << 30, quick)
    });
    assert!(passed as f64 >= 0.95 * n as f64 && median < 0.15);
}

/// Issue 52's held-out check: drives of another generator (the library's consumer and SATA
/// profiles, with an SLC cache, a DRAM-less map or SATA timings, at a drawn OP and program
/// time; `roundtrip_wide::hidden_other`), the same rule as the wider round trip on at least 3
/// of 4. Runs on request, `bench/fit-roundtrip-wide.sh other`.
#[test]
#[ignore]
fn twins_of_another_generators_drives_hold_the_drive_or_their_range() {
    use ssdiq_fit::roundtrip_wide::round_trip_other;
    let quick = var("SSDIQ_FIT_QUICK", 0) == 1;
    let (n, first) = (var("SSDIQ_FIT_HIDDEN", 4), var("SSDIQ_FIT_FIRST", 0));
    let (passed, _) = held(first..first + n, |i| {
        round_trip_other(52, i, 1 << 30, quick)
    });
    assert!(passed as f64 >= 0.75 * n as f64);
}

fn var(k: &str, d: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

type Held = (
    ssdiq_fit::roundtrip::Hidden,
    ssdiq_fit::Fit,
    Vec<ssdiq_fit::roundtrip_wide::PointCheck>,
);

/// Runs each drive's round trip and prints per drive what the twin chose, the points that
/// pass and the misses; returns the drives whose every point passed and the median range
/// half-width over every point.
fn held(
    drives: std::ops::Range<u64>,
    round_trip: impl Fn(u64) -> Result<Held, ssdiq_fit::FitError>,
) -> (u32, f64) {
    let (mut passed, mut widths) = (0, Vec::new());
    let n = drives.end - drives.start;
    for i in drives {
        let (h, f, points) = match round_trip(i) {
            Ok(r) => r,
            Err(e) => {
                // A drive the fit cannot twin fails the bar; the others still run.
                println!("drive {i}: the round trip failed: {e}");
                continue;
            }
        };
        println!("drive {i}: {}", h.summary);
        // The drive's and its twin's profiles, to run them again by hand (`emu:FILE`).
        if let Ok(dir) = std::env::var("SSDIQ_FIT_DUMP") {
            let dir = std::path::Path::new(&dir);
            std::fs::create_dir_all(dir).expect("SSDIQ_FIT_DUMP is a writable directory");
            std::fs::write(dir.join(format!("drive{i}.toml")), &h.text).unwrap();
            std::fs::write(dir.join(format!("twin{i}.toml")), &f.text).unwrap();
            // Every point, so that runs of a seed split over processes give one median.
            let rows: String = points
                .iter()
                .map(|p| {
                    format!(
                        "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                        p.study,
                        p.x,
                        p.drive,
                        p.twin,
                        p.low,
                        p.high,
                        p.half_width()
                    )
                })
                .collect();
            std::fs::write(dir.join(format!("points{i}.tsv")), rows).unwrap();
        }
        // What the fit chose for the keys the misses have turned on so far.
        for line in f.text.lines().filter(|l| {
            [
                "policy =",
                "gc_frontier",
                "op =",
                "buffer_kib =",
                "rewrite_window =",
                "wear_level_gap =",
                "map_cache_kib =",
                "slc_share =",
                "slc_program_us =",
            ]
            .iter()
            .any(|k| l.starts_with(k))
        }) {
            println!("  twin: {line}");
        }
        let misses: Vec<String> = points
            .iter()
            .filter(|p| !p.passes())
            .map(|p| {
                format!(
                    "{} {}: drive {:.3}, twin {:.3} in {:.3}-{:.3}",
                    p.study, p.x, p.drive, p.twin, p.low, p.high
                )
            })
            .collect();
        let mut w: Vec<f64> = points.iter().map(|p| p.half_width()).collect();
        w.sort_by(f64::total_cmp);
        let median = w.get(w.len() / 2).copied().unwrap_or(f64::NAN);
        println!(
            "  {} of {} points pass; median range half-width {:.1}%",
            points.len() - misses.len(),
            points.len(),
            median * 100.0
        );
        for m in &misses {
            println!("  miss: {m}");
        }
        passed += misses.is_empty() as u32;
        widths.extend(w);
    }
    widths.sort_by(f64::total_cmp);
    let median = widths.get(widths.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "drives whose every point passes: {passed} of {n}; median range half-width {:.1}%",
        median * 100.0
    );
    (passed, median)
}

/// A drive whose GC unit is smaller than one program unit on every die of its nearest base
/// (half the base's channels and planes; the wider round trip drew such drives) gets a twin
/// with fewer dies and the drive's superblock, and the OP search never leaves the OPs a drive
/// can have (its secant went to OP 1% on such a drive).
#[test]
#[ignore = "slow, about 38 s: .ci/extra/slow-tests.sh runs it"]
fn a_gc_unit_below_the_bases_smallest_superblock_takes_fewer_dies() {
    use ssdiq_fit::profile_text::set;
    let small = set(
        ssdiq_emu::profile::builtin("i4i").unwrap(),
        "drive",
        "capacity",
        "\"1GiB\"",
        "test",
    );
    // Half the channels and planes: a 3 MiB unit. Twice the channels and half the planes: the
    // base's own 12 MiB, one unit per die at this scale (the floor), which a first version of
    // the larger-unit rule took for a unit beyond the base's largest.
    for (channels, planes) in [("4", "2"), ("16", "2")] {
        let mut text = small.clone();
        for (k, v) in [("channels", channels), ("planes", planes)] {
            text = set(&text, "nand", k, v, "test");
        }
        let obs = measure_hidden(&text, SEED, true).unwrap();
        let f = fit(&obs, &FitOptions::default(), &mut |_| {}).unwrap();
        let superblock = |t: &str| {
            let p = ssdiq_emu::Profile::parse(t, &[]).unwrap();
            ssdiq_emu::drive_geometry(&p).unwrap().pages_per_block
        };
        assert_eq!(superblock(&f.text), superblock(&text), "{}", f.text);
    }
}

/// A GC unit the base's dies make only with half their planes, on a drive whose QD1 writes
/// wait for the flash (seed 61's wider hidden drive 12: the base's 16 dies of 4 planes, the
/// drive's 16 of 2, programs of 3.3 ms) gets the drive's dies and planes, not half the dies
/// with the base's planes: with program time fitted to the random writes, only the drive's
/// split also meets its init throughput and QD1 write. (Where neither shows the flash, as on
/// the base with half its planes, both splits meet every figure and the fit keeps the first.)
#[test]
#[ignore = "slow, about 2 min: .ci/extra/slow-tests.sh runs it"]
fn a_gc_unit_of_fewer_planes_keeps_the_dies_where_the_writes_show_it() {
    twin_has_the_drives_split(61, 12, 0.15);
}

/// Seed 62's hidden drive 6 keeps 8 free superblocks before background GC and 4 before host
/// writes wait; its base keeps 3 and 2. The uniform WA does not tell the pair from OP (the base's
/// watermarks met it at OP 0.19 for the drive's 0.25), but the write latency under load does:
/// 94 us on average on the drive, 2841 us on that twin, whose GC blocked the host.
#[test]
#[ignore = "slow, about 9 min: .ci/extra/slow-tests.sh runs it"]
fn the_twin_has_the_drives_gc_watermarks() {
    let (h, f) = fitted_wide(62, 6);
    let (drive, twin) = profiles(&h, &f);
    assert_eq!(
        (twin.gc.low_watermark, twin.gc.critical_watermark),
        (drive.gc.low_watermark, drive.gc.critical_watermark),
        "{}",
        f.text
    );
    assert!(
        (twin.drive.op / drive.drive.op - 1.0).abs() < 0.03,
        "OP {} for the drive's {}",
        twin.drive.op,
        drive.drive.op
    );
}

/// A drive whose QD1 write waits for a program, with the base's program unit split the other
/// way (seed 62's hidden drive 2: 32 dies of 2 planes, programs of 3.3 ms; its base has 16 dies
/// of 4): with the base's split, program time fitted to the random writes was 2525 us and the
/// QD1 write 25% short. The twin takes the drive's split, and a program time near the drive's.
#[test]
#[ignore = "slow, about 4 min: .ci/extra/slow-tests.sh runs it"]
fn a_qd1_write_that_waits_for_a_program_tells_the_dies_from_the_program_time() {
    twin_has_the_drives_split(62, 2, 0.1);
}

/// Seed 63's hidden drive 3 has a 16 MiB buffer under its dies' 24 MiB stripe (128 dies of
/// 192 KiB units), so the buffer bounds the dies that program at once: its init runs at
/// 6530 MB/s, programming in 2555 us. A 32 MiB twin at 3086 us met its random-write rate and
/// write burst as well, and ran the init 26% fast. The twin has the drive's buffer, program
/// time within 5%, and the rewrite window the smaller buffer's skewed WA choose.
#[test]
#[ignore = "slow, about 8 min: bench/fit-roundtrip.sh figures runs it"]
fn a_buffer_below_the_dies_stripe_is_told_from_program_time_by_the_init() {
    let (h, f) = fitted_wide(63, 3);
    let (drive, twin) = profiles(&h, &f);
    assert_eq!(
        twin.buffer.buffer_kib, drive.buffer.buffer_kib,
        "{}",
        f.text
    );
    let miss = twin.nand.program_us / drive.nand.program_us - 1.0;
    assert!(miss.abs() < 0.05, "{}", f.text);
    assert_eq!(
        twin.buffer.rewrite_window, drive.buffer.rewrite_window,
        "{}",
        f.text
    );
}

/// Seed 63's hidden drive 12 has a 16 MiB buffer that absorbs rewrites over the whole buffer
/// ("full"); its write burst measures nothing (0.05 MiB), so the skewed WA choose the size.
/// At the base's window "scaled" they took 64 MiB, and "full" then scored worse than "scaled"
/// at that size: the twin's Zipf 1.2 WA in the round trip was 1.78 for the drive's 1.31. With
/// the window and the size scored together the twin has the drive's pair.
#[test]
#[ignore = "slow, about 25 min: bench/fit-roundtrip.sh figures runs it"]
fn a_buffer_sized_by_the_skewed_wa_is_fitted_with_its_rewrite_window() {
    let (h, f) = fitted_wide(63, 12);
    let (drive, twin) = profiles(&h, &f);
    assert_eq!(
        (twin.buffer.buffer_kib, &twin.buffer.rewrite_window),
        (drive.buffer.buffer_kib, &drive.buffer.rewrite_window),
        "{}",
        f.text
    );
}

/// Seed 64's hidden drive 17 is greedy with half of relocated data apart and a buffer that
/// absorbs every rewrite it holds ("full"). The WA stage chose cost-benefit with all apart at the
/// base's window "scaled", and no window under the families with relocated data in the host's
/// log scored better: the twin's two-zone WA in the run was 12.7% under the drive's, its
/// heavy pass 29% over. Scored under the families with relocated data apart too, the twin has
/// the drive's window, and its skewed WA meet the run's.
#[test]
#[ignore = "slow, about 13 min: bench/fit-roundtrip.sh figures runs it"]
fn a_window_the_skews_miss_under_every_host_log_family_is_scored_under_data_apart() {
    let (h, f) = fitted_wide(64, 17);
    let (drive, twin) = profiles(&h, &f);
    assert_eq!(
        twin.buffer.rewrite_window, drive.buffer.rewrite_window,
        "{}",
        f.text
    );
    let (d, t) = drive_and_twin(&f, "waf_measured.twozone");
    assert!(
        (t / d - 1.0).abs() < 0.05,
        "two-zone WA {t} for the drive's {d}\n{}",
        f.text
    );
}

/// Seed 65's hidden drive 1 is greedy with all relocated data apart, a buffer that absorbs
/// every rewrite, and GC watermarks 8/4. At the base's 3/2, which the run leaves open,
/// cost-benefit scored best on the skewed WA and was marked fitted, and no range held the
/// drive's two-zone WA (80/20: 2.99 against the twin's 2.62 in 2.56-2.98). Greedy at 8/4
/// scores within a factor two of it: either the twin has the drive's policy, or the policy is the
/// fit's guess and the range spans the other families.
#[test]
#[ignore = "slow, about 6 min: bench/fit-roundtrip.sh figures runs it"]
fn a_policy_the_skews_tell_apart_only_at_the_bases_watermarks_is_left_to_the_range() {
    let (h, f) = fitted_wide(65, 1);
    let (drive, twin) = profiles(&h, &f);
    let open: Vec<&str> = ssdiq_fit::range::unidentified(&f.text)
        .iter()
        .map(|k| k.name)
        .collect();
    assert!(
        twin.drive.policy == drive.drive.policy || open.contains(&"drive.policy"),
        "{open:?}\n{}",
        f.text
    );
}

/// Seed 67's hidden drive 0 is greedy with no rewrite window. At the base's program time
/// cost-benefit with the window "full" met the skewed WA best; at the program time fitted
/// later (8665 us) that twin's Zipf WA was 3.23 for the drive's 4.03, and every skewed point of
/// its round trip missed. With the windows scored again at the fitted program time, the twin
/// has the drive's window and policy, and meets the run's skewed WA.
#[test]
#[ignore = "slow, about 10 min: bench/fit-roundtrip.sh figures runs it"]
fn windows_scored_at_the_base_program_time_are_scored_again_at_the_fitted_one() {
    let (h, f) = fitted_wide(67, 0);
    let (drive, twin) = profiles(&h, &f);
    assert_eq!(
        (&twin.buffer.rewrite_window, &twin.drive.policy),
        (&drive.buffer.rewrite_window, &drive.drive.policy),
        "{}",
        f.text
    );
    for key in ["waf_measured.zipf", "waf_measured.zipf_heavy"] {
        let (d, t) = drive_and_twin(&f, key);
        assert!(
            (t / d - 1.0).abs() < 0.05,
            "{key}: {t} for the drive's {d}\n{}",
            f.text
        );
    }
}

/// Seed 66's hidden drive 2 reads 6973 MB/s through its link over 4 channels at 3600 MB/s;
/// its twin has 2 channels (the GC unit's split), which at the base's 2400 MB/s carried 4802,
/// and its link ran to the read stage's cap. The twin's channels now carry the read, its
/// link meets it, and the channels' rate is a lower bound the range spans from.
#[test]
#[ignore = "slow, about 6 min: bench/fit-roundtrip.sh figures runs it"]
fn channels_slower_than_the_sequential_read_are_raised_to_carry_it() {
    let (h, f) = fitted_wide(66, 2);
    let (drive, twin) = profiles(&h, &f);
    let (d, t) = drive_and_twin(&f, ssdiq_schema::figures::SEQ_READ_MB_S);
    assert!(
        (t / d - 1.0).abs() < 0.02,
        "sequential read {t} for the drive's {d}"
    );
    assert!(
        twin.host.link_mb_s < 1.1 * drive.host.link_mb_s,
        "link {} for the drive's {}\n{}",
        twin.host.link_mb_s,
        drive.host.link_mb_s,
        f.text
    );
    // The comment tells the range the value is a lower bound.
    let line = f.text.lines().find(|l| l.starts_with("channel_mb_s ="));
    assert!(
        line.is_some_and(|l| l.contains(ssdiq_fit::sensitivity::LOWER_BOUND)),
        "{line:?}"
    );
}

/// Seed 62's hidden drive 11 blocks its writes under load (average 44.6 us, P99.9 1448 us) only
/// through three keys together: greedy GC with victims batched, watermarks 2/1 and a 16 MiB
/// buffer. The skewed WA tie the GC modes, and the write burst, mostly drain, gave 64 MiB with
/// the base's naive GC (22.3 us under load, no pair of watermarks alone moved it). The twin
/// blocks as the drive does.
#[test]
#[ignore = "slow, about 12 min: bench/fit-roundtrip.sh figures runs it"]
fn a_twin_blocks_under_load_where_the_gc_mode_watermarks_and_buffer_together_do() {
    let (_, f) = fitted_wide(62, 11);
    for key in [
        ssdiq_schema::figures::WRITE_LAT_LOAD_AVG_US,
        ssdiq_schema::figures::WRITE_LAT_LOAD_P999_US,
    ] {
        let (d, t) = drive_and_twin(&f, key);
        assert!(
            (t / d - 1.0).abs() < 0.25,
            "{key}: {t} for the drive's {d}\n{}",
            f.text
        );
    }
}

/// The drive's figure `key` and its twin's, as the fit measured the twin once more.
fn drive_and_twin(f: &ssdiq_fit::Fit, key: &str) -> (f64, f64) {
    f.measured
        .iter()
        .find(|r| r.key == key)
        .and_then(|r| Some((r.drive, r.twin?)))
        .unwrap_or_else(|| panic!("no {key} in {:?}", f.measured))
}

/// Hidden drive `k` of the wider round trip's `seed` at 1 GiB, and its twin fitted from its run.
fn fitted_wide(seed: u64, k: u64) -> (ssdiq_fit::roundtrip::Hidden, ssdiq_fit::Fit) {
    let h = ssdiq_fit::roundtrip_wide::hidden_wide(seed, k, 1 << 30);
    let obs = measure_hidden(&h.text, seed, false).unwrap();
    let f = fit(&obs, &FitOptions::default(), &mut |_| {}).unwrap();
    (h, f)
}

/// The hidden drive's profile and its twin's.
fn profiles(
    h: &ssdiq_fit::roundtrip::Hidden,
    f: &ssdiq_fit::Fit,
) -> (ssdiq_emu::Profile, ssdiq_emu::Profile) {
    (
        ssdiq_emu::Profile::parse(&h.text, &[]).unwrap(),
        ssdiq_emu::Profile::parse(&f.text, &[]).unwrap(),
    )
}

/// The twin of the wider round trip's hidden drive `k` of `seed` has the drive's dies and
/// planes, and a program time within `within` of the drive's.
fn twin_has_the_drives_split(seed: u64, k: u64, within: f64) {
    let (h, f) = fitted_wide(seed, k);
    let (drive, twin) = profiles(&h, &f);
    let (drive, twin) = (drive.nand, twin.nand);
    assert_eq!(
        (twin.channels * twin.dies_per_channel, twin.planes),
        (drive.channels * drive.dies_per_channel, drive.planes),
        "{}",
        f.text
    );
    let miss = twin.program_us / drive.program_us - 1.0;
    assert!(
        miss.abs() < within,
        "program {} for the drive's {}",
        twin.program_us,
        drive.program_us
    );
}
