//! `ssdiq store`'s progress on stderr, one row at a time: on a terminal a bar per phase
//! (load, warm-up, measurement) with its share done and an ETA; otherwise a line as each
//! phase ends, so a log shows where a long run is.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use ssdiq_store::experiment::Phase;

/// A row's progress on stderr: on a terminal a bar per phase (load, warm-up, measurement)
/// with its share done and an ETA; otherwise a line as each phase ends, with its wall time.
pub struct RowProgress {
    name: String,
    quiet: bool,
    bar: Option<ProgressBar>,
    /// The phase shown now and when it began.
    current: Option<(&'static str, Instant)>,
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
        }
    }

    /// Without a terminal, one line per finished phase.
    fn phase_ended(&self, phase: Option<(&'static str, Instant)>) {
        if let (Some((label, at)), None, false) = (phase, &self.bar, self.quiet) {
            eprintln!(
                "{}: {label} done ({:.1} s wall)",
                self.name,
                at.elapsed().as_secs_f64()
            );
        }
    }

    pub fn finish(&mut self) {
        let last = self.current.take();
        self.phase_ended(last);
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
