//! `ssdiq store`'s progress on stderr, one row at a time: on a terminal a bar per phase
//! (load, warm-up, measurement) with its share done and an ETA; otherwise a line as each
//! phase ends and one at least every 10 s within it, so a log shows where a long run is.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use ssdiq_store::experiment::Phase;

/// Longest silence on stderr off a terminal while a phase runs.
const HEARTBEAT: Duration = Duration::from_secs(10);

/// A row's progress on stderr: on a terminal a bar per phase (load, warm-up, measurement)
/// with its share done and an ETA; otherwise a line as each phase ends, with its wall time,
/// and a line with its share done at least every [`HEARTBEAT`].
pub struct RowProgress {
    name: String,
    quiet: bool,
    bar: Option<ProgressBar>,
    /// The phase shown now and when it began.
    current: Option<(&'static str, Instant)>,
    /// When the last line was printed (off a terminal).
    said: Instant,
}

impl RowProgress {
    pub fn new(name: &str, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::new(1000);
            b.set_style(
                ProgressStyle::with_template("{prefix} [{bar:30}] {percent:>3}% eta {eta} {msg}")
                    .expect("static template")
                    .progress_chars("=> "),
            );
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        RowProgress {
            name: name.to_string(),
            quiet,
            bar,
            current: None,
            said: Instant::now(),
        }
    }

    pub fn update(&mut self, phase: Phase, ops: u64) {
        let (label, done, msg) = match phase {
            Phase::Load { pages, of } => (
                "loading",
                pages as f64 / of.max(1) as f64,
                format!("{pages} of {of} pages"),
            ),
            Phase::Warmup { done } => ("warming up", done, format!("{ops} ops")),
            Phase::Measure { done } => ("measuring", done, format!("{ops} ops")),
        };
        if self.current.map(|(l, _)| l) != Some(label) {
            let ended = self.current.take();
            self.phase_ended(ended);
            self.current = Some((label, Instant::now()));
            if let Some(b) = &self.bar {
                b.reset();
                b.set_prefix(format!("{}: {label}", self.name));
            }
        }
        if let Some(b) = &self.bar {
            b.set_position((done * 1000.0) as u64);
            b.set_message(msg);
        } else if !self.quiet && self.said.elapsed() >= HEARTBEAT {
            let since = self
                .current
                .map_or(0.0, |(_, at)| at.elapsed().as_secs_f64());
            eprintln!(
                "{}: {label} {:.0}% ({msg}, {since:.0} s wall)",
                self.name,
                done * 100.0
            );
            self.said = Instant::now();
        }
    }

    /// Without a terminal, one line per finished phase.
    fn phase_ended(&mut self, phase: Option<(&'static str, Instant)>) {
        if let (Some((label, at)), None, false) = (phase, &self.bar, self.quiet) {
            eprintln!(
                "{}: {label} done ({:.1} s wall)",
                self.name,
                at.elapsed().as_secs_f64()
            );
            self.said = Instant::now();
        }
    }

    /// The row ended; `interrupted`: by a stop request, so its last phase did not finish.
    pub fn finish(&mut self, interrupted: bool) {
        let last = self.current.take();
        if interrupted {
            if let (Some((label, at)), None, false) = (last, &self.bar, self.quiet) {
                eprintln!(
                    "{}: {label} interrupted ({:.1} s wall)",
                    self.name,
                    at.elapsed().as_secs_f64()
                );
            }
        } else {
            self.phase_ended(last);
        }
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
