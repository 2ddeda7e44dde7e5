#!/usr/bin/env bash
# Opens HTML reports in headless Chromium, takes screenshots and fails on a blank or broken
# page: the comparison report of the golden sample run (tests the renderer), and the report
# a real `ssdiq run --quick` on the emulated SSD writes (tests what a user opens).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release -q -p ssdiq
mkdir -p target/render

# check_html NAME FILE MIN_CHARTS
check_html() {
    local name=$1 file=$2 min=$3
    local flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                 --disable-background-networking --disable-component-update --disable-sync
                 --user-data-dir="$out/profile-$name" --hide-scrollbars)
    timeout 120 chromium "${flags[@]}" --dump-dom "file://$file" >"$out/$name.dom.html" 2>/dev/null
    local svgs
    svgs=$(grep -o '<svg' "$out/$name.dom.html" | wc -l)
    grep -q 'Table 2: SSD performance' "$out/$name.dom.html" \
        || { echo "$name: Table 2 missing from the rendered DOM"; exit 1; }
    [ "$svgs" -ge "$min" ] \
        || { echo "$name: expected >= $min charts in the rendered DOM, found $svgs"; exit 1; }
    timeout 120 chromium "${flags[@]}" --window-size=1280,3000 --screenshot="$out/$name.png" \
        "file://$file" >/dev/null 2>&1
    python3 tests/render/png_check.py "$out/$name.png"
    cp "$out/$name.png" "target/render/$name.png"
    echo "html render $name: ok ($svgs charts)"
}

sample=crates/report/tests/golden/sample-run.json
./target/release/ssdiq report "$sample" "$sample" --html "$out/compare.html" --color never >/dev/null
check_html compare "$out/compare.html" 6

./target/release/ssdiq run --quick --quiet --out "$out/run" >/dev/null
check_html run "$out/run/report.html" 6
