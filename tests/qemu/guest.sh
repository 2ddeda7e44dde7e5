# Runs inside the QEMU guest: ssdiq info and writes on the OCP+FDP namespace, then the nvme
# crate's hardware tests. Prints SSDIQ-GUEST-OK only if every check passed.
fail=0
ok()  { echo "CHECK ok: $*"; }
bad() { echo "CHECK FAILED: $*"; fail=1; }

echo "guest kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpus"
ls -l /dev/nvme* /dev/ng* 2>&1

# Find the namespaces by controller serial, not by enumeration order.
DEV= ; ZNS= ; RUN=
for b in /sys/block/nvme*n*; do
    n=${b##*/}
    case $n in nvme*c*n*) continue ;; esac   # hidden multipath path devices
    s=$(cat "$b/device/serial" 2>/dev/null | tr -d ' ')
    echo "namespace $n: serial '$s', zoned $(cat "$b/queue/zoned")"
    case $s in
        fdpocp) DEV=/dev/$n ;;
        zns) ZNS=/dev/$n ;;
        suite) RUN=/dev/$n ;;
    esac
done
[ -n "$DEV" ] && ok "OCP+FDP namespace is $DEV" || bad "no namespace with serial fdpocp"
[ -n "$ZNS" ] && ok "zoned namespace is $ZNS" || bad "no namespace with serial zns"
[ -n "$RUN" ] && ok "suite namespace is $RUN" || bad "no namespace with serial suite"

# Sum of the write counters in an info JSON: "<host> <media>".
counters() {
    awk '/"write_counters"/ {f = 1}
         f && /"host_bytes_written"/ {gsub(/[^0-9]/, ""); h = $0}
         f && /"media_bytes_written"/ {gsub(/[^0-9]/, ""); m = $0; print h, m; exit}' "$1"
}

if [ -n "$DEV" ]; then
    echo "== ssdiq info $DEV"
    ssdiq info "$DEV" --json /tmp/info0.json > /tmp/info0.txt; rc=$?
    cat /tmp/info0.txt
    [ $rc = 0 ] && ok "ssdiq info exit 0" || bad "ssdiq info exit $rc"
    grep -q 'model  *QEMU NVMe Ctrl' /tmp/info0.txt && ok "model shown" || bad "model missing"
    grep -q 'media written' /tmp/info0.txt && ok "OCP media counters shown" || bad "OCP counters missing"
    grep -q 'status  *supported, enabled' /tmp/info0.txt && ok "FDP enabled shown" || bad "FDP status missing"
    grep -q 'sanitize not supported' /tmp/info0.txt && ok "sanitize unsupported shown" || bad "sanitize line"
    grep -q '"kind": "info"' /tmp/info0.json && ok "JSON document written" || bad "JSON missing"

    # 16 MiB through the block layer (page cache + fsync), then the counters again.
    set -- $(counters /tmp/info0.json); h0=$1; m0=$2
    dd if=/dev/urandom of="$DEV" bs=1048576 count=16 seek=700 conv=fsync 2>&1 | tail -1
    ssdiq info "$DEV" --json /tmp/info1.json > /dev/null || bad "second ssdiq info"
    set -- $(counters /tmp/info1.json); h1=$1; m1=$2
    dh=$((h1 - h0)); dm=$((m1 - m0)); want=16777216
    echo "dd wrote $want bytes: SMART host bytes +$dh, OCP media bytes +$dm"
    [ $dh -gt $((want - 512000)) ] && [ $dh -lt $((want + 512000)) ] \
        && ok "SMART data units written grew by the 16 MiB written (+$dh bytes)" \
        || bad "SMART host bytes grew by $dh, expected ~$want"
    [ $dm -ge $want ] && [ $dm -lt $((want + 1048576)) ] \
        && ok "OCP media bytes grew by the 16 MiB written (+$dm bytes)" \
        || bad "OCP media bytes grew by $dm, expected ~$want"

    # OPTIONAL: the I/O engine (`ssdiq io`), only once it is real (its --help lists --rw).
    # A usage error (exit 2) means the options below no longer match: reported, not failed.
    if ssdiq io --help 2>/dev/null | grep -qE '^ +--rw'; then
        echo "== OPTIONAL ssdiq io on $DEV"
        extra=
        ssdiq io --help | grep -q -- '--allow-destroy' && extra="--allow-destroy $DEV"
        ssdiq io "$DEV" --rw write --pattern seq --bs 128k --size 8M $extra; rc=$?
        if [ $rc = 0 ]; then
            ssdiq info "$DEV" --json /tmp/info2.json > /dev/null
            set -- $(counters /tmp/info2.json); m2=$2
            [ $((m2 - m1)) -ge 8388608 ] && ok "ssdiq io: OCP media bytes +$((m2 - m1))" \
                || bad "ssdiq io wrote, but media bytes grew by $((m2 - m1))"
        elif [ $rc = 2 ]; then
            echo "WARNING: ssdiq io rejected the options of this optional step; update tests/qemu/guest.sh"
        else
            bad "ssdiq io exit $rc"
        fi
    else
        echo "== OPTIONAL ssdiq io: skipped (the engine is not built yet)"
    fi
