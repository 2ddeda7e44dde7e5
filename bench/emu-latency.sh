#!/usr/bin/env bash
# Latency under load on the emulated profiles (SSD-iq §5 / issue 6 checks): uniform random
# 4 KiB writes at 25% of the profile's spec random-write rate (QD 32, after a sequential fill),
# with a QD 1 read probe; prints write mean/P99.9 and probe-read mean/P99.9 per profile.
#   bench/emu-latency.sh [TIME=120s] [PROFILES="default nosuspend smallbuf highop 2r"]
set -euo pipefail
time=${1:-120s}
profiles=${2:-default nosuspend smallbuf highop 2r}
cd "$(dirname "$0")/.."
cargo build --release -q -p ssdiq
bin=target/release/ssdiq
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in $profiles; do
    "$bin" info "emu:$p" --json "$tmp/$p.info.json" > /dev/null
    rate=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['emulated']['spec']['rand_write_kiops']*250))" "$tmp/$p.info.json")
    "$bin" io "emu:$p" --fill seq --rw randwrite --qd 32 --rate "$rate" --probe read \
        --time "$time" --json "$tmp/$p.json" > /dev/null
    python3 - "$tmp/$p.json" "$p" "$rate" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w, pr = r["ops"]["write"], r["probes"]["read"]
us = lambda ns: ns / 1e3
print(f"{sys.argv[2]:<10} writes at {int(sys.argv[3])/1e3:.1f}k IOPS: write mean {us(w['lat_ns']['mean']):.1f} us "
      f"P99.9 {us(w['lat_ns']['p99.9']):.1f} us ({w['lat_ns']['p99.9']/w['lat_ns']['mean']:.0f}x mean); "
      f"read probe mean {us(pr['lat_ns']['mean']):.1f} us P99.9 {us(pr['lat_ns']['p99.9']):.1f} us; WAF {r['device']['waf']:.2f}")
PY
done
