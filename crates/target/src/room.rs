//! The bytes a target can offer a trace replay, and what they are, for the replay's messages.

use ssdiq_emu::TargetSpec;
use ssdiq_engine::TargetFacts;
use ssdiq_workload::units::{format_size, format_size_approx};

use crate::error::refused;

/// The emulated drive's capacity, `size` (`--size`), an existing file's or device's size, or
/// a new file's free filesystem space; `None` where unknown.
pub fn room(spec: &TargetSpec, size: Option<u64>) -> anyhow::Result<Option<(u64, String)>> {
    if let Some(p) = spec.profile() {
        let cap = p
            .capacity_bytes()
            .map_err(|e| refused(format!("{spec}: {e}")))?;
        return Ok(Some((cap, format!("{spec} ({})", format_size(cap)))));
    }
    if let Some(b) = size {
        return Ok(Some((b, format!("--size {}", format_size(b)))));
    }
    let Some(path) = spec.path() else {
        return Ok(None);
    };
    if !path.exists() {
        return Ok(crate::free_space(path).map(|(free, dir)| {
            (
                free,
                format!(
                    "the free space of {dir}'s filesystem ({})",
                    format_size_approx(free as f64)
                ),
            )
        }));
    }
    Ok(TargetFacts::probe(path)
        .ok()
        .and_then(|f| f.size)
        .map(|n| (n, format!("{} ({})", path.display(), format_size(n)))))
}
