//! Small text inputs (emulator profiles, datasheet specs, result documents) are read with a
//! size limit: `/dev/zero`, or a disk image named by mistake, fails at once with a message
//! instead of filling memory.

use std::io::{self, Read};
use std::path::Path;

/// Limit for configuration files (TOML profiles and specs).
pub const CONFIG_LIMIT: u64 = 1 << 20;

/// Reads `path` as UTF-8 text of at most `limit` bytes.
pub fn read_text(path: &Path, limit: u64) -> io::Result<String> {
    let f = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    f.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {}; not the file meant here?",
                ssdiq_workload::units::format_size_approx(limit as f64)
            ),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_binary_inputs_fail_quickly() {
        let e = read_text(Path::new("/dev/zero"), 4096).unwrap_err();
        assert!(e.to_string().contains("larger than 4.00 KiB"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("b");
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert!(read_text(&f, 10).unwrap_err().to_string().contains("UTF-8"));
        std::fs::write(&f, "ok").unwrap();
        assert_eq!(read_text(&f, 2).unwrap(), "ok");
    }
}
