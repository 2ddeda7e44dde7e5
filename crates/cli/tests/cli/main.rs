//! Every end-to-end test of the `ssdiq` binary, one module per area, in one test binary: one
//! link of the whole workspace instead of one per file (the build dominated `cargo test`).
//! Run one area with `cargo test --release -p ssdiq --test cli study_cli::`.

mod common;

mod cli_basics;
mod drives_cli;
mod emu_cli;
mod file_targets;
mod fit_cli;
mod flag_values;
mod fuzz_results;
mod info_cli;
mod io_errors;
mod io_files;
mod io_layout;
mod io_loop;
mod io_stripe;
mod limits_cli;
mod outputs;
mod pattern_cli;
mod reliability_table;
mod report_cli;
mod repository;
mod run_cli;
mod sim_cli;
mod stop_class;
mod store_cli;
mod study_cli;
mod sweep_cli;
mod trace_cli;
