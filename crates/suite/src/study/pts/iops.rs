//! PTS IOPS: random I/O at 7 read/write mixes x 7 block sizes (the spec's 0.5 KiB is left
//! out: the emulated drive and 4Kn devices cannot address it), T4Q32, in rounds until the
//! 4 KiB random-write IOPS is steady; reported: IOPS per mix and block size over the window.

use std::collections::BTreeMap;

use ssdiq_schema::StudyPoint;

use super::{conclude_steady, mix_label, Cell};
use crate::study::bench::Bench;
use crate::target::SuiteError;

const MIXES: [u32; 7] = [100, 95, 65, 50, 35, 5, 0];
const SIZES_KIB: [u64; 7] = [1024, 128, 64, 32, 16, 8, 4];

fn cells(quick: bool) -> Vec<Cell> {
    let (mixes, sizes): (&[u32], &[u64]) = if quick {
        (&[100, 65, 0], &[1024, 64, 4])
    } else {
        (&MIXES, &SIZES_KIB)
    };
    let mut out = Vec::new();
    for &r in mixes {
        for &k in sizes {
            let bs = k * 1024;
            out.push(Cell::grid(r, true, bs, 4, 32));
        }
    }
    out
}

pub fn run(b: &mut Bench<'_>) -> Result<(), SuiteError> {
    let cells = cells(b.quick);
    super::steady_state_test(
        b,
        &cells,
        &|c| c.read_pct == 0 && c.bs == 4096,
        "rw4k_iops",
        |r| r.iops,
    )
}

pub fn conclude(points: &[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>) {
    let (mut result, mut findings) = conclude_steady(points);
    for (r, name) in [(100, "read"), (0, "write")] {
        if let Some(p) = points
            .iter()
            .find(|p| p.series == mix_label(r) && p.x == 4.0)
        {
            if let Some(iops) = p.values.get("iops") {
                result.insert(format!("rand_4k_{name}_iops"), *iops);
                findings.push(format!(
                    "4 KiB random {name}s ({}), T4Q32: {:.1} kIOPS",
                    mix_label(r),
                    iops / 1e3
                ));
            }
        }
    }
    (result, findings)
}
