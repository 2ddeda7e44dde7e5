#!/usr/bin/env bash
# Tests the nvme crate and `ssdiq info` against a real Linux NVMe driver stack: QEMU's emulated
# NVMe controller in a throw-away guest (recipe: ../shared/reference/qemu-nvme.md).
#   controller 1: serial fdpocp, OCP SMART extended log (ocp=on), FDP subsystem, 1 GiB namespace
#   controller 2: serial zns, 1 GiB zoned namespace (8 MiB zones)
# The guest runs tests/qemu/guest.sh and prints SSDIQ-GUEST-OK only if every check passed; this
# script requires that line AND a clean QEMU exit. Needs root (apt) on Debian bookworm; no KVM.
# QEMU_GUEST=SCRIPT runs another guest script on the same devices (it must print
# SSDIQ-GUEST-OK too); QEMU_GUEST_FIO=1 puts the host's fio and its libraries in the guest;
# QEMU_TIMEOUT=S bounds the guest (default 300).
guest_script=${QEMU_GUEST:-tests/qemu/guest.sh}
[ -f "$guest_script" ] || { echo "qemu-nvme: invalid QEMU_GUEST \"$guest_script\": no such file" >&2; exit 2; }
set -euo pipefail
cd "$(dirname "$0")/../.."
t0=$(date +%s)
stamp() { printf '[qemu-nvme %3ss] %s\n' $(($(date +%s) - t0)) "$*"; }
export DEBIAN_FRONTEND=noninteractive
apt() { apt-get -o DPkg::Lock::Timeout=300 -qq "$@"; }

# --- packages: QEMU >= 8 (ocp=on, FDP) from bookworm-backports, busybox-static -------------
need_apt=0
qemu-system-x86_64 -device nvme,help 2>/dev/null | grep -q 'ocp=' || need_apt=1
dpkg -s busybox-static >/dev/null 2>&1 || need_apt=1
if [ $need_apt = 1 ]; then
    if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        if [ -f /etc/apt/sources.list.d/debian.sources ]; then
            awk 'BEGIN{RS="";ORS="\n\n"} NR==1' /etc/apt/sources.list.d/debian.sources \
                | sed 's/^Suites:.*/Suites: bookworm-backports/' \
                > /etc/apt/sources.list.d/bookworm-backports.sources
        else
            # one-line sources: reuse the machine's own bookworm mirror line
            awk '$1=="deb" { for (i = 2; i <= NF; i++) if ($i == "bookworm") { $i = "bookworm-backports"; print; exit } }' \
                /etc/apt/sources.list > /etc/apt/sources.list.d/bookworm-backports.list
        fi
    fi
    stamp "apt-get update"
    apt update
    stamp "installing qemu-system-x86 (bookworm-backports) and busybox-static"
    apt install -y --no-install-recommends -t bookworm-backports qemu-system-x86 >/dev/null
    apt install -y --no-install-recommends busybox-static >/dev/null
fi
qemu-system-x86_64 --version | head -1

cache=target/qemu-nvme
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- guest kernel: Debian cloud kernel (NVMe built in); extract vmlinuz only ----------------
. tests/qemu/kernel.sh
kernel=$(guest_kernel "$cache" "$work")

# --- binaries: the release build's own (dynamically linked; add_binary copies their libraries)
stamp "building the guest test binary and ssdiq (fresh after the README's tests)"
tests_bin=$(cargo test --release -q -p ssdiq-nvme --test guest --no-run \
    --message-format=json | grep -o '"executable":"[^"]*"' | tail -1 | cut -d'"' -f4)
cargo build --release -q -p ssdiq
ssdiq_bin=target/release/ssdiq
. tests/qemu/add-binary.sh

# --- initramfs ---------------------------------------------------------------------------
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp /bin/busybox "$root/bin/busybox"
add_binary "$root" "$tests_bin" bin/nvme-guest-tests
add_binary "$root" "$ssdiq_bin" bin/ssdiq
cp tests/qemu/init "$root/init"
cp "$guest_script" "$root/guest.sh"
mem=512
if [ "${QEMU_GUEST_FIO:-0}" = 1 ]; then
    # fio's libraries take 84 MB with Debian's fio 3.33.
    command -v fio >/dev/null || apt install -y --no-install-recommends fio >/dev/null
    add_binary "$root" "$(command -v fio)" bin/fio
    mem=1024
fi
chmod +x "$root/init"
(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$work/initrd.gz")
truncate -s 1G "$work/ns1.img" "$work/ns2.img"
truncate -s 64M "$work/ns3.img"

# --- boot --------------------------------------------------------------------------------
stamp "booting the guest (TCG)"
log=$work/serial.log
set +e
timeout "${QEMU_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -smp 2 -m $mem -nographic -nodefaults -no-reboot \
    -serial "file:$log" -kernel "$kernel" -initrd "$work/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet nvme.poll_queues=2" \
    -device nvme-subsys,id=subsys0,nqn=subsys0,fdp=on,fdp.runs=8M,fdp.nrg=1,fdp.nruh=8 \
    -device nvme,serial=fdpocp,id=nvme0,subsys=subsys0,ocp=on \
    -drive "file=$work/ns1.img,if=none,id=nvm1,format=raw,cache=unsafe,discard=unmap,detect-zeroes=unmap" \
    -device nvme-ns,drive=nvm1,bus=nvme0,nsid=1,fdp.ruhs=0-7 \
    -device nvme,serial=zns,id=nvme1 \
    -drive "file=$work/ns2.img,if=none,id=nvm2,format=raw,cache=unsafe,discard=unmap,detect-zeroes=unmap" \
    -device nvme-ns,drive=nvm2,bus=nvme1,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=on,zoned.zone_size=8M \
    -device nvme,serial=suite,id=nvme2,ocp=on \
    -drive "file=$work/ns3.img,if=none,id=nvm3,format=raw,cache=unsafe,discard=unmap,detect-zeroes=unmap" \
    -device nvme-ns,drive=nvm3,bus=nvme2,nsid=1 \
    </dev/null
qrc=$?
set -e
tr -d '\r' < "$log" | sed 's/\x1b[^a-zA-Z]*[a-zA-Z]//g' | grep -av '^$' || true
mkdir -p target/qemu-nvme && cp "$log" target/qemu-nvme/serial.log
stamp "qemu exit $qrc"
if [ $qrc != 0 ]; then
    echo "qemu-nvme: QEMU failed (exit $qrc; 124 = timeout)"
    exit 1
fi
if ! grep -aq '^SSDIQ-GUEST-OK' "$log"; then
    echo "qemu-nvme: the guest did not report SSDIQ-GUEST-OK"
    exit 1
fi
stamp "qemu-nvme: ok ($(grep -ac '^CHECK ok' "$log") checks passed in the guest)"
