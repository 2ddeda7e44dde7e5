//! Where `ssdiq run` writes: the output directory (checked before the run, created after
//! validation) and its four files, written through `crate::output`.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use ssdiq_report::RunResult;
use ssdiq_report::{csv, document, html};

use crate::error::usage;
use crate::output::{write_json, write_output};

/// `ssdiq-results/<target>-<UTC time>`, the target made safe for a file name.
pub fn default_dir(target: &str) -> PathBuf {
    let name: String = target
        .trim_start_matches("/dev/")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = name.trim_matches('_');
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    PathBuf::from("ssdiq-results").join(format!("{name}-{}", utc_stamp(secs)))
}

/// `YYYYMMDDTHHMMSSZ` for seconds since the epoch (civil-from-days, proleptic Gregorian).
pub fn utc_stamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The files [`write_all`] writes.
pub const FILES: [&str; 5] = [
    "run.json",
    "series.csv",
    "device.csv",
    "report.md",
    "report.html",
];

/// Bad input if `dir` exists but is not a directory, or it or its files cannot be written,
/// or one of them is a file `target` reads (its profile, the target file); nothing is created
/// here.
pub fn check_dir(dir: &Path, target: &str) -> anyhow::Result<()> {
    check_dir_for(dir, &FILES, target)
}

/// [`check_dir`] for a command writing `files` (`ssdiq study`).
pub fn check_dir_for(dir: &Path, files: &[&str], target: &str) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(usage(format!(
            "invalid --out \"{}\": exists and is not a directory",
            dir.display()
        )));
    }
    crate::output::check_dir_writable(dir, files)?;
    if !dir.is_dir() {
        // A directory still to be created holds no input.
        return Ok(());
    }
    let paths: Vec<std::path::PathBuf> = files.iter().map(|f| dir.join(f)).collect();
    let outputs: Vec<(&str, Option<&Path>)> =
        paths.iter().map(|p| ("--out", Some(p.as_path()))).collect();
    // Writability was checked with the directory.
    crate::output::check_apart(&outputs, &ssdiq_emu::target_inputs(target))
}

pub fn write_all(dir: &Path, r: &RunResult) -> anyhow::Result<()> {
    // All files or a Ctrl-C waits: a result set is never half written.
    let _defer = crate::signals::defer_exit();
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    write_json(&dir.join("run.json"), r)?;
    write_output(&dir.join("series.csv"), csv::series(r).as_bytes())?;
    if !r.device_log.is_empty() {
        write_output(&dir.join("device.csv"), csv::device(r).as_bytes())?;
    }
    write_output(&dir.join("report.md"), document::run_markdown(r).as_bytes())?;
    write_output(&dir.join("report.html"), html::render(&[r]).as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_and_names() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        assert_eq!(utc_stamp(1_795_430_000), "20261123T103320Z");
        assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
        let d = default_dir("emu:default,op=0.28");
        let s = d.to_string_lossy();
        assert!(s.starts_with("ssdiq-results/emu_default_op_0.28-"), "{s}");
    }
}
