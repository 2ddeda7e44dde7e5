#!/usr/bin/env bash
# docs/fit.md's sensitivity table: each knob a run does not identify, at either end of its
# plausible range (crates/fit/src/sensitivity.rs), on library profiles at 1 GiB, and the
# largest move of each of the fit's predictions (crates/fit/src/predict.rs), as they are and
# conditioned on the profile's uniform WA. About 25 min a profile.
#   bench/fit-sensitivity.sh [PROFILE...=pm9a3] (CAPACITY=1GiB SEED=52; KNOB=PREFIX: only the
#   knobs whose name starts with it)
set -euo pipefail
cd "$(dirname "$0")/.."
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(pm9a3)
cargo build --release --quiet -p ssdiq-fit --example sensitivity
for p in "${profiles[@]}"; do
    target/release/examples/sensitivity "$p" "${CAPACITY:-1GiB}" "${SEED:-52}"
    CONDITION=1 target/release/examples/sensitivity "$p" "${CAPACITY:-1GiB}" "${SEED:-52}"
done
