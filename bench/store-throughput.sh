#!/usr/bin/env bash
# Speed of the page store on the emulated SSD, per data mode: page operations per CPU second
# of the measured window (YCSB-A generation + buffer pool + write path + DB GC + the emulated
# drive), on one core (the thread's own CPU clock, so other jobs on the machine do not count).
# For each row of the paper's Table 1 it runs the bytes mode (real contents, LZ4, every read
# checked) and the model mode (no contents, sizes from the calibrated LZ4 model), prints each
# rate, its ratio to the 1 M operations/s bar and the model/bytes ratio, and checks that the
# two modes measured the same DB WAF (exactly without compression, within 2% with it).
#   bench/store-throughput.sh [OPS] [TARGET]   (default 4M operations, the default 2 GiB drive)
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-4M}
target=${2:-}
cargo build --release -q -p ssdiq
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-9s %-6s %12s %8s %11s %9s %8s %8s\n' row data "ops/CPU-s" "vs 1M/s" "model/bytes" "proc CPU" "DB WAF" "SSD WAF"
for row in in-place oop comp gdt nowa aligned; do
    for data in bytes model; do
        /usr/bin/time -f '%U %S' -o "$out/$row-$data.time" ./target/release/ssdiq store $target \
            --rows "$row" --data "$data" --warmup 1 --measure-ops "$ops" \
            --json "$out/$row-$data.json" --quiet > /dev/null
    done
    python3 - "$out" "$row" <<'PY'
import json, sys
out, row = sys.argv[1], sys.argv[2]
rates = {}
for data in ("bytes", "model"):
    o = json.load(open(f"{out}/{row}-{data}.json"))["rows"][0]["outcome"]
    m = o["metrics"]
    rate = m["ops"] / o["measure_cpu_s"]
    rates[data] = (rate, m["db_waf"], m["ssd_waf"])
    user, sys_ = map(float, open(f"{out}/{row}-{data}.time").read().split())
    ratio = f"{rate / rates['bytes'][0]:.1f}x" if data == "model" else ""
    print(f"{row:<9} {data:<6} {rate/1e6:10.2f} M {rate/1e6:8.2f} {ratio:>11} {user+sys_:8.1f}s "
          f"{m['db_waf']:8.3f} {m['ssd_waf']:8.3f}")
b, m = rates["bytes"][1], rates["model"][1]
if abs(m / b - 1) > 0.02:
    sys.exit(f"{row}: DB WAF differs between the modes: bytes {b:.4f}, model {m:.4f}")
PY
done
