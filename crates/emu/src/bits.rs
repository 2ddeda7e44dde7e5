//! A bit per logical page in a `Vec<u64>`: the write buffer's and the SLC cache's page sets.

/// A bitmap for `pages` pages, all clear.
pub fn bitmap(pages: u64) -> Vec<u64> {
    vec![0; pages.div_ceil(64) as usize]
}

#[inline]
pub fn get(bits: &[u64], lpn: u64) -> bool {
    bits[(lpn >> 6) as usize] & (1 << (lpn & 63)) != 0
}

#[inline]
pub fn flip(bits: &mut [u64], lpn: u64) {
    bits[(lpn >> 6) as usize] ^= 1 << (lpn & 63);
}

#[inline]
pub fn set(bits: &mut [u64], lpn: u64, on: bool) {
    let w = &mut bits[(lpn >> 6) as usize];
    if on {
        *w |= 1 << (lpn & 63);
    } else {
        *w &= !(1 << (lpn & 63));
    }
}
