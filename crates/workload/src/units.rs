//! Sizes, rates, durations and fractions, parsed like fio (README.md, "Access patterns"; docs/sources.md#fio):
//! `4k` = `4KiB` = 4096, `1G` = `1GiB` = 2^30, `1GB` = 10^9, `100MB/s`, `25k` (IOPS), `25%`.

pub use crate::error::UnitError;
use std::fmt;

fn unit_err(what: &'static str, input: &str, reason: impl Into<String>) -> UnitError {
    UnitError {
        what,
        input: input.to_string(),
        reason: reason.into(),
    }
}

fn split_number(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    (&s[..end], s[end..].trim())
}

/// Multiplier of a size suffix: binary for `k`, `K`, `KiB`, `KB` is decimal (like fio's
/// `kb_base=1024` default for bare letters and SI for `*B`).
fn size_multiplier(suffix: &str) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    Some(match s.as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "p" | "pib" => 1 << 50,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "pb" => 1_000_000_000_000_000,
        _ => return None,
    })
}

/// A byte count: `4096`, `4k`, `4KiB`, `1.5G`, `1GB`.
pub fn parse_size(input: &str) -> Result<u64, UnitError> {
    let s = input.trim();
    let (num, suffix) = split_number(s);
    if num.is_empty() {
        return Err(unit_err(
            "size",
            input,
            "expected a number with an optional unit like 4k, 8MiB, 1GB",
        ));
    }
    let mult = size_multiplier(suffix).ok_or_else(|| {
        unit_err(
            "size",
            input,
            format!("unknown unit \"{suffix}\"; expected k, M, G, T, KiB.., KB.."),
        )
    })?;
    let too_large = || unit_err("size", input, "too large");
    if !num.contains('.') {
        // Whole numbers exactly: through f64, 872475401470549440 became ...504.
        if num.len() > 30 {
            return Err(too_large());
        }
        let v: u128 = num
            .parse()
            .map_err(|_| unit_err("size", input, "not a number"))?;
        return v
            .checked_mul(mult as u128)
            .filter(|&b| b < u64::MAX as u128)
            .map(|b| b as u64)
            .ok_or_else(too_large);
    }
    let value: f64 = num
        .parse()
        .map_err(|_| unit_err("size", input, "not a number"))?;
    let bytes = value * mult as f64;
    if bytes.fract() != 0.0 {
        return Err(unit_err("size", input, "not a whole number of bytes"));
    }
    if bytes >= u64::MAX as f64 {
        return Err(too_large());
    }
    if bytes >= (1u64 << 53) as f64 {
        // Past 2^53 a fraction like 7.3P is not exact in f64: ask for whole units.
        return Err(unit_err(
            "size",
            input,
            "a fraction this large is not exact; give a whole number",
        ));
    }
    Ok(bytes as u64)
}

/// A count of drive writes or passes: whole numbers as they are, others to three decimals at
/// most (`2`, `0.5`, `1.333`); passes derived from drive writes carry float noise (1.9999999).
pub fn format_writes(w: f64) -> String {
    let r = (w * 1000.0).round() / 1000.0;
    if r.fract() == 0.0 {
        format!("{r}")
    } else {
        let t = format!("{r:.3}");
        t.trim_end_matches('0').to_string()
    }
}

/// Human size with binary units, exact when possible: `4KiB`, `1GiB`, `1536KiB`, `1000`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(&str, u32); 5] = [
        ("PiB", 50),
        ("TiB", 40),
        ("GiB", 30),
        ("MiB", 20),
        ("KiB", 10),
    ];
    for (name, shift) in UNITS {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{name}", bytes >> shift);
        }
    }
    format!("{bytes}")
}

/// Approximate human size for display: `1.50 GiB`.
pub fn format_size_approx(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.2} {}", UNITS[i])
    }
}

/// Approximate human duration for messages: `1.6 s`, `12.0 min`, `3.5 h`, `41.2 days`,
/// `3.2e10 years`.
pub fn format_duration_approx(secs: f64) -> String {
    const DAY: f64 = 86_400.0;
    const YEAR: f64 = 365.25 * DAY;
    if secs < 120.0 {
        format!("{secs:.1} s")
    } else if secs < 7200.0 {
        format!("{:.1} min", secs / 60.0)
    } else if secs < 2.0 * DAY {
        format!("{:.1} h", secs / 3600.0)
    } else if secs < YEAR {
        format!("{:.1} days", secs / DAY)
    } else if secs < 1e4 * YEAR {
        format!("{:.0} years", secs / YEAR)
    } else {
        format!("{:.1e} years", secs / YEAR)
    }
}

