//! The 4 KiB page: its header (identity, version, checksum, write history) and realistic,
//! compressible contents.
//!
//! Layout (little endian):
//! ```text
//!   0..4     magic "SSQP"
//!   4..8     CRC-32 of bytes 8..4096
//!   8..16    page id
//!  16..24    version: +1 at every modification of the page
//!  24..56    write history: the last WH_LEN user-write timestamps (page-write clock), ring
//!  56..60    number of history entries written so far (saturating)
//!  60..64    reserved (0)
//!  64..4032  31 record slots of 128 bytes: key (u64) + 120-byte value
//! 4032..4096 zero
//! ```
//! Invariants:
//! - A page as written by the store always passes [`check`]: magic, CRC and page id agree.
//! - Contents are a pure function of (seed, page id, record writes): [`PageGen`] draws every
//!   value from a seeded generator, so runs are reproducible.
//! - Compressibility: each value is `e` random bytes followed by a repetition of them, so LZ4
//!   stores about `e` + a few bytes per record. `e` varies per page around a level calibrated so
//!   that the mean LZ4 size of a page is 4096 / ratio ([`PageGen::calibrated`]).

pub use crate::error::PageError;
use ssdiq_workload::rng::{derive_seed, mix64};
use ssdiq_workload::SeededRng;

pub const PAGE: usize = 4096;
pub const HEADER: usize = 64;
pub const RECORD: usize = 128;
pub const VALUE: usize = 120;
/// Record slots in a page.
pub const SLOTS: usize = (PAGE - HEADER) / RECORD;
/// Write-history length (the paper's "e.g., 4").
pub const WH_LEN: usize = 4;
const MAGIC: &[u8; 4] = b"SSQP";

