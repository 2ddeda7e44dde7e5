# Runs in the FEMU guest (bench/femu/run-guest.sh): the whole SSD-iq protocol, `ssdiq run
# --quick`, on the black-box SSD (reset by Format NVM and a discard of every LBA: patches 0002
# and 0003), then its report: how it was reset, Tables 2 and 3, measured and implied WA.
D=/dev/nvme0n1
fail=0
ssdiq run "$D" --quick --allow-destroy "$D" --out /tmp/run --quiet 2> /tmp/err \
    || { fail=1; tail -5 /tmp/err; }
sed -n '1,/^Spec:/p' /tmp/run/report.md 2>/dev/null
sed -n '/^### Table 3/,$p' /tmp/run/report.md 2>/dev/null | head -30
exit $fail
