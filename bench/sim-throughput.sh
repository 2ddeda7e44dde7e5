#!/usr/bin/env bash
# Host page writes per second of `ssdiq sim` (one run = one core): greedy, uniform, fill 0.875,
# 4 KiB pages, 8 MiB blocks. Prints the wall time, the rate and the peak RSS.
#   bench/sim-throughput.sh [CAPACITY=16GiB] [WRITES=2x]
# The rate counts workload writes only; the sequential fill (fill x capacity) is also timed,
# so the rate is a slight underestimate. The criterion bench (cargo bench -p ssdiq-flash)
# times the FTL alone in steady state.
set -euo pipefail
cap=${1:-16GiB}
writes=${2:-2x}
cd "$(dirname "$0")/.."
cargo build --release -q -p ssdiq
bin=target/release/ssdiq
json=$(mktemp --suffix .json)
trap 'rm -f "$json" "$json.time"' EXIT
/usr/bin/time -v "$bin" sim --capacity "$cap" --page 4KiB --block 8MiB --fill 0.875 \
    --gc greedy --pattern uniform --writes "$writes" --seed 1 --quiet --json "$json" \
    2> "$json.time"
python3 - "$json" "$json.time" <<'PY'
import json, re, sys
run = json.load(open(sys.argv[1]))["runs"][0]
t = open(sys.argv[2]).read()
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
secs = run["seconds"]
print(f"capacity {run['params']['capacity_bytes']/2**30:.0f} GiB, {run['host_writes']} host writes "
      f"in {secs:.2f} s (incl. fill) = {run['host_writes']/secs/1e6:.2f} M host writes/s; "
      f"WAF {run['waf']:.4f}; peak RSS {rss/1024:.0f} MiB; wall {wall}")
PY
