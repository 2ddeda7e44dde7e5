#!/usr/bin/env bash
# FEMU's steady uniform WAF measured by ssdiq beside the greedy model for its geometry, at each
# OP in OPS: the black-box SSD (bench/femu/run-guest.sh, its FEMU_* variables) filled, then
# written uniformly at random in rounds of one drive write, WAF from its counters (our OCP-log
# patch); the model is `ssdiq sim` (greedy, relocated pages in the host's log, as FEMU's GC
# writes them at the host's write pointer) over the space FEMU's GC leaves to data, in blocks
# of one line: its lines less the free lines its background GC keeps (gc_thres_pcent) and less
# the write pointer's line. FEMU's GC runs when the free lines, which leave out the write
# pointer's, fall to the threshold: that is when a line fills and the next is taken, so at each
# GC the threshold's lines are free and one is nearly empty. The sim's GC runs when its last
# block is full and copies into a reserve beyond its capacity, so its capacity is FEMU's lines
# less both.
# Prints one line per OP: "OP X: uniform WAF measured M model A (diff D%)", the measured one the
# last round's.
# Usage: FEMU_SRC=femu-<commit>.tar.xz sudo bench/femu/waf.sh   (OPS="0.25 0.5", FEMU_MB=256)
set -euo pipefail
cd "$(dirname "$0")/../.."
export FEMU_MB=${FEMU_MB:-256}
OPS=${OPS:-0.25 0.5}
cargo build --release -q -p ssdiq
for op in $OPS; do
    log=$(mktemp)
    FEMU_OP=$op bash bench/femu/run-guest.sh bench/femu/guest/waf-steady.sh > "$log" 2>&1 || {
        tail -20 "$log" >&2
        echo "femu waf: the guest failed at OP $op" >&2
        exit 1
    }
    grep -a '^round ' "$log" >&2
    measured=$(grep -a '^round ' "$log" | tail -1 | awk '{ print $4 }')
    # The geometry as run-guest.sh sets it.
    read -r lines line_bytes < <(python3 -c "
import math, os
mb, op = float(os.environ['FEMU_MB']), float('$op')
pgs, ch, luns = (int(os.environ.get(k, d)) for k, d in (('FEMU_PGS_PER_BLK', 64), ('FEMU_CH', 2), ('FEMU_LUNS', 4)))
print(math.ceil(mb * (1 + op) * 256 / (pgs * ch * luns)), pgs * 4096 * ch * luns)")
    gc=${FEMU_GC_PCT:-90}
    keep=$(python3 -c "print(int((1 - $gc / 100) * $lines))")
    data_lines=$((lines - keep - 1))
    fill=$(python3 -c "print($FEMU_MB * 2**20 / ($data_lines * $line_bytes))")
    model=$(target/release/ssdiq sim --capacity "$((data_lines * line_bytes))B" --block "${line_bytes}B" \
        --page 4KiB --fill "$fill" --gc greedy --warmup physical --writes 10x --json "$log.json" > /dev/null \
        && python3 -c "import json; d = json.load(open('$log.json')); print(d['runs'][0]['waf'])")
    python3 -c "
m, a = float('$measured'), float('$model')
print(f'OP $op ($lines lines of {$line_bytes / 2**20:.0f} MiB, {$keep} kept free by GC, 1 open): uniform WAF measured {m:.3f} model {a:.3f} (diff {100 * (m - a) / a:+.1f}%)')"
    rm -f "$log" "$log.json"
done
