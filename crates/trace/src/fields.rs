//! Byte-level field splitting and number parsing for the line formats.
//!
//! Why hand-written: the trace formats are unquoted CSV or whitespace-separated text, and the
//! parsers must do millions of lines per second; splitting on one byte and parsing digits in
//! place avoids the allocation and UTF-8 checks a general CSV reader would spend per field.
//! Every function here rejects what it does not understand (returns `None`), never guesses.

/// Splits `line` at `sep` into `out`, returning the number of fields; fields beyond
/// `out.len()` are joined into the last one (callers size `out` one above what they read, so
/// an over-long line is still seen to have "more" fields).
#[inline]
pub fn split<'a>(line: &'a [u8], sep: u8, out: &mut [&'a [u8]]) -> usize {
    // A plain loop: fields are a few bytes long, shorter than a vectorised search pays for.
    let mut n = 0;
    let mut start = 0;
    for (i, &b) in line.iter().enumerate() {
        if b == sep {
            out[n] = &line[start..i];
            n += 1;
            start = i + 1;
            if n + 1 == out.len() {
                break;
            }
        }
    }
    out[n] = &line[start..];
    n + 1
}

/// Splits `line` at runs of spaces and tabs into `out`, like [`split`]; leading and trailing
/// blanks are ignored.
#[inline]
pub fn split_ws<'a>(line: &'a [u8], out: &mut [&'a [u8]]) -> usize {
    let mut n = 0;
    let len = line.len();
    let mut i = skip(line, 0, false);
    while i < len && n < out.len() {
        let start = i;
        if n + 1 == out.len() {
            // The last slot takes the rest of the line.
            let mut end = len;
            while end > start && is_blank(line[end - 1]) {
                end -= 1;
            }
            out[n] = &line[start..end];
            return n + 1;
        }
        i = skip(line, i, true);
        out[n] = &line[start..i];
        n += 1;
        i = skip(line, i, false);
    }
    n
}

/// The first index from `i` whose byte is not blank (`blank` false: skipping blanks) or not
/// a field byte (`blank` true: skipping a field). Byte by byte: fields are a few bytes long,
/// and a word-at-a-time version measured 1.65x the instructions (callgrind, blkparse text).
#[inline]
fn skip(line: &[u8], mut i: usize, blank: bool) -> usize {
    while i < line.len() && is_blank(line[i]) != blank {
        i += 1;
    }
    i
}

