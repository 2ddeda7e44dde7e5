#!/usr/bin/env bash
# Issue 52's wider round trip: hidden 1 GiB drives that differ from the library in every key of
# the sensitivity table too (crates/fit/src/roundtrip_wide.rs), each measured by `ssdiq run`,
# fitted from that run alone, and every prediction point of the drive beside the twin's value
# and range. Prints per drive the points that pass (twin within 10%, or the drive in the range),
# the misses, and the median range half-width.
# Usage: bench/fit-roundtrip-wide.sh [N=20]   (SSDIQ_FIT_FIRST=K starts at drive K;
# SSDIQ_FIT_QUICK=1 measures each drive with a quick run; SSDIQ_FIT_SEED=S draws the drives of
# seed S, default 52, whose drives have since been used to improve the fit)
#        bench/fit-roundtrip-wide.sh other    (the 4 held-out drives of another generator: the
# library's consumer and SATA profiles at a drawn OP and program time; SSDIQ_FIT_FIRST=K and
# SSDIQ_FIT_HIDDEN=N pick drives K..K+N of the four)
# SSDIQ_FIT_DUMP=DIR writes each drive's profile and its twin's (driveK.toml, twinK.toml), and its
# points (pointsK.tsv: study, x, drive, twin, low, high, half-width) to take one median over
# runs that split a seed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = other ]; then
    exec cargo test --release -q -p ssdiq-fit --test roundtrip -- --ignored --nocapture twins_of_another_generators_drives_hold_the_drive_or_their_range
fi
case "${1:-20}" in
    ''|*[!0-9]*) echo "bench/fit-roundtrip-wide.sh: invalid N \"$1\": expected a whole number of drives, or \"other\"" >&2; exit 2 ;;
esac
SSDIQ_FIT_HIDDEN=${1:-${SSDIQ_FIT_HIDDEN:-20}} cargo test --release -q -p ssdiq-fit --test roundtrip -- --ignored --nocapture twins_of_wide_hidden_drives_hold_the_drive_or_their_range
