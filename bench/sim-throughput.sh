#!/usr/bin/env bash
# Host page writes per second of `ssdiq sim` (one run = one core): greedy, uniform, fill 0.875,
# 4 KiB pages, 8 MiB blocks. Prints the wall time, the rate and the peak RSS.
#   bench/sim-throughput.sh [CAPACITY=16GiB] [WRITES=2x]
#   BASELINE=path/to/old/ssdiq RUNS=5 bench/sim-throughput.sh 16GiB 4x
# The rate counts workload writes only; the sequential fill (fill x capacity) is also timed,
# so the rate is a slight underestimate. The criterion bench (cargo bench -p ssdiq-benches --bench ftl)
# times the FTL alone in steady state.
# With BASELINE, runs that binary and this tree's RUNS times each, alternating which goes first,
# and prints each pair's rates per CPU second (user + sys) and the median ratio new / baseline.
set -euo pipefail
cap=${1:-16GiB}
writes=${2:-2x}
cd "$(dirname "$0")/.."
cargo build --release -q -p ssdiq
bin=target/release/ssdiq
json=$(mktemp --suffix .json)
trap 'rm -f "$json" "$json.time"' EXIT
# One run of binary $1; prints "host_writes cpu_seconds wall rss_kib waf".
one() {
    /usr/bin/time -v "$1" sim --capacity "$cap" --page 4KiB --block 8MiB --fill 0.875 \
        --gc greedy --pattern uniform --writes "$writes" --seed 1 --quiet --json "$json" \
        > /dev/null 2> "$json.time"
    python3 - "$json" "$json.time" <<'PY'
import json, re, sys
run = json.load(open(sys.argv[1]))["runs"][0]
t = open(sys.argv[2]).read()
cpu = sum(float(re.search(rf"{k} time \(seconds\): (\S+)", t).group(1)) for k in ("User", "System"))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
print(run["host_writes"], cpu, wall, rss, run["waf"])
PY
}
if [ -z "${BASELINE:-}" ]; then
    read -r host cpu wall rss waf < <(one "$bin")
    python3 -c "import sys; h,c=int(sys.argv[1]),float(sys.argv[2]); print(f'capacity $cap, {h} host writes in {c:.2f} CPU s (incl. fill) = {h/c/1e6:.2f} M host writes/s; WAF {float(sys.argv[3]):.4f}; peak RSS {int(sys.argv[4])/1024:.0f} MiB; wall {sys.argv[5]}')" \
        "$host" "$cpu" "$waf" "$rss" "$wall"
    exit 0
fi
ratios=()
for r in $(seq 1 "${RUNS:-5}"); do
    # Alternate which goes first, so neither always runs on a warmer machine.
    if [ $((r % 2)) -eq 1 ]; then
        read -r hb cb _ _ _ < <(one "$BASELINE")
        read -r hn cn _ _ _ < <(one "$bin")
    else
        read -r hn cn _ _ _ < <(one "$bin")
        read -r hb cb _ _ _ < <(one "$BASELINE")
    fi
    rb=$(python3 -c "print($hb / $cb / 1e6)"); rn=$(python3 -c "print($hn / $cn / 1e6)")
    ratio=$(python3 -c "print($rn / $rb)")
    printf "run %d: baseline %.2f M host writes/CPU s, this tree %.2f, ratio %.3f\n" "$r" "$rb" "$rn" "$ratio"
    ratios+=("$ratio")
done
python3 -c "import statistics, sys; print(f'median ratio this tree / baseline: {statistics.median(map(float, sys.argv[1:])):.3f}')" "${ratios[@]}"
