#!/usr/bin/env bash
# Where the QD1 gap to fio goes (docs/engine.md, "A profile of the QD1 gap"): ssdiq io and fio,
# psync 4 KiB random reads at QD1 on a loop device over a file in /dev/shm (as bench/vs-fio.sh),
# both pinned to CPU $CPU, each run under `perf sched record`, tools alternating. For each run:
# its IOPS and median latency, then from `perf sched latency` the tasks that switched most: run
# time, context switches, and the scheduling delay (from a task's wakeup to its running: what
# a thread blocked in pread waits beyond the device once the loop worker has woken it).
# Usage: sudo bench/qd1-sched.sh   (env: SIZE=1G TIME=4 REPS=3 CPU=0 SSDIQ=path/to/ssdiq)
set -euo pipefail
SIZE=${SIZE:-1G}
TIME=${TIME:-4}
REPS=${REPS:-3}
CPU=${CPU:-0}
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
    echo "qd1-sched: needs root (losetup, perf sched)" >&2
    exit 1
fi
command -v fio >/dev/null || apt-get install -y fio >/dev/null
command -v perf >/dev/null || { echo "qd1-sched: needs perf" >&2; exit 1; }
if [ -z "${SSDIQ:-}" ]; then
    cargo build --release -q -p ssdiq >&2
    SSDIQ=target/release/ssdiq
fi
. bench/lib/shm-loop.sh

tasks() { # perf.data: the five tasks with most switches
    perf sched latency -i "$1" 2>/dev/null | awk -F'|' '/ms \|/ && !/TOTAL/ {
        gsub(/ +/, " ", $1); gsub(/ ms/, "", $2); gsub(/avg: | ms/, "", $4); gsub(/max: | ms/, "", $5)
        printf "%s|%s|%s|%s|%s\n", $3 + 0, $1, $2 + 0, $4 + 0, $5 + 0 }' \
        | sort -t'|' -k1,1nr | head -5 \
        | awk -F'|' '{ printf "    %-28s run %8.1f ms, %7d switches, sched delay avg %.3f ms, max %.3f ms\n", $2, $3, $1, $4, $5 }'
}
for r in $(seq 1 "$REPS"); do
    perf sched record -q -o "$work/s.data" -- taskset -c "$CPU" "$SSDIQ" io "$dev" --engine psync \
        --rw randread --bs 4k --time "${TIME}s" --json "$work/s.json" > /dev/null 2>&1
    python3 -c "
import json; d = json.load(open('$work/s.json'))['ops']['read']
print(f'ssdiq run $r: {d[\"iops\"]:,.0f} IOPS, p50 {d[\"lat_ns\"][\"p50\"] / 1000:.1f} us')" 2>/dev/null \
        || echo "ssdiq run $r: (no result)"
    tasks "$work/s.data"
    perf sched record -q -o "$work/f.data" -- taskset -c "$CPU" fio --name=qd1 --filename="$dev" \
        --direct=1 --ioengine=psync --rw=randread --bs=4k --time_based --runtime="$TIME" \
        --output-format=json --output="$work/f.json" > /dev/null 2>&1
    python3 -c "
import json; j = json.load(open('$work/f.json'))['jobs'][0]['read']
print(f'fio   run $r: {j[\"iops\"]:,.0f} IOPS, p50 {j[\"clat_ns\"][\"percentile\"][\"50.000000\"] / 1000:.1f} us')" 2>/dev/null \
        || echo "fio   run $r: (no result)"
    tasks "$work/f.data"
done
