//! The pattern document as text: what `ssdiq pattern` prints.

use std::fmt::Write as _;

use ssdiq_schema::pattern::PatternReport;

fn pct(x: f64) -> String {
    format!("{:.3}%", x * 100.0)
}

/// The terminal summary of `ssdiq pattern`.
pub fn text(r: &PatternReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "pattern {} over {} pages, {} draws ({:.2} per page), seed {}",
        r.pattern,
        r.pages,
        r.draws,
        r.draws as f64 / r.pages as f64,
        r.seed
    );
    let expect = match r.expected_touched_fraction {
        Some((m, sd)) => format!("  (expected {} +- {})", pct(m), pct(sd)),
        None => String::new(),
    };
    let _ = writeln!(
        s,
        "pages touched: {} of {} = {}{}",
        r.touched,
        r.pages,
        pct(r.touched_fraction),
        expect
    );
    if r.trims > 0 {
        let _ = writeln!(s, "zone trims: {}", r.trims);
    }
    let _ = writeln!(s, "{:<24} {:>12} {:>12}", "hottest pages", "share", "exact");
    for t in &r.top {
        let label = format!(
            "top {} ({} pages)",
            pct(t.pages_fraction).replace(".000%", "%"),
            t.pages
        );
        let exact = t.expected.map(pct).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "{label:<24} {:>12} {exact:>12}", pct(t.share));
    }
    let max = r.count_histogram.last().map(|c| c.0).unwrap_or(0);
    let _ = writeln!(s, "most accesses to one page: {max}");
    s
}

/// The access-count histogram as CSV: how many pages were accessed how often.
pub fn count_csv(r: &PatternReport) -> String {
    let mut s = String::from("accesses_per_page,pages\n");
    for (c, n) in &r.count_histogram {
        let _ = writeln!(s, "{c},{n}");
    }
    s
}

/// The LBA histogram as CSV: the accesses of each bin of pages, with its first and last page.
pub fn lba_csv(r: &PatternReport) -> String {
    let mut s = String::from("bin,first_page,last_page,accesses\n");
    let bins = r.lba_histogram.len() as u128;
    let pages = r.pages as u128;
    for (i, a) in r.lba_histogram.iter().enumerate() {
        let first = (i as u128 * pages).div_ceil(bins);
        let last = ((i as u128 + 1) * pages).div_ceil(bins) - 1;
        let _ = writeln!(s, "{i},{first},{last},{a}");
    }
    s
}
