# Sourced by the bench scripts that compare this checkout with BASE (a git revision): builds
# both, BASE in a temporary worktree, and leaves $tmp (removed on exit) and $base_bin set.
#   base_build BASE
base_build() {
    cd "$(dirname "${BASH_SOURCE[0]}")/../.."
    tmp=$(mktemp -d)
    trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
    git worktree add -q --detach "$tmp/base" "$1"
    (cd "$tmp/base" && CARGO_TARGET_DIR="$tmp/target" cargo build --release -q -p ssdiq)
    cargo build --release -q -p ssdiq
    base_bin="$tmp/target/release/ssdiq"
}
