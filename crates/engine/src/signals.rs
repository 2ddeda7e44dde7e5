//! SIGINT/SIGTERM set the job's stop flag, so the executor drains and reports `partial`.
//! A second signal while stopping terminates the process the default way (exit code 130/143
//! via the conditional shutdown), so a hung device cannot make Ctrl-C useless.

use std::io;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

/// Installs the handlers and returns the flag they set.
pub fn stop_on_signals() -> io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        // Order matters: the conditional shutdown sees the flag before this signal sets it,
        // so only a second signal exits.
        flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&stop))?;
        flag::register(sig, Arc::clone(&stop))?;
    }
    Ok(stop)
}
