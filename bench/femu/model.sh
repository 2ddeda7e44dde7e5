#!/usr/bin/env bash
# The greedy model of FEMU's steady uniform WAF at OP (bench/femu/waf.sh explains it): `ssdiq
# sim` (greedy, relocated pages in the host's log, as FEMU's GC writes them at the host's write
# pointer) over the space FEMU's GC leaves to data, in blocks of one line: its lines less the
# free lines its background GC keeps (gc_thres_pcent) and less the write pointer's line. FEMU's
# GC runs when the free lines, which leave out the write pointer's, fall to the threshold: that
# is when a line fills and the next is taken, so at each GC the threshold's lines are free and
# one is nearly empty. The sim's GC runs when its last block is full and copies into a reserve
# beyond its capacity, so its capacity is FEMU's lines less both.
# Prints "WAF LINES KEPT LINE_BYTES". The geometry comes from FEMU_MB, FEMU_PGS_PER_BLK,
# FEMU_CH, FEMU_LUNS and FEMU_GC_PCT as bench/femu/run-guest.sh reads them.
# Usage: bench/femu/model.sh OP   (after `cargo build --release -p ssdiq`)
set -euo pipefail
cd "$(dirname "$0")/../.."
op=${1:?usage: bench/femu/model.sh OP}
read -r lines line_bytes < <(python3 -c "
import math, os
mb, op = float(os.environ.get('FEMU_MB', 1024)), float('$op')
pgs, ch, luns = (int(os.environ.get(k, d)) for k, d in (('FEMU_PGS_PER_BLK', 64), ('FEMU_CH', 2), ('FEMU_LUNS', 4)))
print(math.ceil(mb * (1 + op) * 256 / (pgs * ch * luns)), pgs * 4096 * ch * luns)")
gc=${FEMU_GC_PCT:-90}
# FEMU's own arithmetic: (int)((1 - pcent / 100.0) * lines).
keep=$(python3 -c "print(int((1 - $gc / 100) * $lines))")
data_lines=$((lines - keep - 1))
fill=$(python3 -c "import os; print(float(os.environ.get('FEMU_MB', 1024)) * 2**20 / ($data_lines * $line_bytes))")
json=$(mktemp)
trap 'rm -f "$json" "$json.err"' EXIT
target/release/ssdiq sim --capacity "$((data_lines * line_bytes))B" --block "${line_bytes}B" \
    --page 4KiB --fill "$fill" --gc greedy --warmup physical --writes 10x --json "$json" \
    > /dev/null 2> "$json.err" || { cat "$json.err" >&2; exit 1; }
waf=$(python3 -c "import json; print(json.load(open('$json'))['runs'][0]['waf'])")
echo "$waf $lines $keep $line_bytes"
