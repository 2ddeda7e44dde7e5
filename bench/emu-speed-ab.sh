#!/usr/bin/env bash
# Emulated I/Os per wall-clock second of two builds in one script, alternating runs so the
# shared machine's load hits both alike: this checkout against BASE (a git revision, built in a
# temporary worktree). Each run is `ssdiq io TARGET --fill seq --rw randwrite --qd 32` for T1
# and T2 virtual seconds; the difference in wall time and I/Os is the steady-state rate.
#   bench/emu-speed-ab.sh BASE [TARGET=emu:default] [T1=60s] [T2=180s] [ROUNDS=3]
set -euo pipefail
base=${1:?usage: bench/emu-speed-ab.sh BASE [TARGET] [T1] [T2] [ROUNDS]}
target=${2:-emu:default}
t1=${3:-60s}
t2=${4:-180s}
rounds=${5:-3}
. "$(dirname "$0")/lib/base-build.sh"
base_build "$base"
declare -A bin=([base]="$base_bin" [this]="target/release/ssdiq")
for r in $(seq "$rounds"); do
    for which in base this; do
        for t in "$t1" "$t2"; do
            s=$(date +%s.%N)
            "${bin[$which]}" io "$target" --fill seq --rw randwrite --qd 32 --time "$t" \
                --json "$tmp/$which-$r-$t.json" > /dev/null
            e=$(date +%s.%N)
            echo "$s $e" > "$tmp/$which-$r-$t.wall"
        done
    done
done
python3 - "$tmp" "$t1" "$t2" "$rounds" "$base" <<'PY'
import json, sys, statistics
d, t1, t2, rounds, base = sys.argv[1:]
def rate(which, r):
    def load(t):
        j = json.load(open(f"{d}/{which}-{r}-{t}.json"))
        s, e = map(float, open(f"{d}/{which}-{r}-{t}.wall").read().split())
        return j["ops"]["write"]["ios"], e - s
    n1, w1 = load(t1)
    n2, w2 = load(t2)
    return (n2 - n1) / (w2 - w1) / 1e6
res = {w: [rate(w, r) for r in range(1, int(rounds) + 1)] for w in ("base", "this")}
for w in ("base", "this"):
    print(f"{w:5} {'BASE ' + base if w == 'base' else 'this checkout':>22}: "
          + " ".join(f"{x:.2f}" for x in res[w]) + f" M emulated I/Os/s (median {statistics.median(res[w]):.2f})")
print(f"this / base: {statistics.median(res['this']) / statistics.median(res['base']):.3f} (medians)")
PY
