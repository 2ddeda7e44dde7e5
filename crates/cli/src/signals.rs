//! SIGINT/SIGTERM handling for the CLI.
//!
//! Invariants:
//! - [`stop_on_signals`] is called first thing, before any setup: until [`drain_on_signals`]
//!   (when the job starts) a signal terminates at once (exit code 128 + signal), since
//!   nothing has been written yet, however long a setup takes (an emulated drive of a TiB).
//! - After [`drain_on_signals`], the first signal sets the job's stop flag, so the executor
//!   drains and reports `partial`; a second one terminates the process, so a hung device
//!   cannot make Ctrl-C useless.
//! - [`exit_on_signals`]: for commands with nothing to drain, the first signal terminates.
//! - While a [`DeferExit`] guard is alive (results being written), termination waits: the
//!   signal is remembered and the process exits when the last guard drops, so a Ctrl-C never
//!   leaves a temporary file behind or half of a result set.
//! - The handlers only touch atomics and call `_exit`: async-signal-safe.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};

/// Live [`DeferExit`] guards.
static DEFER_DEPTH: AtomicUsize = AtomicUsize::new(0);
/// A terminating signal that arrived while deferred (0: none).
static PENDING: AtomicI32 = AtomicI32::new(0);

fn terminate_or_defer(sig: i32) {
    if DEFER_DEPTH.load(Ordering::SeqCst) > 0 {
        PENDING.store(sig, Ordering::SeqCst);
    } else {
        signal_hook::low_level::exit(128 + sig);
    }
}

/// Set once the job runs: signals then drain instead of terminating.
static DRAINING: AtomicBool = AtomicBool::new(false);

/// Installs the handlers and returns the flag the first signal sets once the job runs
/// (see [`drain_on_signals`]).
pub fn stop_on_signals() -> io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        let flag = Arc::clone(&stop);
        // SAFETY: the action only uses atomics and `_exit`.
        unsafe {
            signal_hook::low_level::register(sig, move || {
                if !DRAINING.load(Ordering::SeqCst) || flag.swap(true, Ordering::SeqCst) {
                    terminate_or_defer(sig);
                }
            })?;
        }
    }
    Ok(stop)
}

/// The job starts: from now on the first signal stops it (results saved, partial) rather
/// than ending the process.
pub fn drain_on_signals() {
    DRAINING.store(true, Ordering::SeqCst);
}

/// Installs handlers that terminate at the first signal (exit code 128 + signal), except
/// while a [`DeferExit`] guard is alive.
pub fn exit_on_signals() -> io::Result<()> {
    for sig in [SIGINT, SIGTERM] {
        // SAFETY: the action only uses atomics and `_exit`.
        unsafe {
            signal_hook::low_level::register(sig, move || terminate_or_defer(sig))?;
        }
    }
    Ok(())
}

/// While alive, a terminating signal waits; see the module invariants.
#[must_use = "termination is deferred only while the guard lives"]
pub struct DeferExit(());

/// Defers termination by signal until the returned guard (and every other) is dropped.
pub fn defer_exit() -> DeferExit {
    DEFER_DEPTH.fetch_add(1, Ordering::SeqCst);
    DeferExit(())
}

impl Drop for DeferExit {
    fn drop(&mut self) {
        if DEFER_DEPTH.fetch_sub(1, Ordering::SeqCst) == 1 {
            let sig = PENDING.swap(0, Ordering::SeqCst);
            if sig != 0 {
                signal_hook::low_level::exit(128 + sig);
            }
        }
    }
}
