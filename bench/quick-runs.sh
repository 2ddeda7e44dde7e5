#!/usr/bin/env bash
# `ssdiq run --quick` on every shipped profile, one at a time: wall time, the drive's virtual
# time, and the size of report.html (docs/protocol.md, "Quick runs", has the table).
#   bench/quick-runs.sh [OUT_DIR=target/quick-runs]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/quick-runs}
cargo build --release --quiet -p ssdiq
bin=target/release/ssdiq
mkdir -p "$out"
echo "| profile | class | wall [s] | drive time [s] | report.html [KB] |"
echo "|---|---|---:|---:|---:|"
"$bin" info emu:list --json "$out/list.json" >/dev/null
python3 -c "import json; [print(p['name'], p['group']) for p in json.load(open('$out/list.json'))['profiles']]" |
while read -r p group; do
    start=$(date +%s.%N)
    "$bin" run "emu:$p" --quick --quiet --recreate --out "$out/$p" >/dev/null
    end=$(date +%s.%N)
    virt=$(python3 -c "import json; print(round(json.load(open('$out/$p/run.json'))['run']['elapsed_s']))")
    kb=$(( $(stat -c %s "$out/$p/report.html") / 1024 ))
    printf '| `%s` | %s | %.1f | %s | %s |\n' "$p" "$group" "$(echo "$end - $start" | bc)" "$virt" "$kb"
done
