#!/usr/bin/env bash
# `ssdiq study latency-load` on each drive-library profile (SSD-iq Figure 8), then a table of
# each curve beside the shape the paper describes for the drive's class (issue 31): write avg
# and P99 at 10, 25 and 50% of the datasheet's random-write rate, write P99.999 at 10%, read
# P99 at 25 and 75%. Virtual time: the figures do not depend on the machine.
# Usage: bench/latency-load-drives.sh [OUT_DIR]   (JOBS=N runs N profiles at once)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
. bench/drive-library.sh
for_each_profile "$out" \
  '"$bin" study latency-load "emu:{}" --quiet --recreate --out "$out/{}" > /dev/null'
python3 bench/latency-load-table.py "$out" "${profiles[@]}"
