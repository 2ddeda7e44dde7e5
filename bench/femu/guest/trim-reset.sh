# Runs in the FEMU guest (bench/femu/run-guest.sh): deallocate unmaps (bench/femu/patches/0002).
# After a fill, a discard of the whole drive, then 30 s of 4 KiB random writes: GC finds only
# invalid pages, so the writes' WAF stays near 1 (without the patch: about 3.4, as on a full
# drive).
D=/dev/nvme0n1
fail=0
run() { "$@" 2> /tmp/err || { fail=1; tail -3 /tmp/err; }; }
echo "== sequential fill"
run ssdiq io "$D" --rw write --bs 128k --qd 8 --allow-destroy "$D"
echo "== discard the whole drive"
run ssdiq io "$D" --rw trim --bs 1M --allow-destroy "$D"
echo "== random writes, 30 s"
run ssdiq io "$D" --rw randwrite --bs 4k --qd 32 --time 30s --allow-destroy "$D"
exit $fail
