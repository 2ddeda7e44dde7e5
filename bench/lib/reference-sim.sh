#!/usr/bin/env bash
# Builds the SSD-iq authors' reference simulator (sim/sim.cpp of their artifact,
# https://github.com/gabriel-haas/ssdiq, MIT licence) from a checkout of it, into
# ${OUT:-$TMPDIR/reference-sim}/sim, and prints the binary's path. Our build line, not theirs
# (their CMake fetches its dependencies): Debian's libcli11-dev and libfmt-dev, and, for a
# compiler without <format> (GCC 12), a one-line header of ours that routes std::format to
# {fmt}.
#   bench/lib/reference-sim.sh ARTIFACT_DIR
set -euo pipefail
src=${1:?usage: bench/lib/reference-sim.sh ARTIFACT_DIR (a clone of https://github.com/gabriel-haas/ssdiq)}
[ -f "$src/sim/sim.cpp" ] || { echo "no sim/sim.cpp in $src: expected a clone of https://github.com/gabriel-haas/ssdiq" >&2; exit 2; }
out=${OUT:-${TMPDIR:-/tmp}/reference-sim}
mkdir -p "$out"
if [ ! -x "$out/sim" ]; then
    dpkg -s libcli11-dev libfmt-dev >/dev/null 2>&1 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcli11-dev libfmt-dev >/dev/null; }
    shim=$out/format-shim.hpp
    if echo '#include <format>' | g++ -std=c++23 -x c++ -fsyntax-only - 2>/dev/null; then
        printf '#pragma once\n' > "$shim"
    else
        printf '#pragma once\n#include <fmt/format.h>\nnamespace std { using fmt::format; }\n' > "$shim"
    fi
    (cd "$src" && g++ -std=c++23 -O3 -march=native -DNDEBUG -Wno-comment -include "$shim" \
        -Ishared -Ilibs/apache_rng/include -Itraces/src sim/sim.cpp -o "$out/sim" -lfmt) 1>&2
fi
echo "$out/sim"
