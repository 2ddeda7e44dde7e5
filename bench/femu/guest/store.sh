# Runs in the FEMU guest for bench/femu/store.sh: `ssdiq store --rows ROWS` (the page store of
# "How to Write to SSDs": DB WAF, SSD WAF from the device's counters, total WAF) on the
# black-box SSD, zones aligned to FEMU's line (FEMU_LINE_KIB) where a row aligns them; the
# result's JSON printed base64 between BEGIN-FILE / END-FILE lines for the host. STORE_ROWS
# and STORE_ARGS (in /femu.env) pick the rows and further options.
. /femu.env
D=/dev/nvme0n1
fail=0
# shellcheck disable=SC2086
if ssdiq store "$D" --rows "${STORE_ROWS:-table1}" --align-gc-unit "${FEMU_LINE_KIB}KiB" \
    $STORE_ARGS --allow-destroy "$D" --json /tmp/store.json --quiet > /tmp/out 2> /tmp/err; then
    cat /tmp/out
    echo "BEGIN-FILE store.json"
    base64 /tmp/store.json
    echo "END-FILE store.json"
else
    fail=1; cat /tmp/out; tail -5 /tmp/err
fi
exit $fail
