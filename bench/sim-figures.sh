#!/usr/bin/env bash
# Regenerates the tables of docs/simulator.md (SSD-iq Figures 3b, 4b, 5, 6a, 7a) at scaled
# capacities, writing JSON per figure into OUT (default target/sim-figures) and printing the
# Markdown tables. Each figure takes a minute or two on 2 cores.
set -euo pipefail
out=${1:-target/sim-figures}
cd "$(dirname "$0")/.."
cargo build --release -q -p ssdiq
mkdir -p "$out"
sim() { target/release/ssdiq sim --quiet "$@"; }
common=(--capacity 8GiB --page 4KiB --block 1MiB --fill 0.875 --writes 4x --seed 1)
# Fig. 3b: two-zone skew; greedy with batched collection too (the implicit separation).
zones=twozone:50/50,twozone:60/40,twozone:70/30,twozone:80/20,twozone:90/10,twozone:95/5
sim "${common[@]}" --gc greedy,2r-greedy,2r-fifo,separated-model --pattern "$zones" \
    --json "$out/fig3b.json" > /dev/null
sim "${common[@]}" --gc greedy --gc-mode batched --pattern "$zones" \
    --json "$out/fig3b-batched.json" > /dev/null
# Fig. 4b: Zipf, with and without a 0.02% LRU write buffer.
zipfs=zipf:0.2,zipf:0.4,zipf:0.6,zipf:0.8,zipf:0.9,zipf:1.0,zipf:1.1,zipf:1.2
sim "${common[@]}" --gc greedy,2r-greedy,2r-fifo,separated-model --pattern "$zipfs" \
    --write-buffer 0,0.02% --json "$out/fig4b.json" > /dev/null
sim "${common[@]}" --gc greedy --gc-mode batched --pattern "$zipfs" \
    --json "$out/fig4b-batched.json" > /dev/null
# Fig. 5: read-only fraction.
sim "${common[@]}" --gc greedy,2r-greedy,2r-fifo,separated-model \
    --pattern readonly:0,readonly:0.1,readonly:0.2,readonly:0.3,readonly:0.4,readonly:0.5,readonly:0.6,readonly:0.7,readonly:0.8,readonly:0.9 \
    --json "$out/fig5.json" > /dev/null
# Fig. 6a: one ZNS-like write front vs zone size, on a drive with 64 MiB superblocks.
sim --capacity 16GiB --page 4KiB --block 64MiB --fill 0.875 --writes 4x --seed 1 --gc greedy \
    --pattern uniform,zns:4MiB,zns:16MiB,zns:32MiB,zns:48MiB,zns:64MiB,zns:96MiB,zns:128MiB,zns:256MiB,zns:64MiBx2,zns:64MiBx4 \
    --json "$out/fig6a.json" > /dev/null
# Fig. 7a: greedy WAF vs OP, uniform.
sim --capacity 8GiB --page 4KiB --block 1MiB --writes 4x --seed 1 --gc greedy --pattern uniform \
    --op 5%,7%,10%,12.5%,15%,20%,28%,40%,60%,100% --json "$out/fig7a.json" > /dev/null
python3 bench/sim-tables.py "$out"
