# Runs in the FEMU guest (bench/femu/run-guest.sh): the device's identity, a full sequential
# fill, then 4 KiB random writes at QD 32 with their IOPS per second: GC shows as a drop once
# the free lines fall below the GC threshold.
. /femu.env
D=/dev/nvme0n1
fail=0
echo "== ssdiq info $D"
ssdiq info "$D" || fail=1
# The console is a terminal: the progress line would flood the log, so stderr goes to a file,
# printed when a command fails.
run() { "$@" 2> /tmp/err || { fail=1; tail -3 /tmp/err; }; }
echo "== sequential fill"
run ssdiq io "$D" --rw write --bs 128k --qd 8 --allow-destroy "$D" --json /tmp/fill.json
echo "== random writes, 90 s"
run ssdiq io "$D" --rw randwrite --bs 4k --qd 32 --time 90s --allow-destroy "$D" \
    --json /tmp/rw.json --log /tmp/rw.csv
echo "== IOPS per second"
awk -F, '$2 == "write" { printf "s%s %s\n", $1, int($5) }' /tmp/rw.csv | tr '\n' ' '
echo
exit $fail
