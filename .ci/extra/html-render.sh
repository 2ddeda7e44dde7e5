#!/usr/bin/env bash
# Opens the HTML pages ssdiq writes in headless Chromium, at 1400 px and at a laptop's 1000 px,
# and fails on a page that is blank, cut (taller or wider than the screenshot), or missing its
# tables or charts: the report of a real `ssdiq run --quick`, a three-drive comparison of real
# runs, the same drive against the SSD-iq paper's drives, an `ssdiq sim` sweep and every study.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Debian's python3 with Pillow decodes the screenshots (png_check.py falls back to its own,
# slow decoder without it).
py=/usr/bin/python3
if ! command -v chromium >/dev/null || ! "$py" -c 'import PIL' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium python3 python3-pil >/dev/null
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release -q -p ssdiq
mkdir -p target/render
ssdiq=./target/release/ssdiq

# check_html NAME FILE MIN_CHARTS NEEDLE: the rendered DOM has NEEDLE and MIN_CHARTS charts;
# screenshots at both widths are whole pages.
check_html() {
    local name=$1 file=$2 min=$3 needle=$4
    local flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                 --disable-background-networking --disable-component-update --disable-sync
                 --user-data-dir="$out/profile-$name" --hide-scrollbars)
    timeout 120 chromium "${flags[@]}" --dump-dom "file://$file" >"$out/$name.dom.html" 2>/dev/null
    local svgs
    svgs=$(grep -o '<svg' "$out/$name.dom.html" | wc -l)
    grep -q "$needle" "$out/$name.dom.html" \
        || { echo "$name: \"$needle\" missing from the rendered DOM"; exit 1; }
    [ "$svgs" -ge "$min" ] \
        || { echo "$name: expected >= $min charts in the rendered DOM, found $svgs"; exit 1; }
    for width in 1400 1000; do
        timeout 120 chromium "${flags[@]}" --window-size="$width,24000" \
            --screenshot="$out/$name-$width.png" "file://$file" >/dev/null 2>&1
        "$py" tests/render/png_check.py "$out/$name-$width.png"
        cp "$out/$name-$width.png" "target/render/$name-$width.png"
    done
    echo "html render $name: ok ($svgs charts)"
}

# Both cores: the pages are made, then checked, $(nproc) at a time (a failed command or check
# fails the script when its turn to be waited for comes).
par=$(nproc)
pids=()
bg() {
    "$@" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$par" ]; then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
    fi
}
wait_all() {
    for p in "${pids[@]}"; do wait "$p"; done
    pids=()
}
quiet() { "$@" >/dev/null; }

for p in default nosuspend smallbuf; do
    bg quiet $ssdiq run "emu:$p" --quick --quiet --out "$out/$p"
done
bg quiet $ssdiq sim --capacity 256MiB --block 1MiB --op 7%,15%,28% --gc greedy,2r-fifo \
    --pattern uniform,twozone:80/20 --writes 2x --quiet --html "$out/sim.html"
# The page store's page: four rows of Table 1 on a small emulated drive.
bg quiet $ssdiq store emu:default,capacity=256MiB,units_per_block=1 --rows in-place,oop,comp,aligned \
    --warmup 1.5 --measure 0.5 --open-zones 8 --quiet --html "$out/store.html"
# Every study's page, quick, on a small emulated drive (gc-unit on one with 3 MiB superblocks).
for s in skew readonly latency-load block-size queue-depth streams concurrency empty-full variance \
         parallelism locality permuted alignment random-fill data-dependence \
         pts-iops pts-throughput pts-latency pts-wsat pts-hir pts-xsr pts-dirth; do
    bg quiet $ssdiq study "$s" emu:default,capacity=2GiB --quick --quiet --out "$out/study-$s"
done
bg quiet $ssdiq study gc-unit emu:default,capacity=1GiB,full_capacity=1GiB,units_per_block=1,buffer_kib=4096 \
    --quick --quiet --out "$out/study-gc-unit"
