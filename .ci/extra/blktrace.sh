#!/usr/bin/env bash
# A block trace recorded from a loop device, read and replayed by ssdiq:
#  1. record trace A of a workload (ssdiq io random writes and reads, a sequential dd, a
#     discard) on loop device 1 with blktrace, formatted by blkparse;
#  2. `ssdiq trace check|stats` read it; `ssdiq sim --trace` runs it;
#  3. `ssdiq io LOOP2 --trace A` replays it on loop device 2 while trace B is recorded there;
#     B's writes and discards must be A's, request for request (op, offset, length).
# Kernels in lockdown refuse blktrace's debugfs relay files; then the same kernel events are
# recorded with the kernel's blk tracer through tracefs, read by ssdiq as ftrace-blk, and
# also written in blktrace's binary format so Debian's blkparse formats them (its text is
# read by ssdiq too, and must give the same requests). Needs root (loop devices, tracing).
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "blktrace CI: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
    echo "blktrace CI: skipped (needs root for loop devices and block tracing)"
    exit 0
fi
if ! command -v blktrace >/dev/null || ! command -v blkparse >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq blktrace >/dev/null
fi
cargo build --release -q -p ssdiq
bin=$(pwd)/target/release/ssdiq

T=$(mktemp -d /tmp/ssdiq-blktrace.XXXXXX)
TR=/sys/kernel/tracing
loops=()
bt_pid=""
cleanup() {
    [ -n "$bt_pid" ] && kill "$bt_pid" 2>/dev/null || true
    if [ -w "$TR/tracing_on" ]; then
        echo 0 >"$TR/tracing_on" || true
        echo nop >"$TR/current_tracer" || true
    fi
    for d in "${loops[@]}"; do
        echo 0 >"/sys/block/$(basename "$d")/trace/enable" 2>/dev/null || true
        losetup -d "$d" || true
    done
    rm -rf "$T"
}
trap cleanup EXIT

truncate -s 64M "$T/disk1.img" "$T/disk2.img"
dev1=$(losetup -f --show "$T/disk1.img"); loops+=("$dev1")
dev2=$(losetup -f --show "$T/disk2.img"); loops+=("$dev2")
udevadm settle 2>/dev/null || sleep 1

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
mountpoint -q "$TR" || mount -t tracefs nodev "$TR" 2>/dev/null || true

# Which recorder works here: blktrace, or the blk tracer through tracefs.
mode=ftrace
if blktrace -d "$dev1" -o "$T/probe" -w 1 >"$T/probe.log" 2>&1 && [ -s "$T/probe.blktrace.0" ]; then
    mode=blktrace
else
    echo "blktrace CI: blktrace cannot trace here ($(grep -m1 -o 'Operation not permitted\|[^:]*denied' "$T/probe.log" || echo failed)); recording with the kernel's blk tracer through tracefs"
    [ -w "$TR/current_tracer" ] || fail "neither blktrace nor tracefs ($TR) is usable"
fi

# start DEV NAME / stop DEV NAME: record DEV's block events into $T/NAME.txt.
start() {
    if [ "$mode" = blktrace ]; then
        blktrace -d "$1" -o "$T/$2" >"$T/$2.log" 2>&1 &
        bt_pid=$!
        sleep 1
    else
        echo 0 >"$TR/tracing_on"
        echo nop >"$TR/current_tracer"
        echo 16384 >"$TR/buffer_size_kb"
        echo blk >"$TR/current_tracer"
        echo >"$TR/trace"
        echo 1 >"/sys/block/$(basename "$1")/trace/enable"
        echo 1 >"$TR/tracing_on"
    fi
}
stop() {
    sync
    if [ "$mode" = blktrace ]; then
        kill -INT "$bt_pid"
        wait "$bt_pid" || true
        bt_pid=""
        blkparse -q -i "$T/$2" -o "$T/$2.txt" >/dev/null
        fmt=blkparse
    else
        echo 0 >"$TR/tracing_on"
        echo 0 >"/sys/block/$(basename "$1")/trace/enable"
        cp "$TR/trace" "$T/$2.txt"
        echo nop >"$TR/current_tracer"
        grep -q 'entries-in-buffer\|LOST\|lost' "$T/$2.txt" && grep -i lost "$T/$2.txt" && fail "the trace buffer overflowed"
        fmt=ftrace-blk
    fi
}

# 1. Trace A: ssdiq random writes and reads, a sequential dd, a discard.
start "$dev1" a
"$bin" io "$dev1" --rw randwrite --bs 4k --qd 4 --io-size 4M --seed 3 >/dev/null
"$bin" io "$dev1" --rw randread --bs 16k --qd 2 --io-size 1M --seed 4 >/dev/null
dd if=/dev/zero of="$dev1" bs=64k count=32 seek=100 oflag=direct status=none
blkdiscard -o $((32 << 20)) -l $((4 << 20)) "$dev1"
stop "$dev1" a
echo "blktrace CI: trace A recorded with $mode: $(grep -c . "$T/a.txt") lines"

