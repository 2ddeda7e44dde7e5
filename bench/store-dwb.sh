#!/usr/bin/env bash
# The in-place store's double-write copies: the SSD WAF when the drive absorbs them (rewrite
# window = the whole buffer), when it programs them (the PM9A3 profile's own buffer), without them
# (--no-dwb), and the FTL alone on a trace of the same writes (docs/emulator.md, "Where 2.36
# sits"). Virtual time and a seeded trace: the figures do not depend on the machine.
#   bench/store-dwb.sh [BIN=target/release/ssdiq] [OUT=target/store-dwb]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/ssdiq}
out=${2:-target/store-dwb}
[ "$bin" = target/release/ssdiq ] && cargo build --release -q -p ssdiq
mkdir -p "$out"
row() { awk '$1 == "in-place" || $1 == "custom" {print "  SSD WAF " $5 ", " $3 " kops/s"; exit}'; }
for w in full none; do
    echo "== in place, double-write copies $([ $w = full ] && echo absorbed || echo programmed) (rewrite_window=$w)"
    "$bin" store "emu:pm9a3,capacity=2GiB,rewrite_window=$w" --rows in-place --data model 2> /dev/null | row
done
echo "== in place without the double-write buffer"
"$bin" store emu:pm9a3,capacity=2GiB --in-place --no-dwb --data model 2> /dev/null | row
echo "== the FTL alone (sim, greedy, no buffer) on a trace: fill 90%, then batches of 64 sorted random"
echo "   page writes, each after a 256 KiB write of one double-write area (5 passes over the data)"
python3 - "$out/dwb.csv" <<'PY'
import random, sys
pages = int(2 * 2**30 * 0.9 / 4096)
t = 0
with open(sys.argv[1], "w") as f:
    def w(off, size):
        global t
        t += 10
        f.write(f"{t},h,0,Write,{off},{size},0\n")
    for p in range(0, pages, 64):
        w(p * 4096, min(64, pages - p) * 4096)
    rng = random.Random(1)
    for _ in range(5 * pages // 64):
        w(pages * 4096, 64 * 4096)
        for p in sorted(rng.randrange(pages) for _ in range(64)):
            w(p * 4096, 4096)
PY
"$bin" sim --trace "$out/dwb.csv" --capacity 2349MiB --op 0.147 --block 3MiB --gc greedy \
    --trace-map direct --warmup 0 --quiet 2> /dev/null | awk '$2 == "greedy" {print "  WAF " $9 " (final half of the writes)"}'
