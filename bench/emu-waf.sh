#!/usr/bin/env bash
# Steady-state WAF of the emulated SSD per capacity and pattern (docs/emulator.md "Capacities are
# scaled"): a scaled drive should give the WAF of the drive it stands for at every capacity, and
# naive greedy's WAF should rise with skew. Fresh drive per cell: fill, WARM drive writes of
# 4 KiB writes of the pattern at QD 32, WAF over MEASURE more (the drive's own counters).
#   bench/emu-waf.sh [PATTERNS=uniform,twozone:90/10,zipf:0.9] [CAPACITIES="2GiB 4GiB 16GiB 32GiB"] [PROFILE=default]
#   env: WARM=3 MEASURE=2
set -euo pipefail
patterns=${1:-uniform,twozone:90/10,zipf:0.9}
capacities=${2:-2GiB 4GiB 16GiB 32GiB}
profile=${3:-default}
cd "$(dirname "$0")/.."
cargo build --release -q -p ssdiq-emu --example emu_waf
targets=()
for c in $capacities; do targets+=("emu:$profile,capacity=$c"); done
target/release/examples/emu_waf "$patterns" "${targets[@]}"