/// A target rate: bytes per second or I/Os per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    BytesPerSec(f64),
    IoPerSec(f64),
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rate::BytesPerSec(b) => write!(f, "{:.1}MB/s", b / 1e6),
            Rate::IoPerSec(i) => write!(f, "{i:.0}IOPS"),
        }
    }
}

/// `100MB/s`, `1GiB/s`, `500M/s` (bandwidth), `25k`, `25000`, `25kiops` (I/O rate).
pub fn parse_rate(input: &str) -> Result<Rate, UnitError> {
    let s = input.trim();
    let bad = |r: &str| unit_err("rate", input, r.to_string());
    if let Some(size) = s.strip_suffix("/s") {
        let b = parse_size(size).map_err(|e| bad(&e.reason))?;
        if b == 0 {
            return Err(bad("must be > 0"));
        }
        return Ok(Rate::BytesPerSec(b as f64));
    }
    let lower = s.to_ascii_lowercase();
    let body = lower.strip_suffix("iops").unwrap_or(&lower);
    let (num, suffix) = split_number(body);
    let value: f64 = num
        .parse()
        .map_err(|_| bad("expected a bandwidth like 100MB/s or an I/O rate like 25k"))?;
    let mult = match suffix {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        _ => {
            return Err(bad(
                "expected a bandwidth like 100MB/s or an I/O rate like 25k",
            ))
        }
    };
    if value <= 0.0 {
        return Err(bad("must be > 0"));
    }
    let rate = value * mult;
    if !rate.is_finite() {
        return Err(bad("too large"));
    }
    Ok(Rate::IoPerSec(rate))
}

/// `60s`, `10m`, `1h`, `2d`, `500ms`, `90` (seconds). Returns nanoseconds.
pub fn parse_duration_ns(input: &str) -> Result<u64, UnitError> {
    let s = input.trim();
    let (num, suffix) = split_number(s);
    let value: f64 = num
        .parse()
        .map_err(|_| unit_err("duration", input, "expected a time like 60s, 10m, 500ms"))?;
    let ns = match suffix {
        "" | "s" => 1e9,
        "ms" => 1e6,
        "us" => 1e3,
        "ns" => 1.0,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        "d" => 86_400e9,
        _ => {
            return Err(unit_err(
                "duration",
                input,
                format!("unknown unit \"{suffix}\"; expected ns, us, ms, s, m, h, d"),
            ))
        }
    };
    let total = value * ns;
    if total <= 0.0 {
        return Err(unit_err("duration", input, "must be > 0"));
    }
    if total < 1.0 {
        return Err(unit_err("duration", input, "shorter than 1 ns"));
    }
    // A u64 of nanoseconds holds 584 years; never clamp a longer time silently.
    if total >= u64::MAX as f64 {
        return Err(unit_err(
            "duration",
            input,
            "too large: the longest time is 5124095h (2^64 ns, 584 years)",
        ));
    }
    Ok(total as u64)
}

/// `90%` or `0.9` -> 0.9: a finite number, or a percentage of one, with no range; `None` if
/// it is neither. Callers name the flag and bound the value in their own errors.
pub fn parse_share(input: &str) -> Option<f64> {
    let t = input.trim();
    match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|x| x / 100.0),
        None => t.parse::<f64>(),
    }
    .ok()
    .filter(|v| v.is_finite())
}

/// `25%` or `0.25` -> 0.25. `what` names the quantity in errors.
pub fn parse_fraction(input: &str, what: &'static str) -> Result<f64, UnitError> {
    let s = input.trim();
    let v = if let Some(p) = s.strip_suffix('%') {
        p.trim().parse::<f64>().map(|v| v / 100.0)
    } else {
        s.parse::<f64>()
    }
    .map_err(|_| unit_err(what, input, "expected a fraction like 0.25 or 25%"))?;
    if !(0.0..=1.0).contains(&v) {
        return Err(unit_err(
            what,
            input,
            "must be between 0 and 1 (0% and 100%)",
        ));
    }
    Ok(v)
}

