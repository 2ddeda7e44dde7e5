#!/usr/bin/env bash
# `ssdiq fit --paper ssd-iq:NAME` for each of the paper's nine drives, then a full `ssdiq run`
# of each twin, then the drive library's table of those runs beside the paper's rows
# (bench/drives-table.py: the goals of docs/drives.md), and each twin's fitted values beside
# the hand-set library profile's (bench/fit-paper-table.py).
# Usage: bench/fit-paper.sh [OUT_DIR] [fit options, e.g. --capacity 4GiB]
#   (JOBS=N fits and runs N drives at once; virtual time: the figures do not depend on the
#   machine, the wall times do)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
shift || true
extra=("$@")
. bench/drive-library.sh
for_each_profile "$out" \
  'start=$(date +%s); "$bin" fit --paper "ssd-iq:{}" --out "$out/{}.toml" --json "$out/{}.fit.json" "$@" > "$out/{}.fit.log" 2>&1 || { echo "fit {} failed: $out/{}.fit.log" >&2; exit 1; }; echo "{}: fit in $(( $(date +%s) - start )) s wall" >&2;
   "$bin" run "emu:$out/{}.toml" --recreate --out "$out/{}" > "$out/{}.log" 2>&1 || { echo "run of the {} twin failed: $out/{}.log" >&2; exit 1; }' _ "${extra[@]}"
python3 bench/drives-table.py "$out"
python3 bench/fit-paper-table.py "$out" "${profiles[@]}"
