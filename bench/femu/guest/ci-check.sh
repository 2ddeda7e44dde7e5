# Runs in the FEMU guest (bench/femu/run-guest.sh) for CI's FEMU check (.ci/extra/femu.sh): a
# full sequential fill, then 60 s of 4 KiB random writes at QD 32. Passes when the OCP
# counter's WAF over the random writes is above 1.5 (GC copied valid pages: FEMU's greedy GC
# at OP 0.25 is near 3.4, bench/femu/waf.sh) and the write IOPS of the last 20 s are below
# two thirds of the first 3 s (GC started after the free lines ran out: docs/femu.md).
D=/dev/nvme0n1
fail=0
ok()  { echo "CHECK ok: $*"; }
bad() { echo "CHECK FAILED: $*"; fail=1; }
run() { "$@" 2> /tmp/err || { bad "$*: $(tail -3 /tmp/err)"; }; }
echo "== sequential fill"
run ssdiq io "$D" --rw write --bs 128k --qd 8 --allow-destroy "$D"
echo "== random writes, 60 s"
run ssdiq io "$D" --rw randwrite --bs 4k --qd 32 --time 60s --allow-destroy "$D" \
    --json /tmp/rw.json --log /tmp/rw.csv
waf=$(grep -o '"waf": [0-9.]*' /tmp/rw.json | head -1 | sed 's/.*: //')
if [ -n "$waf" ] && awk -v w="$waf" 'BEGIN { exit !(w > 1.5) }'; then
    ok "random writes' WAF from the OCP counter: $waf (above 1.5)"
else
    bad "random writes' WAF from the OCP counter: '$waf' (expected above 1.5)"
fi
awk -F, '$2 == "write" { printf "s%s %s\n", $1, int($5) }' /tmp/rw.csv | tr '\n' ' '
echo
drop=$(awk -F, '$2 == "write" { n++; iops[n] = $5 }
    END {
        if (n < 30) { print "none"; exit }
        for (i = 1; i <= 3; i++) a += iops[i]
        for (i = n - 19; i <= n; i++) b += iops[i]
        printf "%.0f %.0f\n", a / 3, b / 20
    }' /tmp/rw.csv)
set -- $drop
if [ $# = 2 ] && [ $((3 * $2)) -lt $((2 * $1)) ]; then
    ok "write IOPS fell from $1 (first 3 s) to $2 (last 20 s) once GC ran"
else
    bad "write IOPS: first 3 s and last 20 s '$drop' (expected a fall by a third)"
fi
exit $fail
