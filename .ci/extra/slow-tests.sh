#!/usr/bin/env bash
# The tests too slow for the README's test command (each marked #[ignore] with its time):
# the end-to-end runs on files and loop devices, the reliability table against
# docs/reliability.md, the stop-flag class over every profile and override, a fit against a
# latency-load study, and the fit's round trip on three hidden drives.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test --release -p ssdiq --test cli -- --ignored
cargo test --release -p ssdiq-fit --test roundtrip -- --ignored --exact twins_reproduce_the_figures_they_were_fitted_to
cargo test --release -p ssdiq-fit --test roundtrip -- --ignored --exact the_twin_has_the_drives_gc_mode
