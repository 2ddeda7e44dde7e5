#!/usr/bin/env bash
# What `ssdiq run` costs on the emulated SSD: whole-run wall and CPU time of the quick and the
# full default run (budgets: quick <= 30 s, full <= 5 min on a shared 2-core machine), and the
# wall time of every phase summed by step over the passes (the phase lines ssdiq prints on
# stderr).
#
# With --reference it also runs the reference durations (`--time-scale 1`: every step as long
# as in the SSD-iq scripts) and prints each figure of Tables 2 and 3 beside the default run's,
# the measurement behind docs/protocol.md's scaled durations on emulated drives.
#
# Usage: bench/run-time.sh [--reference] [TARGET]      (TARGET default emu:default)
set -euo pipefail
cd "$(dirname "$0")/.."
reference=0
if [ "${1:-}" = --reference ]; then
    reference=1
    shift
fi
target=${1:-emu:default}
cargo build --release -q -p ssdiq
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A copy: rebuilding while the (long) reference run goes on must not change the binary.
cp ./target/release/ssdiq "$out/ssdiq"
bin=$out/ssdiq

# run NAME ARGS...: one timed run; stderr kept for the phase lines.
run() {
    local name=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" \
        "$bin" run "$target" --recreate --out "$out/$name" "$@" >/dev/null 2>"$out/$name.err"
    read -r wall user sys rss <"$out/$name.time"
    awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
        printf "%-10s wall %7.1f s   user+sys %7.1f s   peak RSS %6.0f MiB\n", n, w, u + s, r / 1024 }'
}

# phases NAME: wall seconds per step summed over passes and stages.
phases() {
    python3 - "$out/$1.err" <<'EOF'
import re, sys, collections
tot = collections.OrderedDict()
for line in open(sys.argv[1]):
    m = re.match(r"\[\d+/\d+\] rep \d+ pass \d/\d \(\w+\): (.+?)(?: \((?:before|after)\))? done \(([\d.]+) s wall\)", line)
    if m:
        tot[m.group(1)] = tot.get(m.group(1), 0.0) + float(m.group(2))
for k, v in tot.items():
    print(f"    {k:<22} {v:8.2f} s")
EOF
}

echo "== $target"
run quick --quick
run full
echo "-- full run, wall seconds per step (all passes):"
phases full

if [ $reference = 1 ]; then
    run reference --time-scale 1
    echo "-- reference durations, wall seconds per step (all passes):"
    phases reference
    echo "-- figures: default (scaled) vs reference durations (median [min-max] of the samples)"
    python3 - "$out/full/run.json" "$out/reference/run.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def fmt(f):
    return f"{f['median']:.2f} [{f['min']:.2f}-{f['max']:.2f}]" if f else "-"
print(f"    {'figure':<28} {'scaled':>26} {'reference':>26} {'ratio':>7}")
for k in sorted(set(a['figures']) | set(b['figures'])):
    fa, fb = a['figures'].get(k), b['figures'].get(k)
    r = f"{fa['median'] / fb['median']:.3f}" if fa and fb and fb['median'] else "-"
    print(f"    {k:<28} {fmt(fa):>26} {fmt(fb):>26} {r:>7}")
print("    time scales:", {k: a['run'][k] for k in ('time_scale', 'idle_time_scale', 'load_time_scale')},
      "vs", {k: b['run'][k] for k in ('time_scale', 'idle_time_scale', 'load_time_scale')})
EOF
fi
