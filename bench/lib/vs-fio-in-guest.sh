# Runs in the QEMU NVMe guest (bench/vs-fio-guest.sh boots it through .ci/extra/qemu-nvme.sh):
# ssdiq io and fio, alternating, on the 64 MiB "suite" namespace, for the engines and options
# that need NVMe: io_uring polled (hipri) on the block device, NVMe passthrough on the generic
# char device (fio's io_uring_cmd), passthrough polled, and plain io_uring as the reference.
# Each result JSON is printed between "@@JSON NAME" and "@@END" for the host to collect.
# TIME and REPS come from the line the host puts first.
RUN=
for b in /sys/block/nvme*n*; do
    n=${b##*/}
    case $n in nvme*c*n*) continue ;; esac
    [ "$(cat "$b/device/serial" | tr -d ' ')" = suite ] && RUN=/dev/$n
done
[ -n "$RUN" ] || { echo "no namespace with serial suite"; echo SSDIQ-GUEST-FAILED; exit 1; }
NG=/dev/ng${RUN#/dev/nvme}
fail=0
# Random data everywhere, so reads never hit unwritten blocks.
ssdiq io "$RUN" --rw write --bs 1M --qd 4 --allow-destroy "$RUN" > /dev/null 2>&1 || fail=1

emit() { # name file
    echo "@@JSON $1"
    cat "$2"
    echo "@@END"
}
for c in uring hipri uring-cmd uring-cmd-hipri; do
    case $c in
        # fio refuses direct=1 on a char device; passthrough never passes the page cache.
        uring) dev=$RUN; f="--ioengine=io_uring --direct=1"; s="--engine io_uring" ;;
        hipri) dev=$RUN; f="--ioengine=io_uring --direct=1 --hipri=1"; s="--engine io_uring --hipri" ;;
        uring-cmd) dev=$NG; f="--ioengine=io_uring_cmd --cmd_type=nvme"; s="--engine uring-cmd" ;;
        uring-cmd-hipri) dev=$NG; f="--ioengine=io_uring_cmd --cmd_type=nvme --hipri=1"; s="--engine uring-cmd --hipri" ;;
    esac
    for w in randread:1 randread:32 randwrite:32; do
        rw=${w%:*} qd=${w#*:}
        rep=1
        while [ $rep -le "$REPS" ]; do
            fio --name=vsfio --filename="$dev" $f --rw="$rw" --bs=4k --iodepth="$qd" \
                --numjobs=1 --time_based --runtime="$TIME" --norandommap --randrepeat=0 \
                --lat_percentiles=1 --output-format=json --output=/tmp/fio.json > /tmp/fio.txt 2>&1 \
                || { fail=1; echo "fio $c $w: $(tail -3 /tmp/fio.txt)"; }
            emit "fio-$c-$w-$rep" /tmp/fio.json
            rm -f /tmp/ssdiq.json
            ssdiq io "$dev" $s --rw "$rw" --bs 4k --qd "$qd" --time "${TIME}s" \
                --allow-destroy "$dev" --json /tmp/ssdiq.json > /tmp/ssdiq.txt 2>&1 \
                || { fail=1; echo "ssdiq $c $w: $(tail -3 /tmp/ssdiq.txt)"; }
            emit "ssdiq-$c-$w-$rep" /tmp/ssdiq.json
            rep=$((rep + 1))
        done
    done
done
if [ $fail = 0 ]; then echo SSDIQ-GUEST-OK; else echo SSDIQ-GUEST-FAILED; fi
exit $fail
