//! The rows of the paper's Tables 1 to 3 (how-to-write-to-ssds): each a named set of store
//! options and the paper's figures for it. The one registry of row names: `ssdiq store --rows`
//! parses them here, applies a row to its options and reports the paper's figures beside the
//! measurement.

use crate::setup::{BackendChoice, Options};
pub use ssdiq_schema::store::PaperRow;

/// A row of the paper's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// The in-place baseline: a double-write buffer, no compression.
    InPlace,
    /// Out-of-place writes.
    Oop,
    /// Out-of-place, compressed.
    Comp,
    /// Compressed, GDT placement.
    Gdt,
    /// Compressed, GDT, NoWA.
    Nowa,
    /// NoWA with the drive's GC unit as the store's.
    Aligned,
    /// Aligned, without compression.
    Nocomp,
    /// Compressed, GDT, aligned, on FDP placement handles (Table 3).
    Fdp,
    /// Compressed, GDT, on zones (Table 2).
    Zns,
}

/// The tables `--rows` may name, and their rows in the paper's order (Table 1's are the
/// first seven of [`Row::ALL`]).
pub const TABLES: [(&str, &[Row]); 3] = [
    ("table1", Row::ALL.split_at(7).0),
    ("table2", &[Row::InPlace, Row::Aligned, Row::Zns]),
    ("table3", &[Row::InPlace, Row::Aligned, Row::Fdp]),
];

impl Row {
    pub const ALL: [Row; 9] = [
        Row::InPlace,
        Row::Oop,
        Row::Comp,
        Row::Gdt,
        Row::Nowa,
        Row::Aligned,
        Row::Nocomp,
        Row::Fdp,
        Row::Zns,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Row::InPlace => "in-place",
            Row::Oop => "oop",
            Row::Comp => "comp",
            Row::Gdt => "gdt",
            Row::Nowa => "nowa",
            Row::Aligned => "aligned",
            Row::Nocomp => "nocomp",
            Row::Fdp => "fdp",
            Row::Zns => "zns",
        }
    }

    pub fn parse(name: &str) -> Option<Row> {
        Row::ALL.into_iter().find(|r| r.name() == name)
    }

    /// `base` with the row's choices: out of place or not, compression, GDT, NoWA, GC-unit
    /// alignment (keeping an explicit unit of `base`) and the backend.
    pub fn apply(self, base: &Options) -> Options {
        let mut o = base.clone();
        let (comp, gdt, nowa, align, backend) = match self {
            Row::InPlace => {
                o.out_of_place = false;
                o.compression = false;
                o.gdt = false;
                o.nowa = false;
                o.align = None;
                o.backend = BackendChoice::Conventional;
                return o;
            }
            Row::Oop => (false, false, false, false, BackendChoice::Conventional),
            Row::Comp => (true, false, false, false, BackendChoice::Conventional),
            Row::Gdt => (true, true, false, false, BackendChoice::Conventional),
            Row::Nowa => (true, true, true, false, BackendChoice::Conventional),
            Row::Aligned => (true, true, true, true, BackendChoice::Conventional),
            Row::Nocomp => (false, true, true, true, BackendChoice::Conventional),
            Row::Fdp => (true, true, false, true, BackendChoice::Fdp),
            Row::Zns => (true, true, false, false, BackendChoice::Zns),
        };
        o.out_of_place = true;
        o.compression = comp;
        o.gdt = gdt;
        o.nowa = nowa;
        o.align = align.then_some(o.align.unwrap_or(None));
        o.backend = backend;
        o
    }

    /// The paper's figures for the row.
    pub fn paper(self) -> PaperRow {
        let t1 = |ops_k, db, ssd, l, p, h| PaperRow {
            table: "Table 1",
            ops_k,
            db_waf: Some(db),
            ssd_waf: Some(ssd),
            logical_bytes_per_op: Some(l),
            physical_bytes_per_op: Some(p),
            hit_ratio: Some(h),
        };
        let only_ops = |table, ops_k, db_waf, ssd_waf| PaperRow {
            table,
            ops_k,
            db_waf,
            ssd_waf,
            logical_bytes_per_op: None,
            physical_bytes_per_op: None,
            hit_ratio: None,
        };
        match self {
            Row::InPlace => t1(229.0, 2.00, 2.36, 1858.0, 4378.0, 0.932),
            Row::Oop => t1(230.0, 4.06, 1.94, 3745.0, 7274.0, 0.918),
            Row::Comp => t1(380.0, 0.62, 1.95, 566.0, 566.0, 0.929),
            Row::Gdt => t1(458.0, 0.59, 1.96, 566.0, 1110.0, 0.931),
            Row::Nowa => t1(510.0, 0.60, 1.07, 567.0, 606.0, 0.931),
            Row::Aligned => t1(535.0, 0.60, 1.00, 567.0, 567.0, 0.931),
            Row::Nocomp => t1(328.0, 3.58, 1.00, 3364.0, 3364.0, 0.927),
            Row::Fdp => only_ops("Table 3", 553.0, Some(0.54), Some(1.00)),
            Row::Zns => only_ops("Table 2", 330.3, None, None),
        }
    }
}

/// The row names of a `--rows` list, tables expanded, each once where first named (table2
/// and table3 share in-place and aligned); names that are no row are kept for the caller
/// to refuse.
pub fn expand(list: &str) -> Vec<String> {
    let mut v = Vec::new();
    for r in list.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        match TABLES.iter().find(|(t, _)| *t == r) {
            Some((_, rows)) => v.extend(rows.iter().map(|r| r.name().to_string())),
            None => v.push(r.to_string()),
        }
    }
    let mut seen = std::collections::HashSet::new();
    v.retain(|r| seen.insert(r.clone()));
    v
}

/// What `--rows` accepts, in words: every row, then every table.
pub fn expected() -> String {
    let names: Vec<&str> = Row::ALL
        .iter()
        .map(|r| r.name())
        .chain(TABLES.iter().map(|t| t.0))
        .collect();
    let (last, rest) = names.split_last().expect("rows exist");
    format!("{} or {last}", rest.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_named_twice_run_once() {
        assert_eq!(
            expand("table2,table3,in-place"),
            ["in-place", "aligned", "zns", "fdp"]
        );
        assert_eq!(expand("table1,table1").len(), 7);
    }

    #[test]
    fn every_row_parses_by_its_name() {
        for r in Row::ALL {
            assert_eq!(Row::parse(r.name()), Some(r));
        }
        assert_eq!(Row::parse("table1"), None);
        assert_eq!(
            expected(),
            "in-place, oop, comp, gdt, nowa, aligned, nocomp, fdp, zns, table1, table2 or table3"
        );
    }
}
