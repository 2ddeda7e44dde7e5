#!/usr/bin/env bash
# Opens an HTML report in headless Chromium, takes a screenshot and fails on a blank or broken
# page. Uses the golden sample run, so it tests the renderer, not a benchmark.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release -q -p ssdiq
sample=crates/report/tests/golden/sample-run.json
./target/release/ssdiq report "$sample" "$sample" --html "$out/report.html" --color never >/dev/null
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$out/profile" --hide-scrollbars)
timeout 120 chromium "${flags[@]}" --dump-dom "file://$out/report.html" >"$out/dom.html" 2>/dev/null
svgs=$(grep -o '<svg' "$out/dom.html" | wc -l)
grep -q 'Table 2: SSD performance' "$out/dom.html" || { echo "Table 2 missing from the rendered DOM"; exit 1; }
[ "$svgs" -ge 6 ] || { echo "expected >= 6 charts in the rendered DOM, found $svgs"; exit 1; }
timeout 120 chromium "${flags[@]}" --window-size=1280,3000 --screenshot="$out/report.png" \
    "file://$out/report.html" >/dev/null 2>&1
python3 tests/render/png_check.py "$out/report.png"
mkdir -p target/render && cp "$out/report.png" target/render/report.png
echo "html render: ok ($svgs charts)"
