# Runs in the FEMU guest (bench/femu/run-guest.sh): a sequential fill, then uniform 4 KiB random
# writes in rounds of one drive write each (QD 32), each round's WAF from the device's SMART host
# and OCP media counters (bench/femu/patches/0001). Prints "round K WAF X" per round. Each round
# draws its own offsets (--seed K): one seed for every round would write the same LBAs each
# time, and the third of the drive the first round missed would turn into cold data.
. /femu.env
D=/dev/nvme0n1
fail=0
echo "== sequential fill"
ssdiq io "$D" --rw write --bs 128k --qd 8 --allow-destroy "$D" > /tmp/out 2> /tmp/err \
    || { fail=1; tail -3 /tmp/err; }
for k in 1 2 3 4 5 6; do
    ssdiq io "$D" --rw randwrite --bs 4k --qd 32 --io-size "${FEMU_MB}MiB" --seed "$k" --allow-destroy "$D" \
        > /tmp/out 2> /tmp/err || { fail=1; tail -3 /tmp/err; break; }
    w=$(sed -n 's/^measured WAF: \([0-9.]*\).*/\1/p' /tmp/out)
    iops=$(awk '$1 == "write" { print $2 }' /tmp/out)
    echo "round $k WAF ${w:-none} IOPS ${iops:-none}"
done
exit $fail