fi

if [ -n "$ZNS" ]; then
    echo "== ssdiq info $ZNS"
    ssdiq info "$ZNS" > /tmp/zns.txt; rc=$?
    cat /tmp/zns.txt
    [ $rc = 0 ] && ok "ssdiq info on the zoned namespace" || bad "ssdiq info $ZNS exit $rc"
    grep -q 'zoned  *host-managed' /tmp/zns.txt && ok "zoned shown" || bad "zoned missing"
    grep -A1 'OCP C0h' /tmp/zns.txt | grep -q 'not reported by this drive' \
        && ok "no OCP log: 'not reported by this drive'" || bad "OCP absence not reported"
fi

ssdiq info emu:default > /tmp/emu.txt 2> /tmp/emu.err; rc=$?
[ $rc = 0 ] && grep -q 'emulated' /tmp/emu.txt && ok "ssdiq info on an emulated drive" \
    || bad "ssdiq info emu:default: exit $rc $(cat /tmp/emu.err)"

# The engines and io_uring options on an NVMe namespace (the guest boots with
# nvme.poll_queues=2, so --hipri has poll queues to use); before the run, which resets it.
if [ -n "$RUN" ]; then
    echo "== ssdiq io engines and options on $RUN"
    n=${RUN#/dev/}
    [ "$(cat /sys/block/$n/queue/io_poll 2>/dev/null)" = 1 ] \
        && ok "poll queues on $RUN (queue/io_poll 1)" || bad "no poll queues on $RUN"
    for opts in "--hipri" "--hipri --fixedbufs --registerfiles" "--engine libaio" "--sqpoll"; do
        for rw in randwrite randread; do
            ssdiq io "$RUN" --rw $rw --bs 4k --qd 8 --size 8M $opts --allow-destroy "$RUN" \
                --json /tmp/engine.json > /tmp/engine.txt 2>&1; rc=$?
            if [ $rc = 0 ] && grep -q '"ios": 2048' /tmp/engine.json; then
                ok "ssdiq io --rw $rw $opts: 2048 I/Os"
            else
                bad "ssdiq io --rw $rw $opts: exit $rc: $(tail -3 /tmp/engine.txt)"
            fi
        done
    done
fi

# NVMe passthrough (--engine uring-cmd) on the generic char devices: reads and writes with
# io_uring's options, a verified round trip that the block device reads back the same, a
# write with an FDP placement handle, and the refusals of a mismatched engine and target.
if [ -n "$RUN" ]; then
    NG=/dev/ng${RUN#/dev/nvme}
    echo "== ssdiq io --engine uring-cmd on $NG"
    for opts in "" "--hipri" "--fixedbufs --registerfiles" "--sqpoll"; do
        for rw in randwrite randread; do
            ssdiq io "$NG" --engine uring-cmd --rw $rw --bs 4k --qd 8 --size 8M $opts \
                --allow-destroy "$NG" --json /tmp/cmd.json > /tmp/cmd.txt 2>&1; rc=$?
            if [ $rc = 0 ] && grep -q '"ios": 2048' /tmp/cmd.json; then
                ok "ssdiq io --engine uring-cmd --rw $rw $opts: 2048 I/Os"
            else
                bad "ssdiq io --engine uring-cmd --rw $rw $opts: exit $rc: $(tail -3 /tmp/cmd.txt)"
            fi
        done
    done
    ssdiq io "$NG" --engine uring-cmd --rw write --bs 16k --size 8M --qd 8 --verify \
        --allow-destroy "$NG" --json /tmp/cmd.json > /tmp/cmd.txt 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q '"mismatches": 0' /tmp/cmd.json && grep -q '"read_back": 512' /tmp/cmd.json; then
        ok "ssdiq io --engine uring-cmd --verify: 512 blocks read back, 0 mismatches"
    else
        bad "ssdiq io --engine uring-cmd --verify: exit $rc: $(tail -2 /tmp/cmd.txt)"
    fi
    ssdiq io "$RUN" --rw read --bs 16k --size 8M --qd 8 --verify --json /tmp/cmd.json \
        > /tmp/cmd.txt 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q '"mismatches": 0' /tmp/cmd.json; then
        ok "the block device reads back what passthrough wrote (0 mismatches)"
    else
        bad "verifying read of $RUN after passthrough writes: exit $rc: $(tail -2 /tmp/cmd.txt)"
    fi
    ssdiq io "$NG" --rw read --bs 4k --size 8M > /tmp/cmd.txt 2>&1; rc=$?
    [ $rc = 2 ] && grep -q 'takes NVMe commands only' /tmp/cmd.txt \
        && ok "io_uring on $NG refused (exit 2)" || bad "io_uring on $NG: exit $rc: $(tail -1 /tmp/cmd.txt)"
    # Requests larger than one command carries (MDTS, at most 256 KiB) go as several,
    # each with its own registered piece of the buffer.
    echo "max_hw_sectors_kb of $RUN: $(cat /sys/block/${RUN#/dev/}/queue/max_hw_sectors_kb 2>/dev/null)"
    ssdiq io "$NG" --engine uring-cmd --rw write --bs 1m --size 16M --qd 4 --fixedbufs --verify \
        --allow-destroy "$NG" --json /tmp/cmd.json > /tmp/cmd.txt 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q '"mismatches": 0' /tmp/cmd.json && grep -q '"read_back": 16' /tmp/cmd.json; then
        ok "ssdiq io --engine uring-cmd --bs 1m --fixedbufs --verify: 16 blocks of several commands each read back"
    else
        bad "ssdiq io --engine uring-cmd --bs 1m --fixedbufs --verify: exit $rc: $(tail -2 /tmp/cmd.txt)"
    fi
    ssdiq io "$RUN" --engine uring-cmd --rw read --bs 4k --size 8M > /tmp/cmd.txt 2>&1; rc=$?
    [ $rc = 2 ] && grep -q 'generic char device' /tmp/cmd.txt \
        && ok "uring-cmd on $RUN refused (exit 2)" || bad "uring-cmd on $RUN: exit $rc: $(tail -1 /tmp/cmd.txt)"
fi
if [ -n "$DEV" ]; then
    NG=/dev/ng${DEV#/dev/nvme}
    # A handle's reclaim unit available media writes (RUH status), in logical blocks.
    ruamw() {
        ssdiq info "$DEV" 2>/dev/null | sed -n 's/.*pid:available blocks //p' | tr ' ' '\n' \
            | grep "^$1:" | cut -d: -f2
    }
    before3=$(ruamw 3); before5=$(ruamw 5)
    ssdiq io "$NG" --engine uring-cmd --rw write --bs 64k --size 4M --qd 4 --fdp-pid 3 \
        --allow-destroy "$NG" --json /tmp/cmd.json > /tmp/cmd.txt 2>&1; rc=$?
    after3=$(ruamw 3); after5=$(ruamw 5)
    if [ $rc = 0 ] && grep -q '"ios": 64' /tmp/cmd.json && [ -n "$before3" ] \
        && [ "$after3" -lt "$before3" ] && [ "$after5" = "$before5" ]; then
        ok "ssdiq io --engine uring-cmd --fdp-pid 3: 64 writes, handle 3's RU available writes $before3 -> $after3 (handle 5 kept $after5)"
    else
        bad "ssdiq io --fdp-pid 3 on $NG: exit $rc, handle 3 $before3 -> $after3, handle 5 $before5 -> $after5: $(tail -3 /tmp/cmd.txt)"
    fi
    # By region: the first MiB of the range to handle 4, the next three to handle 6 (fresh
    # 8 MiB reclaim units), so handle 6 loses three times what handle 4 does.
    before4=$(ruamw 4); before6=$(ruamw 6)
    ssdiq io "$NG" --engine uring-cmd --rw write --bs 64k --size 4M --qd 4 \
        --fdp-pid 0-1MiB=4,1MiB-4MiB=6 --allow-destroy "$NG" --json /tmp/cmd.json > /tmp/cmd.txt 2>&1; rc=$?
    after4=$(ruamw 4); after6=$(ruamw 6)
    if [ $rc = 0 ] && [ -n "$before4" ] && [ "$after4" -lt "$before4" ] \
        && [ $(( (before6 - after6) )) = $(( 3 * (before4 - after4) )) ] \
        && grep -q '"fdp_regions"' /tmp/cmd.json; then
        ok "ssdiq io --fdp-pid 0-1MiB=4,1MiB-4MiB=6: handle 4 $before4 -> $after4, handle 6 $before6 -> $after6 (three times as many)"
    else
        bad "ssdiq io --fdp-pid by region on $NG: exit $rc, handle 4 $before4 -> $after4, handle 6 $before6 -> $after6: $(tail -3 /tmp/cmd.txt)"
    fi
fi

# RAID0 over two NVMe namespaces: a verified write across both, each serving its share.
if [ -n "$DEV" ] && [ -n "$RUN" ]; then
    echo "== ssdiq io $DEV,$RUN --stripe 128k"
    ssdiq io "$DEV,$RUN" --stripe 128k --rw write --bs 16k --size 16M --qd 8 --verify \
        --allow-destroy "$DEV,$RUN" --json /tmp/raid.json > /tmp/raid.txt 2>&1; rc=$?
    shares=$(tr -d ' \n' < /tmp/raid.json | grep -o '"path":"[^"]*","ops":{"write":{"ios":[0-9]*' \
        | sed 's/.*"ios"://' | tr '\n' ' ')
    if [ $rc = 0 ] && grep -q '"mismatches": 0' /tmp/raid.json && grep -q '"read_back": 1024' /tmp/raid.json \
        && [ "$shares" = "512 512 " ]; then
        ok "RAID0 over $DEV and $RUN: 1024 verified blocks, 512 writes each"
    else
        bad "RAID0 over $DEV and $RUN: exit $rc, shares '$shares': $(tail -3 /tmp/raid.txt)"
    fi
fi

# --verify on NVMe: a clean write reads back with no mismatch; a byte changed through another
# path (busybox dd through the page cache, then sync) is caught by a verifying read.
if [ -n "$RUN" ]; then
    echo "== ssdiq io --verify on $RUN"
    ssdiq io "$RUN" --rw write --bs 16k --size 8M --qd 8 --verify --allow-destroy "$RUN" \
        --json /tmp/verify.json > /tmp/verify.txt 2>&1; rc=$?
    if [ $rc = 0 ] && grep -q '"mismatches": 0' /tmp/verify.json && grep -q '"read_back": 512' /tmp/verify.json; then
        ok "ssdiq io --verify: 512 blocks read back, 0 mismatches"
    else
        bad "ssdiq io --verify write: exit $rc: $(tail -2 /tmp/verify.txt)"
    fi
    printf 'X' | dd of="$RUN" bs=1 seek=$((77 * 16384 + 100)) conv=notrunc 2>/dev/null; sync
    ssdiq io "$RUN" --rw read --bs 16k --size 8M --qd 8 --verify > /tmp/verify.txt 2>&1; rc=$?
    if [ $rc = 1 ] && grep -q 'offset 1261568: checksum mismatch' /tmp/verify.txt; then
        ok "ssdiq io --verify caught the byte dd changed"
    else
        bad "ssdiq io --verify read after dd: exit $rc: $(tail -2 /tmp/verify.txt)"
    fi
fi

# `ssdiq run --quick` on DEV into OUT: exit 0, the reset RESET, the device log and the OCP
# media counters, and rand_write_uniform's measured WAF 1.0 within SMART's rounding (QEMU
# has no GC: it writes each LBA once, so its media bytes equal the host bytes).
run_check() {
    dev=$1 out=$2 reset=$3
    echo "== ssdiq run --quick on $dev"
    t=$(date +%s)
    ssdiq run "$dev" --quick --allow-destroy "$dev" --out "$out" --quiet; rc=$?
    echo "ssdiq run on $dev: exit $rc after $(($(date +%s) - t)) s"
    [ $rc = 0 ] && ok "ssdiq run on $dev exit 0" || bad "ssdiq run on $dev exit $rc"
    [ -f "$out/report.md" ] && cat "$out/report.md"
    grep '"reset"' "$out/run.json"
    grep -q "\"reset\": \"$reset\"" "$out/run.json" \
        && ok "$dev reset by $reset" || bad "$dev: the reset was not \"$reset\""
    [ -s "$out/device.csv" ] && ok "$dev: device.csv from SMART and OCP" || bad "$dev: no device.csv"
    grep -q '"reports_media_writes": true' "$out/run.json" \
        && ok "run on $dev sees the OCP media counters" || bad "run on $dev found no media counters"
    w=$(awk '/"name": "rand_write_uniform"/ {f = 1}
             f && /"waf_measured"/ {gsub(/[^0-9.]/, ""); print; exit}' "$out/run.json")
    echo "$dev: rand_write_uniform measured WAF $w"
    case $w in
        0.9[5-9]*|1.0[0-5]*|1) ok "$dev: measured WAF $w from SMART and OCP" ;;
        *) bad "$dev: measured WAF '$w', expected ~1.0" ;;
    esac
}

# The whole benchmark on a real NVMe stack: reset through the NVMe layer (format: the lone
# namespace of a lone controller), measured WAF from the OCP log; then again through NVMe
# passthrough on the namespace's generic char device (every job as uring-cmd, the reset's
# deallocate as an NVMe command).
if [ -n "$RUN" ]; then
    run_check "$RUN" /tmp/run "NVMe format, then BLKDISCARD"
    run_check "/dev/ng${RUN#/dev/nvme}" /tmp/runng "NVMe format, then NVMe deallocate of every LBA"

    # The controller-reset study: three timed runs of the same reads, a controller reset
    # (NVME_IOCTL_RESET) before the third; the namespace must still work afterwards.
    echo "== ssdiq study controller-reset --quick on $RUN"
    ssdiq study controller-reset "$RUN" --quick --allow-destroy "$RUN" --out /tmp/cr --quiet; rc=$?
    [ $rc = 0 ] && ok "controller-reset study exit 0" || bad "controller-reset study exit $rc"
    grep -q '"run3_over_run2"' /tmp/cr/study.json \
        && ok "controller-reset timed three runs" || bad "controller-reset: no run 3 result"
    grep -A3 '"findings"' /tmp/cr/study.json
    dd if="$RUN" of=/dev/null bs=4096 count=16 iflag=direct 2>/dev/null \
        && ok "the namespace reads after the controller reset" || bad "namespace unusable after reset"
fi

echo "== nvme crate hardware tests"
SSDIQ_NVME_DEV=$DEV SSDIQ_NVME_ZNS=$ZNS /bin/nvme-guest-tests --ignored --test-threads=1 --nocapture > /tmp/t.log 2>&1
rc=$?
cat /tmp/t.log
[ $rc = 0 ] && grep -q 'test result: ok. 8 passed' /tmp/t.log \
    && ok "nvme hardware tests: 8 passed" || bad "nvme hardware tests (exit $rc)"

# The page store's NVMe backends: FDP placement directives and zone append/reset, on the first
# 48 MiB of each namespace (six 8 MiB zones / reclaim units), long enough for DB GC rounds.
# Every page read back is checked (CRC, page id, version): a misplaced write fails the run.
store_check() {
    name=$1 dev=$2; shift 2
    echo "== ssdiq store --backend $name on $dev"
    t=$(date +%s)
    ssdiq store "$dev" --backend "$name" --size 48M --gdt --open-zones 2 --fill 0.4 \
        --warmup 0.8 --measure-ops 2k --allow-destroy "$dev" --json /tmp/store-$name.json --quiet "$@"; rc=$?
    echo "ssdiq store $name: exit $rc after $(($(date +%s) - t)) s"
    rounds=$(grep -A30 '"space_totals"' /tmp/store-$name.json 2>/dev/null | awk '/"gc_rounds"/ {gsub(/[^0-9]/, ""); print; exit}')
    [ $rc = 0 ] && [ "${rounds:-0}" -gt 0 ] \
        && ok "ssdiq store on $name: exit 0, $rounds DB GC round(s), every read verified" \
        || bad "ssdiq store on $name: exit $rc, GC rounds '${rounds}'"
}
[ -n "$DEV" ] && store_check fdp "$DEV" --align-gc-unit
[ -n "$ZNS" ] && store_check zns "$ZNS"

if [ $fail = 0 ]; then echo SSDIQ-GUEST-OK; else echo SSDIQ-GUEST-FAILED; fi
exit $fail
