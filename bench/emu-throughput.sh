#!/usr/bin/env bash
# Emulated 4 KiB I/Os per wall-clock second at QD 32 uniform random writes in GC steady state
# (issue 6 target: >= 1 M/s on one core), two ways:
#  1. the emu_spec example: measures the profile's datasheet figures, then times one drive
#     write of steady-state random writes, and the plain FTL write loop (what `ssdiq sim`
#     runs) on the same geometry in the same process: the ratio is the emulator's overhead.
#  2. the CLI: `ssdiq io emu:PROFILE --fill seq --rw randwrite --qd 32 --time T` for two
#     virtual lengths; the difference in wall time and I/Os is the steady-state rate.
#   bench/emu-throughput.sh [TARGET=emu:default] [T1=150s] [T2=300s]
# The machine should be otherwise idle: the figure is wall-clock.
set -euo pipefail
target=${1:-emu:default}
t1=${2:-150s}
t2=${3:-300s}
cd "$(dirname "$0")/.."
cargo build --release -q -p ssdiq -p ssdiq-emu --example emu_spec
target/release/examples/emu_spec "$target"
bin=target/release/ssdiq
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "$t1" "$t2"; do
    s=$(date +%s.%N)
    "$bin" io "$target" --fill seq --rw randwrite --qd 32 --time "$t" --json "$tmp/$t.json" > /dev/null
    e=$(date +%s.%N)
    echo "$s $e" > "$tmp/$t.wall"
done
python3 - "$tmp" "$t1" "$t2" <<'PY'
import json, sys
d, t1, t2 = sys.argv[1:]
def load(t):
    r = json.load(open(f"{d}/{t}.json"))
    s, e = map(float, open(f"{d}/{t}.wall").read().split())
    return r["ops"]["write"]["ios"], e - s, r
n1, w1, _ = load(t1)
n2, w2, r = load(t2)
print(f"CLI: {n2 - n1} steady-state I/Os in {w2 - w1:.2f} wall s = {(n2 - n1) / (w2 - w1) / 1e6:.2f} M emulated I/Os/s "
      f"({r['ops']['write']['iops']/1e3:.1f} kIOPS virtual, WAF {r['device']['waf']:.3f} over {t2})")
PY
