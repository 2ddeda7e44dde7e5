#!/usr/bin/env bash
# FEMU's steady uniform WAF measured by ssdiq beside the greedy model for its geometry, at each
# OP in OPS: the black-box SSD (bench/femu/run-guest.sh, its FEMU_* variables) filled, then
# written uniformly at random in rounds of one drive write (each round its own seed), WAF from
# its counters (our OCP-log patch); the model is bench/femu/model.sh's.
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
    rm -f "$log"
    read -r model lines keep line_bytes < <(bash bench/femu/model.sh "$op")
    python3 -c "
m, a = float('$measured'), float('$model')
print(f'OP $op ($lines lines of {$line_bytes / 2**20:.0f} MiB, $keep kept free by GC, 1 open): uniform WAF measured {m:.3f} model {a:.3f} (diff {100 * (m - a) / a:+.1f}%)')"
done
