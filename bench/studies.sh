#!/usr/bin/env bash
# Runs every study full length on the emulated drives of docs/studies.md and prints each
# study's findings and wall time (the figures of docs/studies.md).
# Usage: bench/studies.sh [OUT_DIR] [TARGET...]   (default: emu:default emu:p5520 emu:7450max)
# STUDIES="locality random-fill ..." runs only those (default: every study).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/studies}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(emu:default emu:p5520 emu:7450max)
cargo build --release --quiet
bin=target/release/ssdiq
studies=${STUDIES:-$("$bin" study list | awk '/^[a-z]/ {print $1}')}
for t in "${targets[@]}"; do
    for s in $studies; do
        # The emulated SSD has no Linux I/O scheduler and no NVMe controller.
        case "$s" in io-scheduler|controller-reset) [ "${t#emu:}" != "$t" ] && continue ;; esac
        # PTS test periods of 5 s instead of the spec's 60 s: the emulated drives are scaled.
        extra=()
        case "$s" in pts-*) extra=(--pts-cell "${PTS_CELL:-5s}") ;; esac
        # Loads past the datasheet's rate, to find each drive's knee.
        case "$s" in latency-load) extra=(--max-load "${MAX_LOAD:-150%}") ;; esac
        dir="$out/${t//[:,=]/_}/$s"
        echo "== $s on $t"
        "$bin" study "$s" "$t" "${extra[@]}" --recreate --out "$dir" 2>/dev/null
    done
done
