#!/usr/bin/env bash
# ssdiq io vs fio for what needs an NVMe drive: io_uring with polled completions (--hipri /
# fio's hipri) and NVMe passthrough on the generic char device (--engine uring-cmd / fio's
# io_uring_cmd), with and without polling, and plain io_uring as the reference; 4 KiB random
# reads at QD1 and QD32 and random writes at QD32, in the QEMU NVMe guest of
# .ci/extra/qemu-nvme.sh (TCG, no KVM: both tools share one emulated CPU budget, so the
# numbers compare the tools' paths, not a drive). Runs alternate, REPS each; the table
# (bench/lib/vs-fio-table.py) gives median IOPS, ssdiq/fio and median p50 latencies.
#
# Usage: sudo bench/vs-fio-guest.sh   (env: TIME=5 seconds per run, REPS=3)
set -euo pipefail
cd "$(dirname "$0")/.."
TIME=${TIME:-5}
REPS=${REPS:-3}
for v in TIME REPS; do
    case "${!v}" in
        ''|*[!0-9]*|0) echo "vs-fio-guest: invalid $v \"${!v}\": expected a positive whole number" >&2; exit 2 ;;
    esac
done
if [ "$(id -u)" != 0 ]; then
    echo "vs-fio-guest: needs root (apt, as .ci/extra/qemu-nvme.sh)" >&2
    exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{ echo "TIME=$TIME REPS=$REPS"; cat bench/lib/vs-fio-in-guest.sh; } > "$work/guest.sh"
QEMU_GUEST=$work/guest.sh QEMU_GUEST_FIO=1 QEMU_TIMEOUT=$((TIME * REPS * 24 * 3 + 600)) \
    bash .ci/extra/qemu-nvme.sh > "$work/qemu.out" 2>&1 \
    || { tail -30 "$work/qemu.out" >&2; exit 1; }
python3 - target/qemu-nvme/serial.log "$work" <<'PY'
import re, sys
log, work = sys.argv[1], sys.argv[2]
text = open(log, errors="replace").read().replace("\r", "")
# A marker may follow the console's escape codes on its line.
for name, body in re.findall(r"@@JSON (\S+)\n(.*?)^@@END$", text, re.S | re.M):
    open(f"{work}/{name}.json", "w").write(body)
PY
python3 bench/lib/vs-fio-table.py "$work" "$REPS" uring hipri uring-cmd uring-cmd-hipri
