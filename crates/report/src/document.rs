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
            "- run: {}seed {}, {} thread(s), reset: {}, {:.1} s in total",
            if i.quick { "quick, " } else { "" },
            i.seed,
            i.threads,
            i.reset,
            i.elapsed_s
        );
        let _ = writeln!(
            s,
            "- preconditioning: {:.2} GB sequential in {:.1} s",
            i.precondition_bytes as f64 / 1e9,
            i.precondition_s
        );
    }
    if let Some(b) = &r.derived.load_basis {
        let _ = writeln!(s, "- latency under load: background writes at {b}");
    }
    s.push('\n');
    let (t2, t3) = build_tables(&[r]);
    let _ = write!(s, "{}\n{}\n", markdown::table(&t2), markdown::table(&t3));
    let _ = writeln!(s, "### Steps\n");
    let _ = writeln!(
        s,
        "| Step | rw | pattern | bs | qd x threads | MB/s | k IOPS | WA meas. | WA impl. | rounds | steady window | drive writes |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for st in &r.steps {
        let (mb, kiops) = st
            .ops
            .values()
            .fold((0.0, 0.0), |(m, k), o| (m + o.mb_s, k + o.iops / 1e3));
        let c = st.convergence.as_ref();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} x {} | {:.0} | {:.1} | {} | {} | {} | {} | {} |",
            st.name,
            st.rw,
            st.pattern,
            st.bs,
            st.qd,
            st.threads,
            mb,
            kiops,
            opt(st.waf_measured, 2),
            opt(st.waf_implied, 2),
            st.series.len(),
            match c {
                Some(c) if c.converged => format!("from round {}", c.window_first.unwrap_or(0)),
                Some(_) => "not steady".into(),
                None => "-".into(),
            },
            opt(c.map(|c| c.drive_writes), 2),
        );
    }
    s
}
