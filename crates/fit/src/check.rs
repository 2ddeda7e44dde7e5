//! The twin beside the drive: every figure both have, with its residual.

use std::collections::BTreeMap;

use ssdiq_schema::figures as keys;

use crate::observed::{Observed, WORKLOADS};

pub use ssdiq_schema::CheckRow as Row;

/// The figures a twin is checked on, in the order of the paper's Tables 2 and 3.
pub fn figure_keys() -> Vec<String> {
    let mut k = vec![
        keys::SEQ_READ_MB_S.to_string(),
        keys::SEQ_WRITE_MB_S.to_string(),
        keys::SEQ_WRITE_FREE_POOL_MB_S.to_string(),
        keys::RAND_READ_KIOPS.to_string(),
    ];
    for w in WORKLOADS {
        k.push(keys::of(keys::RAND_WRITE_KIOPS, w));
    }
    k.extend(
        [
            keys::READ_LAT_IDLE_US,
            keys::READ_LAT_LOAD_AVG_US,
            keys::READ_LAT_LOAD_P999_US,
            keys::WRITE_LAT_IDLE_US,
            crate::observed::WRITE_IDLE_P50_US,
            crate::observed::WRITE_IDLE_P999_US,
            keys::WRITE_LAT_LOAD_AVG_US,
            keys::WRITE_LAT_LOAD_P999_US,
        ]
        .map(String::from),
    );
    for fam in [keys::WAF_MEASURED, keys::WAF_IMPLIED] {
        for w in WORKLOADS {
            k.push(keys::of(fam, w));
        }
    }
    k
}

/// Every figure the drive has, beside the twin's.
pub fn compare(drive: &Observed, twin: &BTreeMap<String, f64>) -> Vec<Row> {
    figure_keys()
        .into_iter()
        .filter_map(|key| {
            let d = drive.get(&key)?;
            // A drive without media counters has implied WA only; the twin's measured WA is
            // what that estimates.
            let t = twin.get(&key).copied().or_else(|| {
                let w = key.strip_prefix(&format!("{}.", keys::WAF_IMPLIED))?;
                (!drive.media_counters)
                    .then(|| twin.get(&keys::of(keys::WAF_MEASURED, w)).copied())
                    .flatten()
            });
            Some(Row {
                residual: t.map(|t| (t - d) / d),
                key,
                drive: d,
                twin: t,
            })
        })
        .collect()
}
