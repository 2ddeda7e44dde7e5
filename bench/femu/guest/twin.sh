# Runs in the FEMU guest for bench/femu/twin.sh: what `ssdiq fit` needs from the black-box SSD
# (`ssdiq run` and `study gc-unit`, their JSON printed base64 between BEGIN-FILE / END-FILE
# lines for the host to take), then the workloads the fit does not see, each the way the fit's
# predictions run them on a twin: every LBA discarded (patch 0002 unmaps), a sequential fill,
# two drive writes of 4 KiB random writes of the pattern at QD 32, then four more drive writes
# measured (until 2026-12-01 one: the fit's predictions measured one then). Prints "unseen
# PATTERN WAF X IOPS Y" per pattern (WAF from the counters of patch 0001). RUN_ARGS (in /femu.env) are `ssdiq run`'s extra options, or "none" to run only the
# patterns; UNSEEN the patterns.
. /femu.env
D=/dev/nvme0n1
fail=0
emit() { # name file
    echo "BEGIN-FILE $1"
    base64 "$2"
    echo "END-FILE $1"
}
if [ "$RUN_ARGS" != none ]; then
echo "== ssdiq run $RUN_ARGS"
# shellcheck disable=SC2086
if ssdiq run "$D" $RUN_ARGS --allow-destroy "$D" --out /tmp/run --quiet 2> /tmp/err; then
    emit run.json /tmp/run/run.json
else
    fail=1; tail -5 /tmp/err
fi
echo "== ssdiq study gc-unit --quick"
if ssdiq study gc-unit "$D" --quick --allow-destroy "$D" --out /tmp/gcu --quiet 2> /tmp/err; then
    emit gc-unit.json /tmp/gcu/study.json
else
    fail=1; tail -5 /tmp/err
fi
fi
io() { ssdiq io "$D" --allow-destroy "$D" "$@" > /tmp/out 2> /tmp/err || { fail=1; tail -3 /tmp/err; return 1; }; }
for pattern in $UNSEEN; do
    echo "== $pattern"
    io --rw trim --bs 1M --qd 8 || continue
    io --rw write --bs 128k --qd 8 || continue
    warm=1
    for k in 1 2; do
        io --rw randwrite --pattern "$pattern" --bs 4k --qd 32 --io-size "${FEMU_MB}MiB" --seed "$k" || { warm=0; break; }
    done
    # A drive the warm-up did not reach has no steady figure to print.
    [ "$warm" = 1 ] || continue
    io --rw randwrite --pattern "$pattern" --bs 4k --qd 32 --io-size "$((4 * FEMU_MB))MiB" --seed 3 || continue
    w=$(sed -n 's/^measured WAF: \([0-9.]*\).*/\1/p' /tmp/out)
    iops=$(awk '$1 == "write" { print $2 }' /tmp/out)
    echo "unseen $pattern WAF ${w:-none} IOPS ${iops:-none}"
done
exit $fail
