//! The Markdown report of one run (`report.md`): what was measured and how, then Tables 2
//! and 3, then per-step details (convergence, rounds, the numbers behind the tables).
//! Every number comes from the result; the layout is pinned by a golden test.

use std::fmt::Write;

use crate::facts::{run_facts, step_rows, STEP_ALIGN, STEP_HEADER};
use crate::markdown;
use crate::model::RunResult;
use crate::table::build_tables;

pub fn run_markdown(r: &RunResult) -> String {
    let mut s = String::new();
    let t = &r.target;
    let _ = writeln!(
        s,
        "# SSD-iq: {}{}\n",
        t.model.as_deref().unwrap_or(&t.name),
        if r.partial { " (partial)" } else { "" }
    );
    for f in run_facts(r) {
        let _ = writeln!(s, "- {}: {}", f.key, f.value);
    }
    s.push('\n');
    let (t2, t3) = build_tables(&[r]);
    let _ = write!(s, "{}\n{}\n", markdown::table(&t2), markdown::table(&t3));
    let _ = writeln!(s, "### Steps\n");
    if r.steps.iter().any(|st| st.value.is_some()) {
        let _ = writeln!(
            s,
            "MB/s and k IOPS: the reference's mean over 60-99% of the step after its moving-mean filter (docs/protocol.md); probes: the medians over their intervals. WA meas. \"(lags N%)\": N% of the step's writes were still in the drive's write buffer when it ended, not yet programmed, so its counters had not counted them; \"(drained N%)\": the drive programmed N% of the step's writes more from what earlier steps left in its buffer (an SLC cache or write buffer emptying), so its WA counts earlier writes too. Steady: the SNIA rule on 30 rounds of the step, throughput and WAF, holding through the window the value comes from.\n"
        );
    }
    let _ = writeln!(s, "| {} |", STEP_HEADER.join(" | "));
    let align: Vec<&str> = STEP_ALIGN
        .iter()
        .map(|&right| if right { "---:" } else { "---" })
        .collect();
    let _ = writeln!(s, "|{}|", align.join("|"));
    for row in step_rows(r) {
        let _ = writeln!(s, "| {} |", row.join(" | "));
    }
    s
}
