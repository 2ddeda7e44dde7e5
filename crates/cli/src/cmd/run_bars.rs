//! Progress of `ssdiq run` on stderr: one bar per phase with its position among all phases,
//! ETA and live throughput; a line per finished phase. Hidden when stderr is not a terminal
//! (the phase lines stay, so logs show how far a run got), silent with `--quiet`.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use ssdiq_suite::observe::{Observer, Phase, StepReport, Unit};

/// Bar resolution: positions are per-mille of the phase's upper bound.
const SCALE: f64 = 1000.0;

pub struct Bars {
    quiet: bool,
    tty: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    bar: Option<ProgressBar>,
    phase: Option<Phase>,
    last: String,
    /// When the phase began: its line says how long it took on the wall clock (on the
    /// emulated SSD, what the emulation cost; `bench/run-time.sh` reads these lines).
    started: Option<std::time::Instant>,
    /// The phase's step was cut short: its line says "stopped", not "done".
    stopped: bool,
}

impl Bars {
    pub fn new(quiet: bool) -> Self {
        Bars {
            quiet,
            tty: std::io::stderr().is_terminal(),
            state: Mutex::new(State::default()),
        }
    }

    pub fn clear(&self) {
        if let Some(b) = self.state.lock().expect("bars").bar.take() {
            b.finish_and_clear();
        }
    }
}

fn unit_label(p: &Phase, done: f64) -> String {
    match p.unit {
        Unit::Bytes => format!(
            "{} of {}",
            ssdiq_workload::units::format_size_approx(done),
            ssdiq_workload::units::format_size_approx(p.total)
        ),
        Unit::Seconds => format!("{done:.1} of {:.1} s", p.total),
    }
}

impl Observer for Bars {
    fn phase(&self, p: &Phase) {
        if self.quiet {
            return;
        }
        let mut st = self.state.lock().expect("bars");
        if let Some(b) = st.bar.take() {
            b.finish_and_clear();
        }
        if self.tty {
            let b = ProgressBar::new(SCALE as u64);
            b.set_style(
                ProgressStyle::with_template(&format!(
                    "[{}/{}] {{prefix:<20}} {{bar:30}} eta {{eta:>4}} {{msg}}",
                    p.index, p.count
                ))
                .expect("static template"),
            );
            b.set_prefix(p.name.clone());
            b.enable_steady_tick(Duration::from_millis(500));
            st.bar = Some(b);
        }
        st.phase = Some(p.clone());
        st.last.clear();
        st.stopped = false;
        st.started = Some(std::time::Instant::now());
    }

    fn advance(&self, done: f64, mb_s: f64) {
        let st = self.state.lock().expect("bars");
        if let (Some(b), Some(p)) = (&st.bar, &st.phase) {
            if p.total > 0.0 {
                b.set_position((done / p.total * SCALE).min(SCALE) as u64);
            }
            b.set_message(format!(
                "{}, {mb_s:.0} MB/s {}",
                unit_label(p, done),
                st.last
            ));
        }
    }

    fn step(&self, r: &StepReport) {
        let mut st = self.state.lock().expect("bars");
        let mut parts = Vec::new();
        st.stopped = r.stopped;
        if r.stopped {
            parts.push(match r.rounds {
                Some((n, of)) => format!("partial: {n} of {of} rounds ran"),
                None => "partial".into(),
            });
        }
        if r.probes.is_empty() {
            if let Some(m) = r.mb_s {
                parts.push(format!("{m:.0} MB/s"));
            }
            if let Some(i) = r.iops {
                parts.push(format!("{:.1}k IOPS", i / 1e3));
            }
        }
        if let Some(w) = r.waf {
            parts.push(match r.waf_lag {
                Some(l) if l > 0.0 => format!(
                    "WAF {w:.2} (lags: {:.0}% of the step's writes still in the drive's buffer)",
                    l * 100.0
                ),
                Some(l) => format!(
                    "WAF {w:.2} (includes {:.0}% of earlier-buffered writes)",
                    -l * 100.0
                ),
                None => format!("WAF {w:.2}"),
            });
        }
        match (r.steady, r.steady_drive_writes) {
            (Some(true), Some(dw)) => parts.push(format!("steady at {dw:.2} drive writes")),
            (Some(true), None) => parts.push("steady".into()),
            (Some(false), _) => parts.push("not steady".into()),
            (None, _) => {}
        }
        for (op, mean, p999) in &r.probes {
            parts.push(format!("{op} probe {mean:.0} us avg, {p999:.0} us P99.9"));
        }
        st.last = format!("| {}", parts.join(", "));
    }

    fn phase_done(&self) {
        if self.quiet {
            return;
        }
        let mut st = self.state.lock().expect("bars");
        if let Some(b) = st.bar.take() {
            b.finish_and_clear();
        }
        if let Some(p) = &st.phase {
            let wall = st
                .started
                .map(|t| format!(" ({:.2} s wall)", t.elapsed().as_secs_f64()))
                .unwrap_or_default();
            eprintln!(
                "[{}/{}] {} {}{wall} {}",
                p.index,
                p.count,
                p.name,
                if st.stopped { "stopped" } else { "done" },
                st.last
            );
        }
    }
}
