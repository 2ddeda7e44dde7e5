#!/usr/bin/env bash
# Where the QD1 gap to fio goes (docs/engine.md, "A profile of the QD1 gap"): ssdiq io and fio,
# psync 4 KiB random reads at QD1 on a loop device over a file in /dev/shm (as bench/vs-fio.sh),
# both pinned to CPU $CPU, each run under `perf sched record`, tools alternating. For each run:
# its IOPS and median latency, then from `perf sched timehist`, per time the tool's I/O thread
# is switched in: the time it was off the CPU ("wait"), the part of that from its wakeup to its
# running ("sched delay": what the thread waits beyond the device once the loop worker has
# woken it), its run time; and how often CPU $CPU went idle per I/O (waking an idle vCPU is
# the slow path of that delay). Runs under perf are slower than without it, for both tools.
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

thread() { # perf.data, tool name: the tool's busiest thread on $CPU, and that CPU's idle entries
    perf sched timehist -i "$1" 2>/dev/null | awk -v cpu="[000$CPU]" -v tool="$2" '
        NR > 3 && NF >= 6 && $2 == cpu {
            name = $3; for (i = 4; i <= NF - 3; i++) name = name " " $i
            if (name == "<idle>") idle++
            else if (index(name, tool) == 1) {
                n[name]++; w[name] += $(NF - 2); d[name] += $(NF - 1); r[name] += $NF } }
        END {
            for (x in n) if (n[x] > best) { best = n[x]; top = x }
            printf "    %-22s %6d switch-ins: wait %.2f us, sched delay %.2f us, run %.2f us; CPU idle on %.0f%% of them\n",
                top, best, w[top] / best * 1000, d[top] / best * 1000, r[top] / best * 1000, 100 * idle / best }'
}
for r in $(seq 1 "$REPS"); do
    perf sched record -q -o "$work/s.data" -- taskset -c "$CPU" "$SSDIQ" io "$dev" --engine psync \
        --rw randread --bs 4k --time "${TIME}s" --json "$work/s.json" > /dev/null 2>&1
    python3 -c "
import json; d = json.load(open('$work/s.json'))['ops']['read']
print(f'ssdiq run $r: {d[\"iops\"]:,.0f} IOPS, p50 {d[\"lat_ns\"][\"p50\"] / 1000:.1f} us')" 2>/dev/null \
        || echo "ssdiq run $r: (no result)"
    thread "$work/s.data" ssdiq
    perf sched record -q -o "$work/f.data" -- taskset -c "$CPU" fio --name=qd1 --filename="$dev" \
        --direct=1 --ioengine=psync --rw=randread --bs=4k --time_based --runtime="$TIME" \
        --output-format=json --output="$work/f.json" > /dev/null 2>&1
    python3 -c "
import json; j = json.load(open('$work/f.json'))['jobs'][0]['read']
print(f'fio   run $r: {j[\"iops\"]:,.0f} IOPS, p50 {j[\"clat_ns\"][\"percentile\"][\"50.000000\"] / 1000:.1f} us')" 2>/dev/null \
        || echo "fio   run $r: (no result)"
    thread "$work/f.data" fio
done
