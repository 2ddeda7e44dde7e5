#!/usr/bin/env bash
# Boots FEMU's black-box SSD (femu_mode=1) in a throw-away TCG guest and runs a script in it:
# the Debian cloud kernel and a busybox initramfs holding ssdiq (the release build, with its
# libraries), as .ci/extra/qemu-nvme.sh boots QEMU's own NVMe controller. The guest's script
# sees the device as /dev/nvme0n1 and its parameters in /femu.env; its output is printed, and
# the exit code is the script's.
#
# The device, from these variables (defaults in brackets; FEMU's names in parentheses):
#   FEMU_MB [1024]          logical MiB the namespace exposes (devsz_mb)
#   FEMU_OP [0.25]          physical space over logical; sets blks_per_pl, rounded up
#   FEMU_CH [2]             channels (nchs)
#   FEMU_LUNS [4]           dies per channel (luns_per_ch)
#   FEMU_PGS_PER_BLK [64]   4 KiB pages per block (pgs_per_blk); a GC line is one block of
#                           every die
#   FEMU_PG_RD_NS [40000]   page read (pg_rd_lat)
#   FEMU_PG_WR_NS [2000000] page program (pg_wr_lat): 2 ms keeps the device, not the TCG
#                           guest, the bottleneck
#   FEMU_BLK_ER_NS [2000000] block erase (blk_er_lat)
#   FEMU_GC_PCT [90]        GC starts below this share of free lines (gc_thres_pcent)
#   FEMU_GC_PCT_HIGH [95]   foreground GC below this (gc_thres_pcent_high)
#   FEMU_GUEST_VARS         names of further variables to copy into /femu.env
#
# Usage: FEMU_SRC=femu-<commit>.tar.xz bench/femu/run-guest.sh GUEST_SCRIPT   (needs root:
#        FEMU mlocks the device's memory; TIMEOUT=S bounds the guest, default 1800)
set -euo pipefail
cd "$(dirname "$0")/../.."
script=${1:-}
if [ -z "$script" ] || [ ! -f "$script" ]; then
    echo "bench/femu/run-guest.sh: invalid GUEST_SCRIPT \"$script\": expected a shell script to run in the guest" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    echo "bench/femu/run-guest.sh: needs root (FEMU mlocks the device's memory)" >&2
    exit 2
fi
num() { # name value: a positive number or exit 2
    case "$2" in
        ''|*[!0-9.]*|*.*.*) echo "bench/femu/run-guest.sh: invalid $1 \"$2\": expected a positive number" >&2; exit 2 ;;
    esac
}
MB=${FEMU_MB:-1024}; num FEMU_MB "$MB"
OP=${FEMU_OP:-0.25}; num FEMU_OP "$OP"
CH=${FEMU_CH:-2}; num FEMU_CH "$CH"
LUNS=${FEMU_LUNS:-4}; num FEMU_LUNS "$LUNS"
PGS=${FEMU_PGS_PER_BLK:-64}; num FEMU_PGS_PER_BLK "$PGS"
RD=${FEMU_PG_RD_NS:-40000}; num FEMU_PG_RD_NS "$RD"
WR=${FEMU_PG_WR_NS:-2000000}; num FEMU_PG_WR_NS "$WR"
ER=${FEMU_BLK_ER_NS:-2000000}; num FEMU_BLK_ER_NS "$ER"
GC=${FEMU_GC_PCT:-90}; num FEMU_GC_PCT "$GC"
GCH=${FEMU_GC_PCT_HIGH:-95}; num FEMU_GC_PCT_HIGH "$GCH"
# Blocks per plane (one plane per die): the physical pages over pages per block and dies.
BLKS=$(python3 -c "import math; print(math.ceil($MB * (1 + $OP) * 256 / ($PGS * $CH * $LUNS)))")
line_kib=$((PGS * 4 * CH * LUNS))

femu=$(bash bench/femu/build.sh)
qemu=$femu/build/qemu-system-x86_64

# --- guest kernel (as .ci/extra/qemu-nvme.sh: the Debian cloud kernel, NVMe built in) -------
cache=target/qemu-nvme
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. tests/qemu/kernel.sh
kernel=$(guest_kernel "$cache" "$work")
dpkg -s busybox-static >/dev/null 2>&1 || apt-get -qq install -y --no-install-recommends busybox-static >/dev/null

# --- ssdiq (the release build's, with its libraries) and the initramfs ----------------------
cargo build --release -q -p ssdiq
. tests/qemu/add-binary.sh
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp /bin/busybox "$root/bin/busybox"
add_binary "$root" target/release/ssdiq bin/ssdiq
cp tests/qemu/init "$root/init"
cp "$script" "$root/guest.sh"
cat > "$root/femu.env" <<ENV
FEMU_MB=$MB
FEMU_OP=$OP
FEMU_CH=$CH
FEMU_LUNS=$LUNS
FEMU_PGS_PER_BLK=$PGS
FEMU_BLKS_PER_PL=$BLKS
FEMU_LINE_KIB=$line_kib
FEMU_PG_RD_NS=$RD
FEMU_PG_WR_NS=$WR
FEMU_BLK_ER_NS=$ER
FEMU_GC_PCT=$GC
FEMU_GC_PCT_HIGH=$GCH
ENV
# Further variables for the guest's script, by name (their values must hold no single quote).
for v in ${FEMU_GUEST_VARS:-}; do
    printf "%s='%s'\n" "$v" "${!v:-}" >> "$root/femu.env"
done
chmod +x "$root/init"
(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$work/initrd.gz")

dev="femu,devsz_mb=$MB,femu_mode=1,secsz=512,secs_per_pg=8,pgs_per_blk=$PGS,blks_per_pl=$BLKS"
dev="$dev,pls_per_lun=1,luns_per_ch=$LUNS,nchs=$CH,pg_rd_lat=$RD,pg_wr_lat=$WR,blk_er_lat=$ER"
dev="$dev,ch_xfer_lat=0,gc_thres_pcent=$GC,gc_thres_pcent_high=$GCH"
echo "femu: -device $dev (line $line_kib KiB)" >&2
log=$work/serial.log
set +e
timeout "${TIMEOUT:-1800}" "$qemu" -L "$femu/pc-bios" -accel tcg -smp 2 -m 1024 -nographic \
    -nodefaults -no-reboot -serial "file:$log" -kernel "$kernel" \
    -initrd "$work/initrd.gz" -append "console=ttyS0 panic=-1 quiet" -device "$dev"
rc=$?
set -e
cat "$log"
# FEMU at this commit crashes as the guest powers off (exit 139 after the guest is done): the
# guest's own verdict is what counts.
if grep -q 'GUEST-DONE rc=0' "$log"; then
    [ $rc = 0 ] || echo "femu: QEMU exit $rc after the guest finished" >&2
    exit 0
fi
echo "femu: the guest did not finish cleanly (QEMU exit $rc)" >&2
exit 1
