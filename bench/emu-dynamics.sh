#!/usr/bin/env bash
# The emulated drive over time (issue 28), every bar with the command behind it, for one build:
# in-place store SSD WAF across capacities, the GC unit `study gc-unit` finds against the
# superblock, NoWA + GC-unit alignment on every profile, idle recovery (pts-hir), latency
# against load at the drive's own sustained random-write rate. Virtual time: the figures do
# not depend on the machine.
#   bench/emu-dynamics.sh [BIN=target/release/ssdiq] [OUT=target/emu-dynamics]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/ssdiq}
out=${2:-target/emu-dynamics}
[ "$bin" = target/release/ssdiq ] && cargo build --release -q -p ssdiq
mkdir -p "$out"
echo "== store --rows in-place --data model on emu:pm9a3,capacity=C (the store's default drive at C)"
for c in 2GiB 8GiB 32GiB; do
    "$bin" store "emu:pm9a3,capacity=$c" --rows in-place --data model \
        2> /dev/null | awk -v c="$c" '$1 == "in-place" && $3 != "/" {print c ": SSD WAF " $5 ", " $3 " kops/s"}'
done
echo "== study gc-unit --quick: found vs superblock"
for t in emu:default emu:pm9a3 emu:p5520 emu:7450max emu:default,units_per_block=1 \
    emu:default,units_per_block=4 emu:default,units_per_block=16; do
    sb=$("$bin" info "$t" | sed -n 's/.*superblock \([0-9.]*[KMG]iB\).*/\1/p' | head -1)
    "$bin" study gc-unit "$t" --quick --quiet --recreate --out "$out/gc-unit" > /dev/null
    found=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['result']['gc_unit_bytes']) >> 20)" "$out/gc-unit/study.json")
    echo "$t: superblock $sb, found ${found}MiB"
done
echo "== store --rows aligned,nocomp --data model: SSD WAF per profile at 2 GiB"
for p in $("$bin" info emu:list | awk 'NR > 2 && NF > 8 && $1 != "spec" {print $1}'); do
    r=$("$bin" store "emu:$p,capacity=2GiB" --rows aligned,nocomp --data model \
        2> /dev/null | awk '($1 == "aligned" || $1 == "nocomp") && $3 != "/" {printf "%s SSD WAF %s  ", $1, $5}')
    echo "$p: $r"
done
echo "== study pts-hir emu:pm9a3 --pts-cell 5s"
"$bin" study pts-hir emu:pm9a3 --pts-cell 5s --quiet --recreate --out "$out/pts-hir" > /dev/null
python3 -c "import json,sys; [print(' ', f) for f in json.load(open(sys.argv[1]))['findings']]" "$out/pts-hir/study.json"
echo "== study latency-load emu:pm9a3,capacity=2GiB at the drive's sustained random-write rate"
"$bin" io emu:pm9a3,capacity=2GiB --fill seq --rw randwrite --qd 32 --io-size 8GiB \
    --json "$out/sustained.json" > /dev/null
sus=$(python3 -c "
import json, sys
s = [x for x in json.load(open(sys.argv[1]))['series'] if x['stream'] == 'write']
last = s[len(s) // 2:]
print(round(sum(x['iops'] for x in last) / len(last) / 1e3, 1))" "$out/sustained.json")
echo "  sustained (second half of 4 drive writes at QD 32): $sus kIOPS"
"$bin" study latency-load emu:pm9a3,capacity=2GiB --spec-rand-write "$sus" --quiet \
    --recreate --out "$out/latency-load" > /dev/null
python3 - "$out/latency-load/study.json" <<'PY'
import json, sys
pts = [p for p in json.load(open(sys.argv[1]))["points"] if p["series"] != "warm-up"]
print("  load   kIOPS   write P99 us   P99.9 us   P99.999 us")
for p in pts:
    v = p["values"]
    print(f"  {p['x_label']:>5} {v['write_kiops']:7.1f} {v['write_p99_us']:12.0f} "
          f"{v.get('write_p999_us', float('nan')):10.0f} {v['write_p99999_us']:12.0f}")
PY
