//! One module per subcommand; each owns its arguments and its `main`.

pub mod emu_info;
pub mod info;
pub mod io;
pub mod pattern;
pub mod report;
pub mod run;
pub mod run_bars;
pub mod run_out;
pub mod run_target;
pub mod sim;
pub mod store;
pub mod store_out;