#[inline]
fn u64_at(p: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(p[at..at + 8].try_into().expect("8 bytes"))
}
#[inline]
fn put_u64(p: &mut [u8], at: usize, v: u64) {
    p[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

pub fn pid_of(p: &[u8]) -> u64 {
    u64_at(p, 8)
}
pub fn version_of(p: &[u8]) -> u64 {
    u64_at(p, 16)
}

/// Sets the CRC over the page (call after the last change, before writing it).
pub fn seal(p: &mut [u8]) {
    let c = crc32fast::hash(&p[8..PAGE]);
    p[4..8].copy_from_slice(&c.to_le_bytes());
}

/// Checks magic, CRC and page id of a page read back for `pid`.
pub fn check(p: &[u8], pid: u64) -> Result<(), PageError> {
    if &p[0..4] != MAGIC {
        return Err(PageError::Magic { pid });
    }
    let stored = u32::from_le_bytes(p[4..8].try_into().expect("4 bytes"));
    let computed = crc32fast::hash(&p[8..PAGE]);
    if stored != computed {
        return Err(PageError::Checksum {
            pid,
            stored,
            computed,
        });
    }
    let got = pid_of(p);
    if got != pid {
        return Err(PageError::WrongPage { want: pid, got });
    }
    Ok(())
}

/// A page's write history: the last [`WH_LEN`] user-write timestamps. It lives in the page
/// header (bytes mode) or in a per-page array (model mode); both push the same way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct History {
    ring: [u64; WH_LEN],
    /// Entries written so far (saturating).
    n: u32,
}

impl History {
    /// The history stored in page `p`'s header.
    pub fn of_page(p: &[u8]) -> History {
        let mut ring = [0u64; WH_LEN];
        for (i, r) in ring.iter_mut().enumerate() {
            *r = u64_at(p, 24 + i * 8);
        }
        History {
            ring,
            n: u32::from_le_bytes(p[56..60].try_into().expect("4 bytes")),
        }
    }
    /// The ring as stored (entry i at header bytes 24 + 8i) and the entry count.
    pub fn raw(&self) -> ([u64; WH_LEN], u32) {
        (self.ring, self.n)
    }

    fn store(&self, p: &mut [u8]) {
        for (i, r) in self.ring.iter().enumerate() {
            put_u64(p, 24 + i * 8, *r);
        }
        p[56..60].copy_from_slice(&self.n.to_le_bytes());
    }

    /// Appends `now`; returns the history, oldest first, and its length.
    pub fn push(&mut self, now: u64) -> ([u64; WH_LEN], usize) {
        let n = self.n as usize;
        self.ring[n % WH_LEN] = now;
        let n = n + 1;
        self.n = n.min(u32::MAX as usize) as u32;
        let k = n.min(WH_LEN);
        let mut h = [0u64; WH_LEN];
        for (i, slot) in h.iter_mut().enumerate().take(k) {
            // Oldest first: entry n-k .. n-1 of the ring.
            *slot = self.ring[(n - k + i) % WH_LEN];
        }
        (h, k)
    }
}

/// Writes a whole header (magic, `crc` as given, page id, version, write history) into
/// `p[..HEADER]` (the size model builds headers without the page behind them).
pub fn write_header(p: &mut [u8], pid: u64, version: u64, h: &History, crc: u32) {
    p[..HEADER].fill(0);
    p[0..4].copy_from_slice(MAGIC);
    p[4..8].copy_from_slice(&crc.to_le_bytes());
    put_u64(p, 8, pid);
    put_u64(p, 16, version);
    h.store(p);
}

/// Appends `now` to the page's write history; returns the history, oldest first.
pub fn push_history(p: &mut [u8], now: u64) -> ([u64; WH_LEN], usize) {
    let mut h = History::of_page(p);
    let r = h.push(now);
    h.store(p);
    r
}

/// Generates and updates page contents with a given compressibility.
#[derive(Clone, Debug)]
pub struct PageGen {
    seed: u64,
    /// Random bytes per value at the mean (fractional: pages vary around it).
    entropy: f64,
    /// Relative spread of the entropy between pages.
    spread: f64,
    /// Records per page that hold keys; the other slots hold filler of the same kind.
    records_per_page: u32,
}

/// How much the entropy of one page differs from the mean, at most (relative).
const SPREAD: f64 = 0.3;

impl PageGen {
    /// Values with `entropy` random bytes each on average (0..=120).
    pub fn new(seed: u64, entropy: f64, records_per_page: u32) -> Self {
        assert!((1..=SLOTS as u32).contains(&records_per_page));
        PageGen {
            seed,
            entropy: entropy.clamp(0.0, VALUE as f64),
            spread: SPREAD,
            records_per_page,
        }
    }

    /// A generator whose pages LZ4-compress to 4096 / `ratio` bytes on average (`ratio` >= 1;
    /// 1 means incompressible values). The level is found by bisection on sample pages.
    pub fn calibrated(seed: u64, ratio: f64, records_per_page: u32) -> Self {
        if ratio <= 1.0 {
            return PageGen {
                spread: 0.0,
                ..Self::new(seed, VALUE as f64, records_per_page)
            };
        }
        let target = PAGE as f64 / ratio;
        let (mut lo, mut hi) = (0.0f64, VALUE as f64);
        for _ in 0..24 {
            let mid = (lo + hi) / 2.0;
            let g = Self::new(seed, mid, records_per_page);
            if g.mean_lz4_size(64) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Self::new(seed, lo, records_per_page)
    }

    /// Mean LZ4 size of `n` sample pages.
    pub fn mean_lz4_size(&self, n: u64) -> f64 {
        let mut p = vec![0u8; PAGE];
        let mut out = vec![0u8; lz4_flex::block::get_maximum_output_size(PAGE)];
        let mut sum = 0usize;
        for pid in 0..n {
            self.init(&mut p, pid * 7919);
            sum += lz4_flex::block::compress_into(&p, &mut out).expect("buffer is large enough");
        }
        sum as f64 / n as f64
    }

    pub fn records_per_page(&self) -> u32 {
        self.records_per_page
    }

    /// The key of record slot `s` of page `pid` (slots beyond the records hold u64::MAX).
    #[inline]
    pub fn key(&self, pid: u64, s: usize) -> u64 {
        let rpp = self.records_per_page as u64;
        if (s as u64) < rpp {
            pid * rpp + s as u64
        } else {
            u64::MAX
        }
    }

    /// Random bytes per value of page `pid` (its level: fixed for the page's life).
    pub fn entropy_of(&self, pid: u64) -> usize {
        let u = (mix64(derive_seed(self.seed, pid ^ 0x5eed)) >> 11) as f64 / (1u64 << 53) as f64;
        let e = self.entropy * (1.0 + self.spread * (2.0 * u - 1.0));
        (e.round() as usize).min(VALUE)
    }

    fn fill_value(v: &mut [u8], rng: &mut SeededRng, e: usize) {
        if e == 0 {
            v.fill(0);
            return;
        }
        rng.fill_bytes(&mut v[..e]);
        for i in e..v.len() {
            v[i] = v[i - e];
        }
    }

    /// The initial contents of page `pid` (version 0, empty history).
    pub fn init(&self, p: &mut [u8], pid: u64) {
        self.init_at_level(p, pid, self.entropy_of(pid), derive_seed(self.seed, pid));
    }

    /// Page `pid` with `e` random bytes per value drawn from `seed` (calibration samples).
    pub fn init_at_level(&self, p: &mut [u8], pid: u64, e: usize, seed: u64) {
        p[..HEADER].fill(0);
        p[SLOTS * RECORD + HEADER..PAGE].fill(0);
        p[0..4].copy_from_slice(MAGIC);
        put_u64(p, 8, pid);
        let mut rng = SeededRng::new(seed);
        for s in 0..SLOTS {
            let at = HEADER + s * RECORD;
            put_u64(p, at, self.key(pid, s));
            Self::fill_value(&mut p[at + 8..at + RECORD], &mut rng, e);
        }
        seal(p);
    }

    /// Overwrites record `slot` of page `p` with a new value drawn from `rng`; bumps the
    /// version. The caller seals the page before writing it.
    pub fn update(&self, p: &mut [u8], slot: u32, rng: &mut SeededRng) {
        self.update_at_level(p, slot, self.entropy_of(pid_of(p)), rng);
    }

    /// [`PageGen::update`] at level `e`.
    pub fn update_at_level(&self, p: &mut [u8], slot: u32, e: usize, rng: &mut SeededRng) {
        let at = HEADER + (slot as usize % SLOTS) * RECORD;
        Self::fill_value(&mut p[at + 8..at + RECORD], rng, e);
        put_u64(p, 16, version_of(p) + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_checks_and_detects_damage() {
        let g = PageGen::new(1, 40.0, 14);
        let mut p = vec![0u8; PAGE];
        g.init(&mut p, 42);
        check(&p, 42).unwrap();
        assert!(matches!(check(&p, 43), Err(PageError::WrongPage { .. })));
        p[100] ^= 1;
        assert!(matches!(check(&p, 42), Err(PageError::Checksum { .. })));
    }

    #[test]
    fn update_bumps_version_and_history_rings() {
        let g = PageGen::new(1, 40.0, 14);
        let mut p = vec![0u8; PAGE];
        g.init(&mut p, 7);
        let mut rng = SeededRng::new(3);
        g.update(&mut p, 2, &mut rng);
        g.update(&mut p, 3, &mut rng);
        assert_eq!(version_of(&p), 2);
        for t in 1..=6u64 {
            let (h, k) = push_history(&mut p, t * 10);
            assert_eq!(k, (t as usize).min(WH_LEN));
            assert_eq!(h[k - 1], t * 10, "newest last");
            assert_eq!(h[0], (t.saturating_sub(WH_LEN as u64 - 1)).max(1) * 10);
        }
        seal(&mut p);
        check(&p, 7).unwrap();
    }

    #[test]
    fn calibration_hits_the_ratio() {
        for ratio in [1.5, 2.0, 2.5, 4.0] {
            let g = PageGen::calibrated(9, ratio, 14);
            let got = PAGE as f64 / g.mean_lz4_size(200);
            assert!(
                (got / ratio - 1.0).abs() < 0.05,
                "ratio {ratio}: LZ4 gives {got}"
            );
        }
        // Incompressible values: only the header's zeros compress.
        let g = PageGen::calibrated(9, 1.0, 14);
        assert!(g.mean_lz4_size(20) >= 0.95 * PAGE as f64);
    }
}
