#!/usr/bin/env bash
# Issue 53's page store on FEMU: `ssdiq store --rows table1` (How to Write to SSDs, Table 1:
# in place, out of place, compression, GDT, NoWA, NoWA aligned to the GC unit, aligned without
# compression) on FEMU's black-box SSD, an FTL ssdiq did not write, with zones aligned to its
# 2 MiB line where a row aligns them. Prints the store's table (SSD WAF from the counters of
# our OCP-log patch) and keeps its JSON in OUT (default target/femu-store).
# Usage: FEMU_SRC=femu-<commit>.tar.xz sudo bench/femu/store.sh [OUT]
#        (FEMU_MB=256, STORE_ROWS=table1, STORE_ARGS="", TIMEOUT=7200)
set -euo pipefail
cd "$(dirname "$0")/../.."
export FEMU_MB=${FEMU_MB:-256}
export STORE_ROWS=${STORE_ROWS:-table1} STORE_ARGS=${STORE_ARGS:-}
out=${1:-target/femu-store}
mkdir -p "$out"
log=$out/guest.log
if ! FEMU_GUEST_VARS="STORE_ROWS STORE_ARGS" TIMEOUT="${TIMEOUT:-7200}" \
    bash bench/femu/run-guest.sh bench/femu/guest/store.sh > "$log" 2>&1; then
    tail -20 "$log" >&2
    echo "femu store: the guest failed (its log: $log)" >&2
    exit 1
fi
python3 bench/femu/take-files.py "$log" "$out"
sed -n '/^ssdiq store on/,/^BEGIN-FILE/p' "$log" | grep -av '^BEGIN-FILE' || true
echo "femu store: $out/store.json" >&2
