#!/usr/bin/env bash
# What FEMU's SSD WAF would be for the page store's write stream if FEMU's write pointer started
# N pages into a line, as it does when a row runs after other writes (docs/femu.md, "The page
# store on FEMU"). Runs `ssdiq store` on a loop device over tmpfs under strace (its writes are
# synchronous, one thread, so the trace is the order FEMU receives them), then replays the
# writes and discards through FEMU's GC rules (bench/femu/line_replay.py) at each offset.
# The geometry is FEMU's from the same variables as bench/femu/run-guest.sh.
# Prints "offset_pages waf_whole_stream waf_measured_window" per offset.
# Usage: sudo bench/femu/line-replay.sh   (STORE_ROWS=aligned, STORE_ARGS="", OFFSETS="0 64
#        128 256 384"; FEMU_MB=256, FEMU_OP=0.25, FEMU_CH, FEMU_LUNS, FEMU_PGS_PER_BLK,
#        FEMU_GC_PCT, FEMU_GC_PCT_HIGH as run-guest.sh defaults them)
set -euo pipefail
cd "$(dirname "$0")/../.."
mb=${FEMU_MB:-256} op=${FEMU_OP:-0.25}
pgs=${FEMU_PGS_PER_BLK:-64} ch=${FEMU_CH:-2} luns=${FEMU_LUNS:-4}
gc=${FEMU_GC_PCT:-90} gch=${FEMU_GC_PCT_HIGH:-95}
read -r lines line_pages low high < <(python3 -c "
import math
lines = math.ceil($mb * (1 + $op) * 256 / ($pgs * $ch * $luns))
print(lines, $pgs * $ch * $luns, int((1 - $gc / 100) * lines), int((1 - $gch / 100) * lines))")
for tool in strace losetup; do
    command -v "$tool" > /dev/null || { echo "line-replay: needs $tool" >&2; exit 1; }
done
cargo build --release -q -p ssdiq
work=$(mktemp -d /dev/shm/line-replay.XXXXXX)
dev=""
trap '[ -n "$dev" ] && losetup -d "$dev"; rm -rf "$work"' EXIT
truncate -s "${mb}M" "$work/dev.img"
dev=$(losetup -f --show "$work/dev.img")
# shellcheck disable=SC2086
strace -f -e trace=pwrite64,ioctl -o "$work/trace" target/release/ssdiq store "$dev" \
    --rows "${STORE_ROWS:-aligned}" --align-gc-unit "$((line_pages * 4))KiB" ${STORE_ARGS:-} \
    --allow-destroy "$dev" --quiet > "$work/store.txt"
grep -a '^aligned\|^nowa\|^row\|^reset' "$work/store.txt" >&2 || true
echo "# FEMU: $lines lines of $line_pages pages, GC at $low / $high free lines" >&2
for off in ${OFFSETS:-0 64 128 256 384}; do
    echo "$off $(python3 bench/femu/line_replay.py "$work/trace" --lines "$lines" \
        --line-pages "$line_pages" --logical-pages "$((mb * 256))" --low "$low" --high "$high" \
        --offset "$off")"
done
