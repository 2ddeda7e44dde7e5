# Sourced by bench/vs-fio.sh and bench/qd1-sched.sh: a loop device over a $SIZE file in
# /dev/shm, filled with random data by $SSDIQ (reads then hit allocated pages, not holes),
# and a scratch directory; both removed on exit. Sets $dev and $work.
work=$(mktemp -d)
img=/dev/shm/ssdiq-bench.$$.img
dev=""
cleanup() {
    [ -n "$dev" ] && losetup -d "$dev" || true
    rm -f "$img"
    rm -rf "$work"
}
trap cleanup EXIT
truncate -s "$SIZE" "$img"
dev=$(losetup -f --show "$img")
"$SSDIQ" io "$dev" --rw write --bs 1M --qd 4 --allow-destroy "$dev" >/dev/null
