#!/usr/bin/env bash
# Issue 52's wider round trip: hidden 1 GiB drives that differ from the library in every key of
# the sensitivity table too (crates/fit/src/roundtrip_wide.rs), each measured by `ssdiq run`,
# fitted from that run alone, and every prediction point of the drive beside the twin's value
# and range. Prints per drive the points that pass (twin within 10%, or the drive in the range),
# the misses, and the median range half-width.
# Usage: bench/fit-roundtrip-wide.sh [N=20]   (SSDIQ_FIT_FIRST=K starts at drive K;
# SSDIQ_FIT_QUICK=1 measures each drive with a quick run)
set -euo pipefail
cd "$(dirname "$0")/.."
SSDIQ_FIT_HIDDEN=${1:-${SSDIQ_FIT_HIDDEN:-20}} cargo test --release -q -p ssdiq-fit --test roundtrip -- --ignored --nocapture twins_of_wide_hidden_drives_hold_the_drive_or_their_range
