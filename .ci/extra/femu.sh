#!/usr/bin/env bash
# FEMU's black-box SSD, an FTL ssdiq did not write (docs/femu.md): FEMU built once per machine
# from its source archive with our patches (bench/femu/build.sh, cached outside the clone), one
# boot of a 512 MiB device, a full fill and 60 s of random writes; the guest checks that the OCP
# counter's WAF is above 1.5 and that write IOPS fall once GC runs
# (bench/femu/guest/ci-check.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(ls ../shared/femu/femu-*.tar.xz 2>/dev/null | head -1 || true)
if [ -z "$src" ]; then
    echo "femu: no FEMU source archive at ../shared/femu/femu-*.tar.xz on this machine" >&2
    exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
FEMU_SRC=$src FEMU_MB=512 TIMEOUT=900 bash bench/femu/run-guest.sh bench/femu/guest/ci-check.sh \
    2>&1 | tee "$log" | grep -a 'CHECK\|femu:' || true
grep -aq 'CHECK FAILED' "$log" && { echo "femu: a check failed" >&2; exit 1; }
n=$(grep -ac 'CHECK ok' "$log" || true)
[ "$n" = 2 ] || { echo "femu: $n of 2 checks passed (see the guest's output above)" >&2; tail -30 "$log" >&2; exit 1; }
echo "femu: ok (2 checks passed in the guest)"