#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Strips spaces and tabs at both ends.
#[inline]
pub fn trim(mut f: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = f {
        if is_blank(*first) {
            f = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = f {
        if is_blank(*last) {
            f = rest;
        } else {
            break;
        }
    }
    f
}

/// A decimal unsigned integer (surrounding blanks allowed); `None` on anything else or on
/// overflow.
#[inline]
pub fn uint(f: &[u8]) -> Option<u64> {
    let f = trim(f);
    if f.is_empty() || f.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in f {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// [`uint`], or why not: not a number at all, or one too large for 64 bits.
#[inline]
pub fn whole(f: &[u8]) -> Result<u64, &'static str> {
    uint(f).ok_or_else(|| {
        let t = trim(f);
        if !t.is_empty() && t.iter().all(u8::is_ascii_digit) {
            "is a whole number too large (above 2^64 - 1)"
        } else {
            "is not a whole number"
        }
    })
}

/// Seconds with an optional fraction ("12", "0.551706", "2120.818942") as nanoseconds;
/// digits beyond nanoseconds are dropped. `None` on anything else.
#[inline]
pub fn seconds_ns(f: &[u8]) -> Option<u64> {
    const POW10: [u64; 10] = [
        1_000_000_000,
        100_000_000,
        10_000_000,
        1_000_000,
        100_000,
        10_000,
        1_000,
        100,
        10,
        1,
    ];
    let f = trim(f);
    // One pass: whole seconds up to the point, then at most 9 fraction digits (the rest are
    // checked and dropped).
    let (mut secs, mut i) = (0u64, 0usize);
    while i < f.len() && f[i] != b'.' {
        let d = f[i].wrapping_sub(b'0');
        if d > 9 || i >= 19 {
            return None;
        }
        secs = secs * 10 + d as u64;
        i += 1;
    }
    let int_digits = i;
    let (mut ns, mut k) = (0u64, 0usize);
    if i < f.len() {
        i += 1;
        while i < f.len() {
            let d = f[i].wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            if k < 9 {
                ns = ns * 10 + d as u64;
            }
            k += 1;
            i += 1;
        }
    }
    if int_digits == 0 && k == 0 {
        return None;
    }
    secs.checked_mul(1_000_000_000)?
        .checked_add(ns * POW10[k.min(9)])
}

/// "SECTOR + COUNT" at the start of `f` (blanks around the `+`, anything after COUNT):
/// both numbers, in one pass.
#[inline]
pub fn sector_count(f: &[u8]) -> Option<(u64, u64)> {
    let mut i = 0;
    let number = |i: &mut usize| -> Option<u64> {
        while *i < f.len() && is_blank(f[*i]) {
            *i += 1;
        }
        let start = *i;
        let mut v: u64 = 0;
        while *i < f.len() && f[*i].is_ascii_digit() {
            v = v.checked_mul(10)?.checked_add((f[*i] - b'0') as u64)?;
            *i += 1;
        }
        (*i > start).then_some(v)
    };
    let sector = number(&mut i)?;
    while i < f.len() && is_blank(f[i]) {
        i += 1;
    }
    if f.get(i) != Some(&b'+') {
        return None;
    }
    i += 1;
    let count = number(&mut i)?;
    if i < f.len() && !is_blank(f[i]) {
        return None;
    }
    Some((sector, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_keep_empty_fields_and_join_the_tail() {
        let mut out = [&b""[..]; 4];
        assert_eq!(split(b"a,,c", b',', &mut out), 3);
        assert_eq!(out[..3], [&b"a"[..], b"", b"c"]);
        assert_eq!(split(b"1,2,3,4,5,6", b',', &mut out), 4);
        assert_eq!(out[3], b"4,5,6");
    }

    #[test]
    fn whitespace_split_collapses_runs() {
        let mut out = [&b""[..]; 5];
        let n = split_ws(b"  8,0    3  1\t0.5 ", &mut out);
        assert_eq!(n, 4);
        assert_eq!(out[..4], [&b"8,0"[..], b"3", b"1", b"0.5"]);
        let n = split_ws(b"a b c d e f g", &mut out);
        assert_eq!(n, 5);
        assert_eq!(out[4], b"e f g");
    }

    proptest::proptest! {
        /// The split equals splitting at runs of blanks with the standard library.
        #[test]
        fn whitespace_split_equals_the_naive_one(line in "[ \t a-z0-9,+.\\[\\]:-]{0,100}", slots in 1usize..16) {
            let bytes = line.as_bytes();
            let naive: Vec<&[u8]> = bytes
                .split(|&b| b == b' ' || b == b'\t')
                .filter(|f| !f.is_empty())
                .collect();
            let mut out = vec![&b""[..]; slots];
            let n = split_ws(bytes, &mut out);
            proptest::prop_assert_eq!(n, naive.len().min(slots));
            let whole = naive.len() <= slots;
            for k in 0..n {
                if k + 1 < n || whole {
                    proptest::prop_assert_eq!(out[k], naive[k]);
                } else {
                    proptest::prop_assert!(out[k].starts_with(naive[k]));
                }
            }
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(uint(b" 42 "), Some(42));
        assert_eq!(uint(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(uint(b"18446744073709551616"), None);
        assert_eq!(uint(b"4k"), None);
        assert_eq!(uint(b""), None);
        assert_eq!(uint(b"-1"), None);
        assert_eq!(seconds_ns(b"0.551706"), Some(551_706_000));
        assert_eq!(seconds_ns(b"2120.818942"), Some(2_120_818_942_000));
        assert_eq!(seconds_ns(b"1.0000000019"), Some(1_000_000_001));
        assert_eq!(seconds_ns(b"7"), Some(7_000_000_000));
        assert_eq!(seconds_ns(b".5"), Some(500_000_000));
        assert_eq!(seconds_ns(b"."), None);
        assert_eq!(seconds_ns(b"1.2.3"), None);
        assert_eq!(seconds_ns(b"1e3"), None);
        assert_eq!(seconds_ns(b"12345678901234567890"), None);
        assert_eq!(sector_count(b"223490 + 8 [kjournald]"), Some((223490, 8)));
        assert_eq!(sector_count(b"0 +   128"), Some((0, 128)));
        assert_eq!(sector_count(b"5 - 8"), None);
        assert_eq!(sector_count(b"5 + 8x"), None);
        assert_eq!(sector_count(b"5 + "), None);
    }
}
