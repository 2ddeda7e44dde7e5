//! The Markdown report of one run (`report.md`): what was measured and how, then Tables 2
//! and 3, then per-step details (convergence, rounds, the numbers behind the tables).
//! Every number comes from the result; the layout is pinned by a golden test.

use std::fmt::Write;

use crate::markdown;
use crate::model::RunResult;
use crate::table::build_tables;

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

pub fn run_markdown(r: &RunResult) -> String {
    let mut s = String::new();
    let t = &r.target;
    let _ = writeln!(
        s,
        "# SSD-iq: {}{}\n",
        t.model.as_deref().unwrap_or(&t.name),
        match (r.partial, r.run.as_ref().and_then(|i| i.error.as_deref())) {
            (true, Some(e)) => format!(" (partial: {e})"),
            (true, None) => " (partial: the run was stopped)".to_string(),
            _ => String::new(),
        }
    );
    let _ = writeln!(s, "- target: `{}`", t.name);
    for (k, v) in [("serial", &t.serial), ("firmware", &t.firmware)] {
        if let Some(v) = v {
            let _ = writeln!(s, "- {k}: {v}");
        }
    }
    let _ = writeln!(
        s,
        "- capacity: {:.2} GB ({} bytes){}",
        t.capacity_bytes as f64 / 1e9,
        t.capacity_bytes,
        if t.emulated { ", emulated" } else { "" }
    );
    let _ = writeln!(s, "- clock: {}", r.clock);
    if let Some(i) = &r.run {
        let _ = writeln!(
            s,
            "- run: {}{}seed {}, reset: {}, {:.1} s in total{}",
            i.protocol
                .as_deref()
                .map(|p| format!("protocol {p}, "))
                .unwrap_or_default(),
            if i.quick { "quick, " } else { "" },
            i.seed,
            i.reset,
            i.elapsed_s,
            i.wall_s
                .map(|w| format!(" ({w:.1} s wall)"))
                .unwrap_or_default()
        );
        if let (Some(t), Some(l), Some(d)) = (i.time_scale, i.load_time_scale, i.drive_write_scale)
        {
            let _ = writeln!(
                s,
                "- scales: time x{t:.4}, idle x{:.4}, latency under load x{l:.4}, drive writes x{d:.3}; repetitions {}, fill {}{}",
                i.idle_time_scale.unwrap_or(t),
                i.repeat.unwrap_or(1),
                i.fill.unwrap_or(1.0),
                if i.until_steady == Some(true) {
                    ", until steady"
                } else {
                    ""
                }
            );
        }
        let _ = writeln!(
            s,
            "- preconditioning: {:.2} GB sequential in {:.1} s",
            i.precondition_bytes as f64 / 1e9,
            i.precondition_s
        );
    }
    if let Some(b) = &r.derived.load_basis {
        let _ = writeln!(s, "- latency under load: {b}");
    }
    if let Some(b) = &r.derived.implied_basis {
        let _ = writeln!(s, "- implied WA divides {b}");
    }
    s.push('\n');
    let (t2, t3) = build_tables(&[r]);
    let _ = write!(s, "{}\n{}\n", markdown::table(&t2), markdown::table(&t3));
    let _ = writeln!(s, "### Steps\n");
    let _ = writeln!(
        s,
        "Value: the reference's mean over 60-99% of the step after the moving-mean filter (latency under load: medians over the probe intervals). Steady: the SNIA rule over 30 rounds of the step.\n"
    );
    let _ = writeln!(
        s,
        "| pass | Step | stage | rw | pattern | bs | threads x qd | s | MB/s | k IOPS | probe avg / P99.9 [us] | WA meas. | WA impl. | steady | drive writes |"
    );
    let _ = writeln!(
        s,
        "|---:|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|---:|"
    );
    for st in &r.steps {
        let v = st.value.as_ref();
        let (mb, kiops) = match v {
            Some(v) => (v.mb_s, v.iops.map(|i| i / 1e3)),
            None => {
                let (m, k) = st
                    .ops
                    .values()
                    .fold((0.0, 0.0), |(m, k), o| (m + o.mb_s, k + o.iops / 1e3));
                (Some(m), Some(k))
            }
        };
        let probes = v
            .map(|v| {
                v.probes
                    .iter()
                    .map(|(op, p)| format!("{op} {:.0} / {:.0}", p.mean_ns / 1e3, p.p99_9_ns / 1e3))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let c = st.convergence.as_ref();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} x {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            st.pass.map(|p| p.to_string()).unwrap_or_default(),
            st.name,
            st.stage.as_deref().unwrap_or(""),
            st.rw,
            st.pattern,
            st.bs,
            st.threads,
            st.qd,
            opt(st.elapsed_s, 1),
            opt(mb, 0),
            opt(kiops, 1),
            if probes.is_empty() {
                "-".into()
            } else {
                probes
            },
            opt(st.waf_measured, 2),
            opt(st.waf_implied, 2),
            match c {
                Some(c)
                    if c.within_reference == Some(true)
                        || (c.within_reference.is_none() && c.converged) =>
                    format!("yes, from round {}", c.window_first.unwrap_or(0) + 1),
                Some(c) if c.converged => format!(
                    "after extension, from round {}",
                    c.window_first.unwrap_or(0) + 1
                ),
                Some(_) => "no".into(),
                None => "-".into(),
            },
            opt(c.map(|c| c.drive_writes), 2),
        );
    }
    s
}
