# Runs in the FEMU guest (bench/femu/run-guest.sh): the SMART host-write and OCP media-write
# counters (bench/femu/patches/0001) through a sequential fill and 60 s of 4 KiB random writes:
# the fill's WA is 1, the random writes' above 1 once GC runs.
D=/dev/nvme0n1
fail=0
run() { "$@" 2> /tmp/err || { fail=1; tail -3 /tmp/err; }; }
echo "== ssdiq info $D"
run ssdiq info "$D"
echo "== sequential fill"
run ssdiq io "$D" --rw write --bs 128k --qd 8 --allow-destroy "$D"
echo "== random writes, 60 s"
run ssdiq io "$D" --rw randwrite --bs 4k --qd 32 --time 60s --allow-destroy "$D"
echo "== ssdiq info $D"
run ssdiq info "$D"
exit $fail
