# Sourced by .ci/extra/qemu-nvme.sh and bench/femu/run-guest.sh: the throw-away guests' kernel,
# the Debian cloud kernel (NVMe built in), its vmlinuz extracted once into a cache.
#   guest_kernel CACHE_DIR WORK_DIR   prints the vmlinuz's path
guest_kernel() {
    local cache=$1 work=$2 kpkg
    kpkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
    if [ -z "$kpkg" ]; then
        apt-get -o DPkg::Lock::Timeout=300 -qq update >&2
        kpkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
    fi
    [ -n "$kpkg" ] || { echo "guest kernel: cannot resolve linux-image-cloud-amd64" >&2; return 1; }
    if [ ! -s "$cache/vmlinuz-$kpkg" ]; then
        echo "guest kernel: fetching $kpkg" >&2
        (cd "$work" && apt-get download -qq "$kpkg" 2>/dev/null \
            && dpkg-deb --fsys-tarfile "${kpkg}"_*.deb \
            | tar -x --wildcards --transform='s|.*/||' './boot/vmlinuz-*' && mv vmlinuz-* vmlinuz) \
            || return 1
        mv "$work/vmlinuz" "$cache/vmlinuz-$kpkg"
        rm -f "$work"/*.deb
    fi
    echo "$cache/vmlinuz-$kpkg"
}
