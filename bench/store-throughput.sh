#!/usr/bin/env bash
# Speed of the page store on the emulated SSD: operations per wall-clock second of the measured
# window (YCSB-A generation + buffer pool + write path + DB GC + the emulated drive), one core.
# The bar is 1 M operations/s; the script prints each row's rate and its ratio to that bar,
# plus the process's CPU time from /usr/bin/time.
#   bench/store-throughput.sh [OPS]      (default 4M measured operations per row)
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-4M}
cargo build --release -q -p ssdiq
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for row in in-place oop comp aligned; do
    /usr/bin/time -f '%U %S' -o "$out/$row.time" ./target/release/ssdiq store --rows "$row" \
        --warmup 1 --measure-ops "$ops" --json "$out/$row.json" --quiet > /dev/null
    python3 - "$out/$row.json" "$out/$row.time" "$row" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rows"][0]
o = r["outcome"]
ops = o["metrics"]["ops"]
rate = ops / o["measure_wall_s"]
user, sys_ = map(float, open(sys.argv[2]).read().split())
print(f"{sys.argv[3]:<9} {ops} ops in {o['measure_wall_s']:.2f} s wall: {rate/1e6:.2f} M ops/s "
      f"(ratio to the 1 M/s bar: {rate/1e6:.2f}); whole process {user+sys_:.1f} s CPU, "
      f"load {o['load_wall_s']:.1f} s; DB WAF {o['metrics']['db_waf']:.2f}")
PY
done
