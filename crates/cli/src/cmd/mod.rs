//! One module per subcommand; each owns its arguments and its `main`.

pub(crate) mod emu_info;
pub(crate) mod fit;
pub(crate) mod info;
pub(crate) mod io;
pub(crate) mod pattern;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod run_bars;
pub(crate) mod run_out;
pub(crate) mod run_slurm;
pub(crate) mod run_target;
pub(crate) mod sim;
pub(crate) mod sim_merge;
pub(crate) mod sim_out;
pub(crate) mod sim_slurm;
pub(crate) mod slurm_cli;
pub(crate) mod store;
pub(crate) mod store_progress;
pub(crate) mod store_reset;
pub(crate) mod study;
pub(crate) mod study_out;
pub(crate) mod trace;
pub(crate) mod trace_args;
