//! Nothing: this package holds ssdiq's criterion benchmarks (`benches/`), apart from the crates
//! they measure so that the workspace's tests do not build criterion.