# 2. ssdiq reads it.
"$bin" trace check "$T/a.txt" --format "$fmt" | tee "$T/check.txt"
"$bin" trace stats "$T/a.txt" --json "$T/a.json" >/dev/null
python3 - "$T/a.json" <<'EOF' || fail "trace A's statistics are not the workload's"
import json, sys
t = json.load(open(sys.argv[1]))["trace"]
w, r, d = t["write"], t["read"], t["trim"]
# ssdiq wrote 4 MiB in 4 KiB requests and dd 2 MiB in 64 KiB; blkdiscard dropped 4 MiB.
assert w["bytes"] == 6 << 20, w
assert w["requests"] >= 1024 + 32 - 8, w
assert d["bytes"] == 4 << 20, d
assert r["bytes"] >= 1 << 20, r
print(f"blktrace CI: trace A: {w['requests']} writes ({w['bytes']} B), {r['requests']} reads, {d['requests']} discards ({d['bytes']} B)")
EOF
"$bin" sim --trace "$T/a.txt" --capacity 64MiB --block 128KiB --writes 4pass --quiet \
    --json "$T/sim.json" >/dev/null

if [ "$mode" = ftrace ]; then
    # The same events in blktrace's binary format, formatted by Debian's blkparse.
    python3 - "$T/a.txt" "$T/bin" <<'EOF'
import re, struct, sys
MAGIC = 0x65617400 | 0x07
ACT = {"Q": (1, 1 << 4), "D": (7, 1 << 6), "C": (8, 1 << 7)}
line = re.compile(r"\[(\d+)\].*?\s(\d+\.\d+):\s+(\d+),(\d+)\s+([QDC])\s+(\S+)\s+(\d+) \+ (\d+)")
out = open(sys.argv[2] + ".blktrace.0", "wb")
seq = 0
for l in open(sys.argv[1]):
    m = line.search(l)
    if not m:
        continue
    cpu, t, maj, mnr, a, rwbs, sector, count = m.groups()
    code, cat = ACT[a]
    for c, bit in (("R", 0), ("W", 1), ("F", 2), ("S", 3), ("A", 11), ("M", 12), ("D", 13)):
        if c in rwbs:
            cat |= 1 << bit
    if "D" in rwbs:
        cat &= ~(1 << 0)
    seq += 1
    ns = int(t.split(".")[0]) * 10**9 + int(t.split(".")[1].ljust(9, "0"))
    out.write(struct.pack("<IIQQIIIIIHH", MAGIC, seq, ns, int(sector), int(count) * 512,
                          (cat << 16) | code, 0, (int(maj) << 20) | int(mnr), 0, 0, 0))
EOF
    blkparse -q -i "$T/bin" -o "$T/a.blkparse.txt" >/dev/null
    "$bin" trace stats "$T/a.blkparse.txt" --json "$T/ab.json" >/dev/null
    python3 - "$T/a.json" "$T/ab.json" <<'EOF' || fail "blkparse's text of trace A reads differently from the ftrace text"
import json, sys
a, b = (json.load(open(p))["trace"] for p in sys.argv[1:])
assert b["format"] == "blkparse", b["format"]
for op in ("read", "write", "trim"):
    assert (a[op]["requests"], a[op]["bytes"]) == (b[op]["requests"], b[op]["bytes"]), op
assert a["footprint"] == b["footprint"]
print("blktrace CI: Debian's blkparse text of trace A reads as the same requests")
EOF
fi

# 3. Replay A on loop device 2 while recording B: the same writes and discards.
start "$dev2" b
"$bin" io "$dev2" --trace "$T/a.txt" --engine psync --replay-speed max --json "$T/replay.json" >/dev/null
stop "$dev2" b
python3 - "$T/a.txt" "$T/b.txt" "$T/replay.json" <<'EOF' || fail "the replay on $dev2 did not issue trace A's requests"
import collections, json, re, sys
ev = re.compile(r"\s(\d+),(\d+)\s+D\s+(\S+)\s+(\d+) \+ (\d+)")
def requests(path):
    c = collections.Counter()
    for l in open(path):
        m = ev.search(l)
        if not m or int(m.group(5)) == 0:
            continue
        rwbs = m.group(3)
        op = next((o for o in rwbs if o in "RWD"), None)
        if op in ("W", "D"):
            c[(op, int(m.group(4)), int(m.group(5)))] += 1
    return c
a, b = requests(sys.argv[1]), requests(sys.argv[2])
assert sum(a.values()) > 1000, len(a)
missing, extra = a - b, b - a
assert not missing and not extra, f"missing {list(missing.items())[:5]}, extra {list(extra.items())[:5]}"
r = json.load(open(sys.argv[3]))["replay"]
assert r["records_replayed"] == r["records"], r
print(f"blktrace CI: replay issued trace A's {sum(a.values())} writes and discards exactly")
EOF
echo "blktrace CI: ok ($mode)"
