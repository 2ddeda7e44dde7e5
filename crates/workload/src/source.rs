//! Request sources beyond the pattern streams: what a recorded trace turns into.
//!
//! Invariants:
//! - A [`DrawSource`] is endless, like a [`PageStream`]: the simulator pulls as many page
//!   draws as its write budget needs (a trace source loops over its file).
//! - A [`TimedSource`] is finite and ordered: each request carries the time at which the
//!   recording issued it, in nanoseconds since the recording's first request. Times may go
//!   backwards (traces merged from several CPUs or disks); a replayer issues such a request
//!   at once.
//! - Requests address pages of the consumer's unit (the flash page for the simulator, the
//!   job's block size for the engine), exactly as the pattern streams do.

use crate::stream::{Draw, PageStream, Request};

/// An endless source of page draws (writes and trims) for the flash simulator.
pub trait DrawSource {
    fn next_draw(&mut self) -> Draw;

    /// True once the source cannot go on (a trace file that became unreadable); the
    /// simulator stops and its caller reports the source's error.
    fn failed(&self) -> bool {
        false
    }
}

impl DrawSource for PageStream {
    #[inline]
    fn next_draw(&mut self) -> Draw {
        PageStream::next_draw(self)
    }
}

/// A request at the time the recording issued it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedRequest {
    /// Nanoseconds since the first request of the recording.
    pub at_ns: u64,
    pub request: Request,
}

/// A finite, ordered source of timed requests (a trace being replayed). `Send` so the
/// threads of one job can share it behind a lock.
pub trait TimedSource: Send {
    /// The next request, or `None` at the end of the recording (or after an error, which
    /// [`TimedSource::error`] then describes).
    fn next_timed(&mut self) -> Option<TimedRequest>;

    /// Why the source ended early, if it did.
    fn error(&self) -> Option<String> {
        None
    }
}
