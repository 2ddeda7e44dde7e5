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

/// Why a page read back is not the page that was asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("page {pid}: bad magic (not a page written by the store)")]
    Magic { pid: u64 },
    #[error("page {pid}: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})")]
    Checksum {
        pid: u64,
        stored: u32,
        computed: u32,
    },
    #[error("page {want}: the location holds page {got}")]
    WrongPage { want: u64, got: u64 },
    #[error("page {pid}: version {got} read, {want} was written last")]
    Stale { pid: u64, want: u64, got: u64 },
    #[error("page {pid}: decompression failed: {reason}")]
    Decompress { pid: u64, reason: String },
}

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

/// Appends `now` to the page's write history; returns the history, oldest first.
pub fn push_history(p: &mut [u8], now: u64) -> ([u64; WH_LEN], usize) {
    let n = u32::from_le_bytes(p[56..60].try_into().expect("4 bytes")) as usize;
    put_u64(p, 24 + (n % WH_LEN) * 8, now);
    let n = n + 1;
    p[56..60].copy_from_slice(&(n.min(u32::MAX as usize) as u32).to_le_bytes());
    let k = n.min(WH_LEN);
    let mut h = [0u64; WH_LEN];
    for (i, slot) in h.iter_mut().enumerate().take(k) {
        // Oldest first: entry n-k .. n-1 of the ring.
        let idx = (n - k + i) % WH_LEN;
        *slot = u64_at(p, 24 + idx * 8);
    }
    (h, k)
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

    /// Random bytes per value of page `pid`.
    fn entropy_of(&self, pid: u64) -> usize {
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
        p[..PAGE].fill(0);
        p[0..4].copy_from_slice(MAGIC);
        put_u64(p, 8, pid);
        let mut rng = SeededRng::new(derive_seed(self.seed, pid));
        let e = self.entropy_of(pid);
        let rpp = self.records_per_page as u64;
        for s in 0..SLOTS {
            let at = HEADER + s * RECORD;
            let key = if (s as u64) < rpp {
                pid * rpp + s as u64
            } else {
                u64::MAX
            };
            put_u64(p, at, key);
            Self::fill_value(&mut p[at + 8..at + RECORD], &mut rng, e);
        }
        seal(p);
    }

    /// Overwrites record `slot` of page `p` with a new value drawn from `rng`; bumps the
    /// version. The caller seals the page before writing it.
    pub fn update(&self, p: &mut [u8], slot: u32, rng: &mut SeededRng) {
        let pid = pid_of(p);
        let e = self.entropy_of(pid);
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
