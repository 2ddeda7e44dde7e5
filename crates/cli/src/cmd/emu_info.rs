//! `ssdiq info emu:PROFILE`: the emulated drive's identity, geometry, OP, timing profile,
//! datasheet spec and write counters (a fresh drive: zero). Human text on stdout, the same
//! facts as JSON with `--json` (the `info` object a real drive gives, plus `"emulated"`).
//! The facts come from the emu crate, the text from the report crate.

use std::path::Path;
use std::process::ExitCode;

use ssdiq_emu::{EmuExecutor, Profile};
use ssdiq_nvme::{InfoReport, WriteCounters};
use ssdiq_report::emu_info as page;
use ssdiq_schema::emu_info::{EmuInfoDoc, EmuListDoc};

use crate::error::usage;
use crate::output::write_json;

/// The pseudo-target that lists the shipped profiles.
pub const LIST: &str = "emu:list";

/// `ssdiq info emu:list`.
pub fn list(json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let rows = ssdiq_emu::facts::listed()?;
    print!("{}", page::list_text(&rows));
    if let Some(p) = json {
        // Through a JSON value: keys sorted, as the document has always been written.
        write_json(p, &serde_json::to_value(EmuListDoc::new(rows))?)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `ssdiq info` of an emulated drive whose `profile` was parsed from `target`.
pub fn main(target: &str, profile: Profile, json: Option<&Path>) -> anyhow::Result<ExitCode> {
    let e = EmuExecutor::from_profile(profile).map_err(|e| usage(e.to_string()))?;
    let f = ssdiq_emu::facts::facts(&e);
    let params = ssdiq_emu::facts::parameters(target).map_err(|e| usage(e.to_string()))?;
    print!(
        "{}{}",
        page::text(target, &f),
        page::parameters_text(&params)
    );
    if let Some(p) = json {
        let report = InfoReport {
            target: target.to_string(),
            source: "emulated".into(),
            model: Some(f.description.clone()),
            capacity_bytes: Some(f.geometry.logical_bytes as u128),
            block_size: Some(f.geometry.logical_block_bytes),
            write_counters: Some(WriteCounters {
                host_bytes_written: f.host_bytes as u128,
                media_bytes_written: Some(f.media_bytes as u128),
            }),
            ..Default::default()
        };
        let doc = EmuInfoDoc::new(report, f, params);
        write_json(p, &serde_json::to_value(doc)?)?;
    }
    Ok(ExitCode::SUCCESS)
}
