# Sourced by the guests' scripts (.ci/extra/qemu-nvme.sh, bench/femu/run-guest.sh).
# add_binary ROOT SRC DEST: puts the dynamically linked program SRC at ROOT/DEST with its
# loader and every library ldd names, at their own paths. The guests run the binaries the
# host's release build already made, so CI builds no second, static copy of the workspace.
add_binary() {
    local root=$1 src=$2 dest=$3 lib
    mkdir -p "$root/$(dirname "$dest")"
    cp "$src" "$root/$dest"
    for lib in $(ldd "$src" | grep -o '/[^ ]*'); do
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
}
