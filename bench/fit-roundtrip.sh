#!/usr/bin/env bash
# Issue 34's round trip: N hidden emulated drives (seeded random OP, GC policy, buffer,
# timings, suspension, write stalls on a library profile, 1 GiB), each measured once with the
# whole SSD-iq protocol; a twin is fitted from that run alone, and both run workloads the
# protocol does not include (twozone 95/5, zipf 1.2, readonly:0.5, write load at 50/75/90% of
# the drive's uniform random-write rate). Prints hidden / twin per figure and the bar's count.
# Usage: bench/fit-roundtrip.sh [N]   (default 10; 1-3 min per drive, virtual time;
# SSDIQ_FIT_FIRST=K starts at hidden drive K, so two halves can run side by side;
# SSDIQ_FIT_STUDY=1 / SSDIQ_FIT_SKEW=1 give each fit the hidden drive's latency-load / skew study)
set -euo pipefail
cd "$(dirname "$0")/.."
SSDIQ_FIT_HIDDEN=${1:-10} cargo test --release -q -p ssdiq-fit --test roundtrip -- --ignored --nocapture twins_of_hidden_drives_predict_unseen_workloads
