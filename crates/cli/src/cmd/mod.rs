//! One module per subcommand; each owns its arguments and its `main`.

pub mod emu_info;
pub mod info;
pub mod io;
pub mod io_trace;
pub mod pattern;
pub mod report;
pub mod run;
pub mod run_bars;
pub mod run_out;
pub mod run_slurm;
pub mod run_target;
pub mod sim;
pub mod sim_merge;
pub mod sim_out;
pub mod sim_slurm;
pub mod slurm_cli;
pub mod store;
pub mod store_progress;
pub mod study;
pub mod study_out;
pub mod trace;
pub mod trace_args;
