#!/usr/bin/env bash
# ssdiq io vs fio on the same block device, for every engine and option both have: io_uring,
# io_uring with registered buffers and file, io_uring with a submission-queue polling thread,
# libaio and psync; 4 KiB random reads at QD1 and QD32 and random writes at QD32, one thread,
# O_DIRECT, both recording latency from submission to completion (psync: QD1 reads and writes,
# its only depth).
#
# The device is a loop device over a file in /dev/shm, so the numbers measure the I/O path's
# overhead (submission, completion, timestamping), not a drive. Polled completions (--hipri)
# and NVMe passthrough need an NVMe device with poll queues: .ci/extra/qemu-nvme.sh measures them
# in its guest.
#
# Each configuration runs REPS times, tools alternating; medians are compared: the IOPS ratio
# ssdiq/fio and, at QD1, the difference of the median latencies.
#
# Both tools run pinned to CPU $CPU (default 0; CPU= to not pin): on a small shared VM, unpinned
# runs of either tool flip between ~17 us and ~40 us QD1 medians depending on thread placement,
# which swamps the difference between the tools. Except sqpoll: its kernel thread inherits the
# pinning and then shares the one CPU with the submitter that spins on it (fio: 147 IOPS at
# QD1 so), so it runs unpinned.
#
# Usage: sudo bench/vs-fio.sh [CONFIG...]   (configs: uring uring-reg sqpoll libaio psync; all by
#        default; env: SIZE=1G TIME=5 REPS=5 CPU=0 SSDIQ=path/to/ssdiq)
set -euo pipefail

SIZE=${SIZE:-1G}
TIME=${TIME:-5}
REPS=${REPS:-5}
CPU=${CPU-0}
pin=()
if [ -n "$CPU" ]; then
    pin=(taskset -c "$CPU")
fi
cd "$(dirname "$0")/.."

all=(uring uring-reg sqpoll libaio psync)
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=("${all[@]}")
for c in "${configs[@]}"; do
    case " ${all[*]} " in
        *" $c "*) ;;
        *) echo "vs-fio: invalid config \"$c\": expected one of ${all[*]}" >&2; exit 2 ;;
    esac
done

if [ "$(id -u)" != 0 ]; then
    echo "vs-fio: needs root (losetup)" >&2
    exit 1
fi
if ! command -v fio >/dev/null; then
    echo "vs-fio: installing fio" >&2
    apt-get install -y fio >/dev/null
fi
if [ -z "${SSDIQ:-}" ]; then
    cargo build --release -p ssdiq >&2
    SSDIQ=target/release/ssdiq
fi

. bench/lib/shm-loop.sh

fio_opts() { # config
    case "$1" in
        uring) echo "--ioengine=io_uring" ;;
        uring-reg) echo "--ioengine=io_uring --fixedbufs=1 --registerfiles=1" ;;
        sqpoll) echo "--ioengine=io_uring --sqthread_poll=1" ;;
        libaio) echo "--ioengine=libaio" ;;
        psync) echo "--ioengine=psync" ;;
    esac
}
ssdiq_opts() { # config
    case "$1" in
        uring) echo "--engine io_uring" ;;
        uring-reg) echo "--engine io_uring --fixedbufs --registerfiles" ;;
        sqpoll) echo "--engine io_uring --sqpoll" ;;
        libaio) echo "--engine libaio" ;;
        psync) echo "--engine psync" ;;
    esac
}
workloads() { # config: rw:qd pairs
    if [ "$1" = psync ]; then echo "randread:1 randwrite:1"; else echo "randread:1 randread:32 randwrite:32"; fi
}

for c in "${configs[@]}"; do
    for w in $(workloads "$c"); do
        rw=${w%:*} qd=${w#*:}
        p=("${pin[@]}")
        [ "$c" = sqpoll ] && p=()
        for rep in $(seq 1 "$REPS"); do
            # shellcheck disable=SC2046
            "${p[@]}" fio --name=vsfio --filename="$dev" $(fio_opts "$c") --direct=1 --rw="$rw" \
                --bs=4k --iodepth="$qd" --numjobs=1 --time_based --runtime="$TIME" --norandommap \
                --randrepeat=0 --lat_percentiles=1 \
                --output-format=json --output="$work/fio-$c-$w-$rep.json" >/dev/null
            # shellcheck disable=SC2046
            "${p[@]}" "$SSDIQ" io "$dev" $(ssdiq_opts "$c") --rw "$rw" --bs 4k --qd "$qd" \
                --time "${TIME}s" --allow-destroy "$dev" --json "$work/ssdiq-$c-$w-$rep.json" >/dev/null
        done
    done
done

python3 bench/lib/vs-fio-table.py "$work" "$REPS" "${configs[@]}"
