#!/usr/bin/env bash
# The tests too slow for the README's test command (each marked #[ignore] with its time):
# the end-to-end runs on files and loop devices, the reliability table against
# docs/reliability.md, the stop-flag class over every pair of profile, override and command,
# the drive library's verdicts and curves, every value of every flag under Ctrl-C, the page
# store's rows and its calibrated model, the engine's series past 20,000 intervals, a fit end
# to end through the CLI and against a latency-load study, the fit's stages on hidden drives
# (rewrite window, map cache, SLC cache, GC mode, GC watermarks, the dies' split), its round trip on two
# (bench/fit-roundtrip.sh figures adds a third, of 10 min, a GC fitted jointly, of 12, a buffer
# below the dies' stripe, of 8, a buffer fitted with its rewrite window, of 25, a window told under relocated data apart, of 13,
# a policy left open at the GC watermarks the run leaves open, of 6, windows scored again at the
# fitted program time, of 10, and channels raised to carry the sequential read, of 6), a store
# replay in every layout, and
# two of the simulator's policy oracles.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test --release -p ssdiq --test cli -- --ignored
cargo test --release -p ssdiq-store --test modes -- --ignored
cargo test --release -p ssdiq-engine --lib -- --ignored
cargo test --release -p ssdiq-flash --test flash -- --ignored
# The fit's: named one by one (the file's other ignored tests are the wider round trips of
# bench/fit-roundtrip-wide.sh, an hour or more), run together on both cores.
cargo test --release -p ssdiq-fit --test roundtrip -- --ignored --exact \
    twins_reproduce_the_figures_they_were_fitted_to the_twin_has_the_drives_gc_mode \
    the_twin_has_the_drives_rewrite_window the_twin_has_the_drives_map_cache \
    the_twin_has_the_drives_slc_cache a_gc_unit_below_the_bases_smallest_superblock_takes_fewer_dies \
    a_gc_unit_of_fewer_planes_keeps_the_dies_where_the_writes_show_it \
    the_twin_has_the_drives_gc_watermarks \
    a_qd1_write_that_waits_for_a_program_tells_the_dies_from_the_program_time