bg quiet $ssdiq study write-over-time emu:970evoplus --quick --quiet --out "$out/study-write-over-time"
wait_all

$ssdiq report "$out/default" "$out/nosuspend" "$out/smallbuf" --html "$out/compare.html" \
    --color never >/dev/null
$ssdiq report "$out/default" --against ssd-iq --html "$out/against.html" --color never >/dev/null

bg check_html run "$out/default/report.html" 12 'Table 2: SSD performance'
bg check_html compare "$out/compare.html" 18 'Drives compared'
bg check_html against "$out/against.html" 18 'Micron 7450 PRO'
bg check_html sim "$out/sim.html" 2 'Write amplification against over-provisioning'
bg check_html store "$out/store.html" 2 'Write drilldown: bytes written per byte of user page writes'
bg check_html study-skew "$out/study-skew/study.html" 2 'WAF against Zipf skew'
bg check_html study-readonly "$out/study-readonly/study.html" 1 'WAF against the read-only share'
bg check_html study-gc-unit "$out/study-gc-unit/study.html" 1 'GC unit: 3MiB'
bg check_html study-latency-load "$out/study-latency-load/study.html" 2 'Read latency against write load'
bg check_html study-block-size "$out/study-block-size/study.html" 2 'Throughput against request size'
bg check_html study-queue-depth "$out/study-queue-depth/study.html" 2 'IOPS against queue depth'
bg check_html study-streams "$out/study-streams/study.html" 1 'WAF against the number of sequential streams'
bg check_html study-concurrency "$out/study-concurrency/study.html" 2 'Read throughput against concurrent jobs'
bg check_html study-empty-full "$out/study-empty-full/study.html" 2 'Throughput per test, empty and full drive'
bg check_html study-variance "$out/study-variance/study.html" 3 'WAF of each run'
bg check_html study-parallelism "$out/study-parallelism/study.html" 1 'Sequential read IOPS against queue depth'
bg check_html study-locality "$out/study-locality/study.html" 1 'Sequential and shuffled reads against read size'
bg check_html study-permuted "$out/study-permuted/study.html" 1 'Sequential, permuted and shuffled one-block reads'
bg check_html study-alignment "$out/study-alignment/study.html" 1 '1 MiB sequential reads against their offset'
bg check_html study-random-fill "$out/study-random-fill/study.html" 1 'Fill throughput against the share of the drive written'
bg check_html study-pts-iops "$out/study-pts-iops/study.html" 2 'Steady-state tracking: 4 KiB random-write IOPS per round'
bg check_html study-pts-throughput "$out/study-pts-throughput/study.html" 2 'Sequential throughput against block size'
bg check_html study-pts-latency "$out/study-pts-latency/study.html" 3 '99.999% response time against block size'
bg check_html study-pts-wsat "$out/study-pts-wsat/study.html" 1 'IOPS against the total written'
bg check_html study-pts-hir "$out/study-pts-hir/study.html" 2 'IOPS of each 5 s burst against time'
bg check_html study-pts-xsr "$out/study-pts-xsr/study.html" 1 'Write throughput against time, per phase'
bg check_html study-pts-dirth "$out/study-pts-dirth/study.html" 3 'IOPS against queue depth, per mix and thread count'
bg check_html study-write-over-time "$out/study-write-over-time/study.html" 1 'Sequential write throughput against the share of the drive written'
bg check_html study-data-dependence "$out/study-data-dependence/study.html" 1 'Sequential write throughput per data pattern'
# The I/O-scheduler study needs a block device: a loop device when this runs as root.
if [ "$(id -u)" = 0 ] && truncate -s 32M "$out/sched.img" && lo=$(losetup -f --show "$out/sched.img" 2>/dev/null); then
    $ssdiq study io-scheduler "$lo" --quick --quiet --out "$out/study-io-scheduler" >/dev/null
    losetup -d "$lo"
    bg check_html study-io-scheduler "$out/study-io-scheduler/study.html" 1 'Read throughput against request size, per I/O scheduler'
fi
wait_all
