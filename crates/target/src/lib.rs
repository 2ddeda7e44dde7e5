//! Everything ssdiq checks before it writes a byte, in one place:
//! - the command's target, opened with every safety check ([`open`]: `--allow-destroy`,
//!   the flags an emulated drive refuses, a file's plan, a block device in use);
//! - what happens to a file target ([`FilePlan`], [`apply`]);
//! - the result files ([`check_outputs`], [`write_output`]): never a device, an input or
//!   two outputs in one file; replaced atomically; the output directory of `run` and
//!   `study` ([`OutDir`]): never one holding earlier results, never two commands at once;
//! - the memory a command may take ([`check_memory`], [`MemoryBudget`]);
//! - the room a target offers a trace replay ([`room`]).
//!
//! Every refusal is a [`Refused`]: bad input, one line, nothing written. The CLI turns it
//! into exit code 2. This crate prints nothing and handles no signals.

mod allow_destroy;
mod error;
mod file_plan;
mod memory;
mod open;
mod out_dir;
mod outputs;
mod room;

pub use error::{refused, Refused};
pub use file_plan::{apply, free_space, FilePlan, Use};
pub use memory::{
    available_memory, check_memory, Lease, MemoryBudget, MAX_DRAWS, MAX_SIM_PAGE_WRITES,
};
pub use open::{open, Access, Opened};
pub use out_dir::OutDir;
pub use outputs::{
    check_apart, check_dir_writable, check_outputs, check_writable, under_dev, write_json,
    write_output,
};
pub use room::room;
