//! How a run was done, as label/value lines and a per-step table: what the Markdown report
//! and the HTML report both print, from one place, so neither says less than the other.

use crate::model::{steps, RunResult, StepResult};

/// One line of a run's description.
#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    pub key: &'static str,
    pub value: String,
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

/// What was measured and how: target, identity, capacity, clock, run settings, reset,
/// preconditioning, the latency-under-load load asked for and applied, completeness.
pub fn run_facts(r: &RunResult) -> Vec<Fact> {
    let mut out = Vec::new();
    let mut add = |key, value: String| out.push(Fact { key, value });
    let t = &r.target;
    add("target", t.name.clone());
    if let Some(m) = t.model.as_ref().filter(|m| **m != t.name) {
        add("model", m.clone());
    }
    if let Some(s) = &t.serial {
        add("serial", s.clone());
    }
    if let Some(f) = &t.firmware {
        add("firmware", f.clone());
    }
    add(
        "capacity",
        format!(
            "{:.2} GB ({} bytes){}",
            t.capacity_bytes as f64 / 1e9,
            t.capacity_bytes,
            if t.emulated { ", emulated" } else { "" }
        ),
    );
    add("clock", r.clock.clone());
    if let Some(i) = &r.run {
        add(
            "run",
            format!(
                "{}seed {}, {} thread(s), reset: {}, {:.1} s in total",
                if i.quick { "quick, " } else { "" },
                i.seed,
                i.threads,
                i.reset,
                i.elapsed_s
            ),
        );
        add(
            "preconditioning",
            format!(
                "{:.2} GB sequential in {:.1} s",
                i.precondition_bytes as f64 / 1e9,
                i.precondition_s
            ),
        );
    }
    if let Some(b) = &r.derived.load_basis {
        add("latency under load", format!("background writes at {b}"));
    }
    if let Some(applied) = r.step(steps::LATENCY_UNDER_LOAD).and_then(load_applied) {
        add("load applied", applied);
    }
    if r.partial {
        add(
            "status",
            match r.run.as_ref().and_then(|i| i.error.as_deref()) {
                Some(e) => format!("partial: {e}"),
                None => "partial: the run was stopped".into(),
            },
        );
    }
    out
}

/// The bandwidth latency under load actually ran at: background load and probes.
fn load_applied(s: &StepResult) -> Option<String> {
    let load: f64 = s.ops.values().map(|o| o.mb_s).sum();
    if s.ops.is_empty() {
        return None;
    }
    let mut text = format!(
        "{load:.1} MB/s background {}",
        s.rw.trim_start_matches("rand")
    );
    for (name, p) in &s.probes {
        text.push_str(&format!(
            ", {name} probe {:.1} MB/s ({:.0} IOPS)",
            p.mb_s, p.iops
        ));
    }
    Some(text)
}

pub const STEP_HEADER: [&str; 12] = [
    "Step",
    "rw",
    "pattern",
    "bs",
    "qd x threads",
    "MB/s",
    "k IOPS",
    "WA meas.",
    "WA impl.",
    "rounds",
    "steady window",
    "drive writes",
];

/// One row per step, the columns of [`STEP_HEADER`].
pub fn step_rows(r: &RunResult) -> Vec<[String; 12]> {
    r.steps
        .iter()
        .map(|st| {
            let (mb, kiops) = st
                .ops
                .values()
                .fold((0.0, 0.0), |(m, k), o| (m + o.mb_s, k + o.iops / 1e3));
            let c = st.convergence.as_ref();
            [
                st.name.clone(),
                st.rw.clone(),
                st.pattern.clone(),
                st.bs.to_string(),
                format!("{} x {}", st.qd, st.threads),
                format!("{mb:.0}"),
                format!("{kiops:.1}"),
                opt(st.waf_measured, 2),
                opt(st.waf_implied, 2),
                st.series.len().to_string(),
                match c {
                    Some(c) if c.converged => {
                        format!("from round {}", c.window_first.unwrap_or(0))
                    }
                    Some(_) => "not steady".into(),
                    None => "-".into(),
                },
                opt(c.map(|c| c.drive_writes), 2),
            ]
        })
        .collect()
}
