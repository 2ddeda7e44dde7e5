# Runs in the FEMU guest (bench/femu/run-guest.sh): `ssdiq study gc-unit` (SSD-iq's ZNS-like
# sweep: zones written whole, trimmed whole, rewritten in random order) on the black-box SSD,
# whose GC unit is a line: one block of every die, FEMU_LINE_KIB in /femu.env. Prints the unit
# the study found beside the line.
. /femu.env
D=/dev/nvme0n1
fail=0
ssdiq study gc-unit "$D" --quick --allow-destroy "$D" --out /tmp/gcu 2> /tmp/err \
    || { fail=1; tail -5 /tmp/err; }
echo "== points"
cat /tmp/gcu/points.csv
unit=$(grep -o '"gc_unit_bytes": [0-9]*' /tmp/gcu/study.json 2>/dev/null | head -1 | sed 's/.*: //')
echo "gc-unit: found ${unit:-none} bytes; FEMU's line $((FEMU_LINE_KIB * 1024)) bytes"
exit $fail