/// A rate as the io document states it.
impl From<Rate> for ssdiq_schema::io::RateInfo {
    fn from(r: Rate) -> Self {
        match r {
            Rate::BytesPerSec(b) => ssdiq_schema::io::RateInfo {
                bytes_per_s: Some(b),
                iops: None,
            },
            Rate::IoPerSec(i) => ssdiq_schema::io::RateInfo {
                bytes_per_s: None,
                iops: Some(i),
            },
        }
    }
}

/// A capacity as a reader knows it: in binary units when whole ("16GiB"), else in decimal
/// gigabytes when whole ("16GB", a 16 GB drive), else exact.
pub fn capacity_text(bytes: u64) -> String {
    if !bytes.is_multiple_of(1 << 20) && bytes.is_multiple_of(1_000_000_000) {
        return format!("{}GB", bytes / 1_000_000_000);
    }
    format_size(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_like_fio() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("4KB").unwrap(), 4000);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("1GB").unwrap(), 1_000_000_000);
        assert_eq!(parse_size("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_size("16GiB").unwrap(), 16 << 30);
        assert!(parse_size("4q")
            .unwrap_err()
            .to_string()
            .starts_with("invalid size \"4q\": unknown unit"));
        assert!(parse_size("k").is_err());
        assert!(parse_size("0.3").is_err());
        assert_eq!(format_size(8 << 20), "8MiB");
        assert_eq!(
            parse_size("872475401470549440").unwrap(),
            872475401470549440
        );
        assert_eq!(
            parse_size("16E").unwrap_err().reason,
            "unknown unit \"E\"; expected k, M, G, T, KiB.., KB.."
        );
        assert_eq!(parse_size("16384P").unwrap_err().reason, "too large");
        assert_eq!(
            parse_size("18446744073709551615").unwrap_err().reason,
            "too large"
        );
        assert_eq!(parse_size("1.5P").unwrap(), 3 << 49);
        assert_eq!(format_size(1000), "1000");
    }

    #[test]
    fn rates_durations_fractions() {
        assert_eq!(parse_rate("100MB/s").unwrap(), Rate::BytesPerSec(1e8));
        assert_eq!(
            parse_rate("1GiB/s").unwrap(),
            Rate::BytesPerSec((1u64 << 30) as f64)
        );
        assert_eq!(parse_rate("25k").unwrap(), Rate::IoPerSec(25_000.0));
        assert_eq!(parse_rate("25kiops").unwrap(), Rate::IoPerSec(25_000.0));
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("0").is_err());
        // A number past f64's range is an error, not an infinite rate (found by fuzz_parsers).
        let huge = format!("7{}", "0".repeat(400));
        assert!(parse_rate(&huge)
            .unwrap_err()
            .to_string()
            .contains("too large"));
        assert_eq!(parse_duration_ns("60s").unwrap(), 60_000_000_000);
        assert_eq!(parse_duration_ns("2m").unwrap(), 120_000_000_000);
        assert_eq!(parse_duration_ns("500ms").unwrap(), 500_000_000);
        assert_eq!(parse_duration_ns("2d").unwrap(), 2 * 86_400_000_000_000);
        assert!(parse_duration_ns("-1s").is_err());
        // Values past what a u64 of nanoseconds holds are refused, never clamped.
        let e = parse_duration_ns("99999999999999999999s").unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
        assert!(parse_duration_ns("5124096h").is_err());
        assert_eq!(
            parse_duration_ns("500000h").unwrap(),
            500_000 * 3_600_000_000_000
        );
        assert!(parse_duration_ns("0.1ns").is_err());
        assert_eq!(parse_fraction("25%", "x").unwrap(), 0.25);
        assert_eq!(parse_fraction("0.875", "x").unwrap(), 0.875);
        assert!(parse_fraction("120%", "fill")
            .unwrap_err()
            .to_string()
            .contains("fill"));
        // A share has no range; it is a finite number or a percentage of one.
        assert_eq!(parse_share(" 90% "), Some(0.9));
        assert_eq!(parse_share("1.5"), Some(1.5));
        assert_eq!(parse_share("-0.1"), Some(-0.1));
        assert_eq!(parse_share("inf"), None);
        assert_eq!(parse_share("x%"), None);
    }
}
