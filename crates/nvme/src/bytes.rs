//! Little-endian field access with bounds checks, for the decoders.

use crate::NvmeError;

pub(crate) fn need(buf: &[u8], len: usize, what: &str) -> Result<(), NvmeError> {
    if buf.len() < len {
        return Err(NvmeError::Decode(format!(
            "{what}: {} bytes, expected at least {len}",
            buf.len()
        )));
    }
    Ok(())
}

/// Unsigned little-endian integer of `n` (1..=16) bytes at `off`. Callers check the length.
pub(crate) fn le(buf: &[u8], off: usize, n: usize) -> u128 {
    buf[off..off + n]
        .iter()
        .rev()
        .fold(0u128, |acc, b| (acc << 8) | *b as u128)
}

pub(crate) fn u8_(buf: &[u8], off: usize) -> u8 {
    buf[off]
}
pub(crate) fn u16_(buf: &[u8], off: usize) -> u16 {
    le(buf, off, 2) as u16
}
pub(crate) fn u32_(buf: &[u8], off: usize) -> u32 {
    le(buf, off, 4) as u32
}
pub(crate) fn u64_(buf: &[u8], off: usize) -> u64 {
    le(buf, off, 8) as u64
}
pub(crate) fn u128_(buf: &[u8], off: usize) -> u128 {
    le(buf, off, 16)
}

/// ASCII string field, space/NUL padded (as in Identify SN/MN/FR).
pub(crate) fn ascii(buf: &[u8], off: usize, n: usize) -> String {
    String::from_utf8_lossy(&buf[off..off + n])
        .trim_end_matches(['\0', ' '])
        .trim_start()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_endian_widths() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
        assert_eq!(u16_(&b, 0), 0x0201);
        assert_eq!(u32_(&b, 1), 0x05040302);
        assert_eq!(le(&b, 0, 6), 0x060504030201);
        assert_eq!(u128_(&b, 0), 0x100F0E0D0C0B0A090807060504030201);
        assert_eq!(ascii(b"  ab  \0\0", 0, 8), "ab");
        assert!(need(&b, 17, "x").is_err());
    }
}
