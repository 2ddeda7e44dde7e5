//! Exit codes: 0 success, 1 failure while running, 2 bad input (nothing was written).

use std::fmt;
use std::process::ExitCode;

/// Bad input from the user: reported in one line, exit code 2, before anything is written.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Shorthand: `return Err(usage(format!(...)))`.
pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    UsageError(msg.into()).into()
}

/// Converts any parse error into a usage error.
pub trait OrUsage<T> {
    fn or_usage(self) -> anyhow::Result<T>;
}

impl<T, E: fmt::Display> OrUsage<T> for Result<T, E> {
    fn or_usage(self) -> anyhow::Result<T> {
        self.map_err(|e| usage(e.to_string()))
    }
}

pub fn report(e: &anyhow::Error) -> ExitCode {
    if let Some(u) = e.downcast_ref::<UsageError>() {
        eprintln!("ssdiq: error: {u}");
        return ExitCode::from(2);
    }
    eprintln!("ssdiq: error: {e:#}");
    ExitCode::from(1)
}
