#!/usr/bin/env bash
# Runs the SSD-iq benchmark (`ssdiq run`) on each of the nine emulated drive profiles and prints
# the table of docs/drives.md: each figure beside the SSD-iq paper's, with the relative
# difference.
#   bench/drives.sh [OUT_DIR] [--quick]     (default OUT_DIR: a temporary directory)
# JOBS=N runs N profiles at once (default 1; each run is single-threaded).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
shift || true
extra=("$@")
. bench/drive-library.sh
for_each_profile "$out" \
  '"$bin" run "emu:{}" --recreate --out "$out/{}" "$@" > "$out/{}.log" 2>&1 || { echo "emu:{} failed: $out/{}.log" >&2; exit 1; }' _ "${extra[@]}"
for p in "${profiles[@]}"; do
  printf '%s: %s\n' "$p" "$(grep -o 'ran .*' "$out/$p.log" | tail -1)" >&2
done
python3 bench/drives-table.py "$out"
# The report's own page of the nine runs beside the paper's rows (docs/drives-against.md).
runs=()
for p in "${profiles[@]}"; do runs+=("$out/$p"); done
"$bin" report "${runs[@]}" --against ssd-iq --markdown "$out/against.md" --html "$out/against.html" >/dev/null
