//! Result files: written through `ssdiq_target`'s rules, with termination by a signal held
//! back while a file is written, so a Ctrl-C never leaves a temporary file behind.

use std::path::Path;

pub(crate) use ssdiq_target::{check_apart, check_dir_writable, check_outputs};

/// Writes `bytes` to `path` (`ssdiq_target::write_output`), a signal waiting until it is done.
pub fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let _defer = crate::signals::defer_exit();
    ssdiq_target::write_output(path, bytes)
}

/// Writes `value` as pretty JSON with a final newline.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let _defer = crate::signals::defer_exit();
    ssdiq_target::write_json(path, value)
}
