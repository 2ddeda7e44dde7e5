#!/usr/bin/env bash
# Builds FEMU (Li et al., FAST'18: the research field's emulated SSD, a fork of QEMU 8.0.0)
# from its source archive, once per machine: the build is cached outside the clone, keyed by the
# archive's checksum and the patches applied. Prints the cache directory: the binary is
# DIR/build/qemu-system-x86_64, its firmware DIR/pc-bios (QEMU's -L).
#
# Patches: bench/femu/patches/*.patch, in name order (GPL-2.0, like FEMU; our own work on top
# of it, kept as patch files). The build needs root for the Debian packages it installs.
#
# Usage: FEMU_SRC=path/to/femu-<commit>.tar.xz bench/femu/build.sh
#        (FEMU_CACHE=DIR caches elsewhere than ~/.cache/ssdiq-femu)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${FEMU_SRC:-}" ]; then
    echo "bench/femu/build.sh: FEMU_SRC is not set: expected the path of FEMU's source archive (femu-<commit>.tar.xz)" >&2
    exit 2
fi
if [ ! -f "$FEMU_SRC" ]; then
    echo "bench/femu/build.sh: invalid FEMU_SRC \"$FEMU_SRC\": no such file" >&2
    exit 2
fi
shopt -s nullglob
patches=(bench/femu/patches/*.patch)
key=$( (sha256sum < "$FEMU_SRC"; for p in "${patches[@]}"; do sha256sum < "$p"; done) | sha256sum | cut -c1-16)
cache=${FEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ssdiq-femu}/$key
# One build at a time per cache entry: a second caller (CI starts the build early, in the
# background) waits for the first and then finds the binary.
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9
if [ -x "$cache/build/qemu-system-x86_64" ]; then
    echo "$cache"
    exit 0
fi

pkgs=(gcc make pkg-config libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev ninja-build meson flex bison xz-utils patch)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "femu: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=300 -qq update >&2
    apt-get -o DPkg::Lock::Timeout=300 -qq install -y --no-install-recommends "${missing[@]}" >&2
fi

tmp=$cache.partial.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
echo "femu: unpacking $(basename "$FEMU_SRC")" >&2
tar -xJf "$FEMU_SRC" -C "$tmp" --strip-components=1
for p in "${patches[@]}"; do
    echo "femu: applying $(basename "$p")" >&2
    patch -d "$tmp" -p1 --quiet < "$p"
done
mkdir -p "$tmp/build"
(
    cd "$tmp/build"
    echo "femu: configuring" >&2
    ../configure --target-list=x86_64-softmmu --without-default-features --disable-werror \
        --disable-docs --disable-tools --disable-install-blobs --enable-tcg >&2
    echo "femu: building qemu-system-x86_64 (about 5 min on two free cores)" >&2
    ninja qemu-system-x86_64 >&2
)
rm -rf "$cache"
mv "$tmp" "$cache"
trap - EXIT
echo "$cache"
