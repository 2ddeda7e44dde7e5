#!/usr/bin/env bash
# The README's table of the emulated SSD's profiles: a full `ssdiq run` of each (default,
# nosuspend, smallbuf, highop, 2r), their comparison page in docs/results/emu-profiles.md, and
# the rows of the README's table, printed (paste them over the old ones).
#   bench/emu-profiles.sh [OUT_DIR=target/emu-profiles]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/emu-profiles}
profiles=(default nosuspend smallbuf highop 2r)
cargo build --release --quiet -p ssdiq
bin=target/release/ssdiq
mkdir -p "$out"
for p in "${profiles[@]}"; do
    /usr/bin/time -f "emu:$p: %e s wall, %U s user" "$bin" run "emu:$p" --quiet --recreate --out "$out/$p" >/dev/null
done
runs=()
for p in "${profiles[@]}"; do runs+=("$out/$p/run.json"); done
"$bin" report "${runs[@]}" --markdown docs/results/emu-profiles.md >/dev/null
python3 - "$out" "${profiles[@]}" <<'PY'
import json, sys
out, profiles = sys.argv[1], sys.argv[2:]
runs = [json.load(open(f"{out}/{p}/run.json")) for p in profiles]
f = lambda r, k: r["figures"].get(k, {}).get("median")
def cell(r, keys, fmt):
    vals = [f(r, k) for k in keys]
    return " / ".join("-" if v is None else fmt.format(v) for v in vals)
w = ["uniform", "twozone", "zipf"]
rows = [
    ("Rnd. write kIOPS, uniform / twozone / zipf", [f"rand_write_kiops.{x}" for x in w], "{:.0f}"),
    ("Read latency under load, avg / P99.9 [us]", ["read_lat_load_avg_us", "read_lat_load_p99.9_us"], "{:.0f}"),
    ("Write latency under load, avg / P99.9 [us]", ["write_lat_load_avg_us", "write_lat_load_p99.9_us"], "{:.0f}"),
    ("WA measured, uniform / twozone / zipf", [f"waf_measured.{x}" for x in w], "{:.2f}"),
    ("WA implied (spec seq. write / rnd. write bandwidth), uniform", ["waf_implied.uniform"], "{:.2f}"),
    ("Sequential write [MB/s] (spec 1579)", ["seq_write_mb_s"], "{:.0f}"),
]
print("| | " + " | ".join(profiles) + " |")
print("|---|" + "---:|" * len(profiles))
for name, keys, fmt in rows:
    print(f"| {name} | " + " | ".join(cell(r, keys, fmt) for r in runs) + " |")
op = []
for r in runs:
    a, b = f(r, "op_estimate"), f(r, "op_estimate_greedy")
    op.append(f"{a*100:.1f} / {b*100:.1f}%")
print("| OP estimate 1/(2 WA) / greedy model | " + " | ".join(op) + " |")
PY
