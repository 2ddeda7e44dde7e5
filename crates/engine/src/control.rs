//! How a caller steers a running job: a stop flag (set by signal handlers or a UI) and a
//! progress callback. The engine never prints; the CLI draws bars from these callbacks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Progress callbacks; all have empty defaults. Called from the coordinating thread.
pub trait Progress: Sync {
    /// Preconditioning wrote `done` of `total` bytes.
    fn fill(&self, _done: u64, _total: u64) {}
    /// The measured job has run for `elapsed_ns`, the main streams issued `bytes`.
    fn running(&self, _elapsed_ns: u64, _bytes: u64) {}
}

pub struct NoProgress;
impl Progress for NoProgress {}

pub struct RunControl<'a> {
    /// When set, executors stop submitting, drain in-flight I/O and return partial stats.
    pub stop: Arc<AtomicBool>,
    pub progress: &'a dyn Progress,
}

impl<'a> RunControl<'a> {
    pub fn new(stop: Arc<AtomicBool>, progress: &'a dyn Progress) -> Self {
        RunControl { stop, progress }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

impl Default for RunControl<'static> {
    fn default() -> Self {
        RunControl {
            stop: Arc::new(AtomicBool::new(false)),
            progress: &NoProgress,
        }
    }
}
