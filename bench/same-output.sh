#!/usr/bin/env bash
# Proves a change leaves the CLI's outputs as they were: runs the same commands with this
# checkout's binary and with BASE's (a git revision, built in a temporary worktree), masks
# wall-clock times (the only thing that may differ), and diffs every file they write.
#   bench/same-output.sh BASE [TARGET=emu:default]
# Commands: a quick run, a sim sweep, three studies (a sweep, a band, dot charts), the store rows of Table 1 and a bad row, trace stats, info (text and JSON),
# and a 70/30 io job with a read probe. Exit status 1 and the diff when anything differs.
set -euo pipefail
base=${1:?usage: bench/same-output.sh BASE [TARGET]}
target=${2:-emu:default}
. "$(dirname "$0")/lib/base-build.sh"
echo "building $base and this checkout (a few minutes the first time)..." >&2
base_build "$base"
here=$(pwd)
trace=$tmp/trace.blkparse
# A small blkparse trace: 2000 requests, writes and reads over 64 MiB, fixed.
awk 'BEGIN { srand(7); for (i = 0; i < 2000; i++) {
    t = i * 0.001; op = (rand() < 0.7) ? "W" : "R"; s = int(rand() * 131072) * 8;
    printf "  8,0    0 %8d %14.9f  1234  D  %s %d + 8 [fio]\n", i + 1, t, op, s } }' > "$trace"
run_all() {
    local bin=$1 out=$2
    mkdir -p "$out"
    cd "$out"
    "$bin" run "$target" --quick --out run > run.txt 2>&1
    "$bin" sim --capacity 1GiB --block 4MiB --gc greedy,2r-fifo --pattern uniform,zipf:0.8 \
        --writes 2x --json sim.json --csv sim.csv --html sim.html > sim.txt 2>&1
    for study in skew gc-unit random-fill; do
        "$bin" study "$study" "$target,capacity=1GiB" --quick --out "study-$study" > "study-$study.txt" 2>&1
    done
    "$bin" store "$target,capacity=1GiB" --rows table1 --data model --warmup 0.2 --measure 0.2 \
        --json store.json --html store.html > store.txt 2>&1
    "$bin" store "$target" --rows table1,bogus > store-bad-row.txt 2>&1 || true
    "$bin" trace stats "$trace" > trace.txt 2>&1
    "$bin" info "$target" > info.txt 2>&1
    "$bin" info "$target" --json info.json > info-json.txt 2>&1
    "$bin" io "$target,capacity=1GiB" --rw randrw:70 --bs 4k --qd 16 --fill seq --time 2s \
        --probe read --json io.json > io.txt 2>&1
    cd "$here"
}
run_all "$base_bin" "$tmp/out-base"
run_all "$here/target/release/ssdiq" "$tmp/out-this"
mask() {
    # sim documents time their runs on the wall clock ("seconds"; the table's last column);
    # its progress lines ("[N] ...") come in the order its threads finish, so they are dropped.
    sed -E 's/"wall_s": ?[0-9.e+-]+/"wall_s": W/g;
            s/[0-9]+(\.[0-9]+)? s wall/W s wall/g;
            s/"([a-z_]*)(wall|cpu)_s": ?[0-9.e+-]+/"\1\2_s": W/g;
            s/[0-9]+(\.[0-9]+)? (s|ms) wall-clock/W wall-clock/g' |
        if [ "$1" = sim ]; then
            sed -E '/^\[[0-9]+\] /d; s/"seconds": ?[0-9.e+-]+/"seconds": W/g; s/^( +[0-9]+ .*) +[0-9]+\.[0-9]+$/\1 W/'
        else cat; fi
}
status=0
differ=0
while IFS= read -r f; do
    rel=${f#"$tmp/out-base/"}
    if [ ! -f "$tmp/out-this/$rel" ]; then
        echo "missing in this checkout: $rel"
        status=1
        continue
    fi
    kind=other
    case $rel in sim.*) kind=sim ;; esac
    if ! diff -q <(mask $kind < "$f") <(mask $kind < "$tmp/out-this/$rel") > /dev/null; then
        echo "differs: $rel (< $base, > this checkout)"
        diff <(mask $kind < "$f") <(mask $kind < "$tmp/out-this/$rel") |
            grep '^[<>]' | head -6 | cut -c1-200 || true
        status=1
        differ=$((differ + 1))
    fi
done < <(find "$tmp/out-base" -type f | sort)
n=$(find "$tmp/out-base" -type f | wc -l)
if [ "$status" = 0 ]; then
    echo "same: all $n files identical but for wall-clock times ($base against this checkout, $target)"
else
    echo "$differ of $n files differ ($base against this checkout, $target)"
fi
exit "$status"
