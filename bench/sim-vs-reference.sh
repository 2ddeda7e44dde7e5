#!/usr/bin/env bash
# ssdiq sim against the SSD-iq reference simulator (sim/ of the authors' artifact,
# https://github.com/gabriel-haas/ssdiq, built by bench/lib/reference-sim.sh),
# on the same inputs: per configuration the reference's WAF, ssdiq's WAF, their difference and
# the CPU-time ratio (ssdiq user+sys / reference user+sys, one process each).
#
#   bench/sim-vs-reference.sh ARTIFACT_DIR     (or SSDIQ_ARTIFACT=DIR: a clone of the artifact)
#   env: CAPACITY=16G (physical), PAGE=4K, ERASE=8M (default erase unit), FILL=0.875,
#        WRITES=10 (measured drive writes), RUNS=1 (runs per side, averaged), ONLY=regex
#        (configurations whose name matches), RESULTS=target/sim-vs-reference (raw outputs)
#
# Both sides: sequential fill, one physical capacity of pattern writes as warm-up, then WRITES
# drive writes; WAF over the last half of them (the reference prints a running WAF per tenth
# of a drive write: the mean of its last WRITES*5 rows). The reference seeds from
# random_device, so its runs differ by ~0.2% at 16 GiB; ssdiq takes --seed RUN.
set -euo pipefail
artifact=${1:-${SSDIQ_ARTIFACT:?usage: bench/sim-vs-reference.sh ARTIFACT_DIR (or SSDIQ_ARTIFACT): a clone of https://github.com/gabriel-haas/ssdiq}}
artifact=$(cd "$artifact" && pwd)
cap=${CAPACITY:-16G}; page=${PAGE:-4K}; erase=${ERASE:-8M}; fill=${FILL:-0.875}
writes=${WRITES:-10}; runs=${RUNS:-1}; only=${ONLY:-.}
cd "$(dirname "$0")/.."
out=${RESULTS:-target/sim-vs-reference}
mkdir -p "$out"
out=$(cd "$out" && pwd)
ref=$(env -u OUT bash bench/lib/reference-sim.sh "$artifact")
cargo build --release -q -p ssdiq
ssdiq=$PWD/target/release/ssdiq

# name | gc | reference pattern args | ssdiq pattern | fill | erase unit
configs=(
  "uniform OP 7%|greedy|--pattern uniform|uniform|0.934579|$erase"
  "uniform OP 12%|greedy|--pattern uniform|uniform|0.892857|$erase"
  "uniform OP 28%|greedy|--pattern uniform|uniform|0.78125|$erase"
  "uniform 1 MiB units|greedy|--pattern uniform|uniform|$fill|1M"
  "uniform 64 MiB units|greedy|--pattern uniform|uniform|$fill|64M"
  "twozone 70/30|greedy|--pattern zones --zones s0.3_f0.7_s0.7_f0.3|twozone:70/30|$fill|$erase"
  "twozone 80/20|greedy|--pattern zones --zones s0.2_f0.8_s0.8_f0.2|twozone:80/20|$fill|$erase"
  "twozone 90/10|greedy|--pattern zones --zones s0.1_f0.9_s0.9_f0.1|twozone:90/10|$fill|$erase"
  "twozone 95/5|greedy|--pattern zones --zones s0.05_f0.95_s0.95_f0.05|twozone:95/5|$fill|$erase"
  "zipf 0.8|greedy|--pattern zipf --zipf 0.8|zipf:0.8|$fill|$erase"
  "zipf 1.0|greedy|--pattern zipf --zipf 1.0|zipf:1.0|$fill|$erase"
  "zipf 1.2|greedy|--pattern zipf --zipf 1.2|zipf:1.2|$fill|$erase"
  "uniform 2r-greedy|2r-greedy|--pattern uniform|uniform|$fill|$erase"
  "twozone 80/20 2r-greedy|2r-greedy|--pattern zones --zones s0.2_f0.8_s0.8_f0.2|twozone:80/20|$fill|$erase"
  "twozone 90/10 2r-greedy|2r-greedy|--pattern zones --zones s0.1_f0.9_s0.9_f0.1|twozone:90/10|$fill|$erase"
  "zipf 1.0 2r-greedy|2r-greedy|--pattern zipf --zipf 1.0|zipf:1.0|$fill|$erase"
  "uniform 2r-fifo|2r-fifo|--pattern uniform|uniform|$fill|$erase"
  "twozone 80/20 2r-fifo|2r-fifo|--pattern zones --zones s0.2_f0.8_s0.8_f0.2|twozone:80/20|$fill|$erase"
  "twozone 90/10 2r-fifo|2r-fifo|--pattern zones --zones s0.1_f0.9_s0.9_f0.1|twozone:90/10|$fill|$erase"
  "zipf 1.0 2r-fifo|2r-fifo|--pattern zipf --zipf 1.0|zipf:1.0|$fill|$erase"
  # The artifact's benchslow streams: N equal zones, each written sequentially, weights 1, 1.2, ...
  "streams 2|greedy|--pattern zones-noshuffle --zones s1_f1.0_sequential_s1_f1.2_sequential|streams:2|$fill|$erase"
  "streams 4|greedy|--pattern zones-noshuffle --zones s1_f1.0_sequential_s1_f1.2_sequential_s1_f1.4_sequential_s1_f1.6_sequential|streams:4|$fill|$erase"
  "streams 8|greedy|--pattern zones-noshuffle --zones s1_f1.0_sequential_s1_f1.2_sequential_s1_f1.4_sequential_s1_f1.6_sequential_s1_f1.8_sequential_s1_f2.0_sequential_s1_f2.2_sequential_s1_f2.4_sequential|streams:8|$fill|$erase"
  "streams 16|greedy|--pattern zones-noshuffle --zones s1_f1.0_sequential_s1_f1.2_sequential_s1_f1.4_sequential_s1_f1.6_sequential_s1_f1.8_sequential_s1_f2.0_sequential_s1_f2.2_sequential_s1_f2.4_sequential_s1_f2.6_sequential_s1_f2.8_sequential_s1_f3.0_sequential_s1_f3.2_sequential_s1_f3.4_sequential_s1_f3.6_sequential_s1_f3.8_sequential_s1_f4.0_sequential|streams:16|$fill|$erase"
)

# "16G" -> "16GiB" for ssdiq (the reference's K/M/G are binary).
bin() { echo "${1}iB"; }
# CPU seconds (user + sys) of a command whose stdout goes to $1.
cpu() { local o=$1; shift; /usr/bin/time -f "%U %S" -o "$o.time" "$@" > "$o"; awk '{print $1 + $2}' "$o.time"; }

printf "# %s physical, %s pages, fill %s unless named, %s measured drive writes after a warm-up of one physical capacity, %s run(s) per side\n" \
  "$cap" "$page" "$fill" "$writes" "$runs"
printf "%-26s %6s %10s %10s %8s %9s %9s %7s\n" config unit reference ssdiq diff "ref cpu" "ssdiq cpu" ratio
for c in "${configs[@]}"; do
  IFS='|' read -r name gc rpat spat cfill cerase <<< "$c"
  [[ "$name" =~ $only ]] || continue
  tag=$(echo "$name" | tr ' /%.' '____')
  rsum=0; ssum=0; rcpu=0; scpu=0
  for r in $(seq 1 "$runs"); do
    # Pattern words; "_" stands for a space inside one (the --zones string).
    read -r -a words <<< "$rpat"
    words=("${words[@]//_/ }")
    # The reference writes a CSV log into its working directory: run it in $out.
    t=$(cd "$out" && cpu "$out/$tag.ref.$r" "$ref" --capacity "$cap" --erase "$cerase" --page "$page" \
        --ssdfill "$cfill" --gc "$gc" --writes "$writes" "${words[@]}")
    rw=$(grep '^bench' "$out/$tag.ref.$r" | tail -n $((writes * 5)) | awk -F, '{s += $(NF-1)} END {printf "%.5f", s / NR}')
    rcpu=$(echo "$rcpu + $t" | bc -l); rsum=$(echo "$rsum + $rw" | bc -l)
    t=$(cpu "$out/$tag.ssdiq.$r" "$ssdiq" sim --capacity "$(bin "$cap")" --block "$(bin "$cerase")" \
        --page "$(bin "$page")" --fill "$cfill" --gc "$gc" --pattern "$spat" --warmup physical \
        --writes "${writes}x" --seed "$r" --quiet --json "$out/$tag.ssdiq.$r.json")
    sw=$(python3 -c 'import json,sys; print("%.5f" % json.load(open(sys.argv[1]))["runs"][0]["waf"])' "$out/$tag.ssdiq.$r.json")
    scpu=$(echo "$scpu + $t" | bc -l); ssum=$(echo "$ssum + $sw" | bc -l)
  done
  python3 - "$name" "$cerase" "$rsum" "$ssum" "$rcpu" "$scpu" "$runs" <<'PY'
import sys
name, unit = sys.argv[1], sys.argv[2]
r, s, rc, sc, n = (float(x) for x in sys.argv[3:])
r, s = r / n, s / n
print(f"{name:<26} {unit:>6} {r:>10.4f} {s:>10.4f} {100 * (s / r - 1):>+7.2f}% {rc:>8.2f}s {sc:>8.2f}s {sc / rc:>7.2f}")
PY
done
