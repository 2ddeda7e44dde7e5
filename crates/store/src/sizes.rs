//! Stored page sizes without the bytes: the compression model of the model data mode.
//!
//! At ratio 2 a page is about half a slot, so a few bytes decide whether two pages share a
//! 4 KiB slot: the model has to get each page's LZ4 size right to the byte, not only on
//! average. A page's LZ4 size depends on
//! - its level `e` (random bytes per value, fixed for the page's life by [`PageGen`]) and its
//!   keys (their byte widths, and where a carry changes more than their low byte);
//! - its header: page id, version, write-history entries and their count, CRC. LZ4 matches
//!   runs of zeros and repeated high bytes of nearby clock values, so two pages at the same
//!   level differ by up to tens of bytes through their headers alone;
//! - by a few bytes, the random contents of that version.
//!
//! LZ4 parses greedily from the start, and after the first two records (each a run of
//! random bytes, then a match repeating them) its parse no longer depends on what came
//! before. So a page's size is `P + B`: `P` the LZ4 size of its first [`PREFIX`] bytes (header
//! and two records), `B` what the rest adds. The model measures `B` once per *pattern*
//! (level and key structure) on [`SAMPLES`] pages with random contents, compressed with the
//! same LZ4, and keeps each sample's first two values. A write then takes the sample a hash
//! of (seed, page, clock) picks and compresses only its real header and keys followed by
//! the sample's two values: `P` exactly, plus the sample's `B`.
//!
//! [`SizeModel::check`] measures the model against real LZ4 on pages it did not build,
//! with headers drawn as a run makes them; a bytes-mode run can shadow every write with
//! the model ([`crate::Store::shadow_size_model`]). Both report the mean and spread of the
//! sizes and the 4 KiB slots per page they pack into (what DB WAF depends on).
//!
//! Invariant: every size is in 1..=4096; 4096 means the page is stored raw (as
//! [`crate::compress::Compressor`] does when LZ4 does not shrink it).

use std::collections::HashMap;

use ssdiq_workload::rng::{derive_seed, mix64};
use ssdiq_workload::SeededRng;

use crate::compress::Compressor;
use crate::page::{self, History, PageGen, HEADER, PAGE, RECORD, VALUE};
use crate::space::pack;
pub use ssdiq_schema::store::Calibration;

/// Samples per pattern.
pub const SAMPLES: usize = 16;
/// The prefix compressed for every write: the header and two records.
pub const PREFIX: usize = HEADER + 2 * RECORD;

#[derive(Clone)]
struct Sample {
    /// Values of records 0 and 1.
    values: [[u8; VALUE]; 2],
    /// LZ4 size of the whole page less that of its prefix.
    rest: i32,
}

/// The body samples of each pattern, measured when a pattern first occurs.
#[derive(Clone)]
pub struct SizeModel {
    gen: PageGen,
    seed: u64,
    table: HashMap<u64, Box<[Sample; SAMPLES]>>,
    comp: Compressor,
    page: Vec<u8>,
    prefix: [u8; PREFIX],
    out: Vec<u8>,
}

/// What a write's stored size depends on besides the random contents.
#[derive(Clone, Copy, Debug)]
pub struct PageState<'a> {
    pub pid: u64,
    pub version: u64,
    pub history: &'a History,
}

#[inline]
fn width(v: u64) -> u64 {
    (64 - v.leading_zeros() as u64).div_ceil(8)
}

impl SizeModel {
    pub fn new(gen: &PageGen, seed: u64) -> SizeModel {
        SizeModel {
            gen: gen.clone(),
            seed,
            table: HashMap::new(),
            comp: Compressor::default(),
            page: vec![0u8; PAGE],
            prefix: [0u8; PREFIX],
            out: vec![0u8; lz4_flex::block::get_maximum_output_size(PREFIX)],
        }
    }

    /// The pattern of page `pid`: its level, the byte widths of its first and last key, and
    /// where a carry changes more than a key's low byte (and how many bytes).
    fn pattern(&self, pid: u64) -> u64 {
        let rpp = self.gen.records_per_page() as usize;
        let mut carry = 0;
        for s in 1..rpp {
            let w = width(self.gen.key(pid, s - 1) ^ self.gen.key(pid, s));
            if w > 1 {
                carry = (s as u64) << 4 | w;
                break;
            }
        }
        let e = self.gen.entropy_of(pid) as u64;
        (((e << 4 | width(self.gen.key(pid, 0))) << 4 | width(self.gen.key(pid, rpp - 1))) << 9)
            | carry
    }

    /// Stored size of the write of a page in state `s` at page-write clock `now`.
    pub fn size(&mut self, s: &PageState, now: u64) -> u32 {
        let key = self.pattern(s.pid);
        if !self.table.contains_key(&key) {
            let row = self.measure(s.pid, derive_seed(self.seed, key));
            self.table.insert(key, row);
        }
        let h = mix64(derive_seed(self.seed ^ now, s.pid));
        let sample = &self.table[&key][(h % SAMPLES as u64) as usize];
        let p = &mut self.prefix;
        page::write_header(p, s.pid, s.version, s.history, (h >> 32) as u32);
        for (r, v) in sample.values.iter().enumerate() {
            let at = HEADER + r * RECORD;
            p[at..at + 8].copy_from_slice(&self.gen.key(s.pid, r).to_le_bytes());
            p[at + 8..at + RECORD].copy_from_slice(v);
        }
        let head = lz4_flex::block::compress_into(p, &mut self.out)
            .expect("the output buffer holds the worst case");
        let size = head as i64 + sample.rest as i64;
        if size >= PAGE as i64 {
            PAGE as u32
        } else {
            size.max(1) as u32
        }
    }

    /// [`SAMPLES`] pages of page `pid`'s pattern with random contents: their first two
    /// values and what the rest of each adds to LZ4's output.
    fn measure(&mut self, pid: u64, seed: u64) -> Box<[Sample; SAMPLES]> {
        let e = self.gen.entropy_of(pid);
        Box::new(std::array::from_fn(|i| {
            let p = &mut self.page;
            self.gen
                .init_at_level(p, pid, e, derive_seed(seed, i as u64));
            let whole = self.comp.compress(p).len() as i32;
            let head = lz4_flex::block::compress_into(&p[..PREFIX], &mut self.out)
                .expect("the output buffer holds the worst case") as i32;
            let value = |r: usize| {
                let at = HEADER + r * RECORD + 8;
                p[at..at + VALUE].try_into().expect("a value")
            };
            Sample {
                values: [value(0), value(1)],
                rest: whole - head,
            }
        }))
    }

    /// Patterns measured so far.
    pub fn patterns(&self) -> u64 {
        self.table.len() as u64
    }

    /// Compares the model with real LZ4 on `n` pages of a dataset of `pages` pages, with
    /// versions and write histories drawn as a run makes them (on a copy of the model, so
    /// the run's own table is left as it is).
    pub fn check(&self, pages: u64, n: u64) -> Calibration {
        let mut m = self.clone();
        let mut comp = Compressor::default();
        let mut p = vec![0u8; PAGE];
        let mut rng = SeededRng::new(derive_seed(self.seed, 0xc8ec4));
        let mut real = Vec::with_capacity(n as usize);
        let mut model = Vec::with_capacity(n as usize);
        for i in 0..n {
            let pid = rng.below(pages.max(1));
            let vbits = 4 * (1 + rng.below(4));
            let version = rng.below(1 << vbits);
            let mut h = History::default();
            let cbits = 8 * (1 + rng.below(4));
            let mut now = rng.below(1 << cbits);
            for _ in 0..rng.below(7) {
                let gap = rng.below(24);
                now += 1 + rng.below(1 << gap);
                h.push(now);
            }
            let e = self.gen.entropy_of(pid);
            self.gen.init_at_level(&mut p, pid, e, rng.next_u64());
            page::write_header(&mut p, pid, version, &h, 0);
            page::seal(&mut p);
            real.push(comp.compress(&p).len() as u32);
            let s = PageState {
                pid,
                version,
                history: &h,
            };
            model.push(m.size(&s, now ^ (i << 40)));
        }
        let (rm, rs) = mean_sd(&real);
        let (mm, ms) = mean_sd(&model);
        Calibration {
            basis: "drawn pages",
            pages: n,
            patterns: m.patterns(),
            compressions: m.patterns() * SAMPLES as u64,
            real_mean_bytes: rm,
            model_mean_bytes: mm,
            real_sd_bytes: rs,
            model_sd_bytes: ms,
            real_slots_per_page: slots_per_page(&real),
            model_slots_per_page: slots_per_page(&model),
        }
    }
}

/// The model shadowing a bytes-mode run: every write's real and modelled size.
#[derive(Clone, Default)]
pub struct Shadow {
    real: Vec<u32>,
    model: Vec<u32>,
    sums: [f64; 4],
    writes: u64,
    slots: [u64; 2],
}

impl Shadow {
    /// One write of the batch being written: its real and modelled stored size.
    pub fn push(&mut self, real: u32, model: u32) {
        self.real.push(real);
        self.model.push(model);
    }

    /// Ends the batch: its sizes are counted and packed as the store packs a batch.
    pub fn end_batch(&mut self) {
        for (&r, &m) in self.real.iter().zip(&self.model) {
            let (r, m) = (r as f64, m as f64);
            self.sums[0] += r;
            self.sums[1] += m;
            self.sums[2] += r * r;
            self.sums[3] += m * m;
        }
        self.writes += self.real.len() as u64;
        let order: Vec<usize> = (0..self.real.len()).collect();
        self.slots[0] += pack::pack(&self.real, &order).len() as u64;
        self.slots[1] += pack::pack(&self.model, &order).len() as u64;
        self.real.clear();
        self.model.clear();
    }

    /// Real against modelled sizes over every batch so far.
    pub fn calibration(&self, model: &SizeModel) -> Calibration {
        let n = self.writes.max(1) as f64;
        let sd = |s: f64, q: f64| (q / n - (s / n).powi(2)).max(0.0).sqrt();
        Calibration {
            basis: "run writes",
            pages: self.writes,
            patterns: model.patterns(),
            compressions: model.patterns() * SAMPLES as u64,
            real_mean_bytes: self.sums[0] / n,
            model_mean_bytes: self.sums[1] / n,
            real_sd_bytes: sd(self.sums[0], self.sums[2]),
            model_sd_bytes: sd(self.sums[1], self.sums[3]),
            real_slots_per_page: self.slots[0] as f64 / n,
            model_slots_per_page: self.slots[1] as f64 / n,
        }
    }
}

fn mean_sd(v: &[u32]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let m = v.iter().map(|&x| x as f64).sum::<f64>() / n;
    let var = v.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / n;
    (m, var.sqrt())
}

fn slots_per_page(sizes: &[u32]) -> f64 {
    let mut slots = 0;
    for batch in sizes.chunks(64) {
        let order: Vec<usize> = (0..batch.len()).collect();
        slots += pack::pack(batch, &order).len();
    }
    slots as f64 / sizes.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_matches_real_lz4_sizes_and_packing() {
        for ratio in [1.0, 1.5, 2.0, 3.0] {
            let gen = PageGen::calibrated(7, ratio, 14);
            let m = SizeModel::new(&gen, 7);
            let c = m.check(300_000, 6000);
            let rel = |a: f64, b: f64| (a / b - 1.0).abs();
            assert!(
                rel(c.model_mean_bytes, c.real_mean_bytes) < 0.001,
                "ratio {ratio}: {c:?}"
            );
            assert!(
                (c.model_sd_bytes - c.real_sd_bytes).abs() < 0.01 * c.real_mean_bytes,
                "ratio {ratio}: {c:?}"
            );
            assert!(
                rel(c.model_slots_per_page, c.real_slots_per_page) < 0.005,
                "ratio {ratio}: {c:?}"
            );
        }
    }

    #[test]
    fn each_write_is_within_a_few_bytes_of_real_lz4() {
        // The same page (level, keys, header) with fresh random contents: the model's size
        // and LZ4's differ only by the contents' chance matches.
        let gen = PageGen::calibrated(5, 2.0, 14);
        let mut m = SizeModel::new(&gen, 5);
        let mut comp = Compressor::default();
        let mut p = vec![0u8; PAGE];
        let mut rng = SeededRng::new(9);
        let mut diffs = Vec::new();
        for t in 0..3000u64 {
            let pid = rng.below(1 << 20);
            let mut h = History::default();
            for k in 0..(t % 6) {
                h.push((t << 12) + k * 977);
            }
            let s = PageState {
                pid,
                version: t * 3,
                history: &h,
            };
            gen.init_at_level(&mut p, pid, gen.entropy_of(pid), rng.next_u64());
            page::write_header(&mut p, pid, t * 3, &h, 0);
            page::seal(&mut p);
            let real = comp.compress(&p).len() as i64;
            diffs.push((m.size(&s, t) as i64 - real).abs());
        }
        diffs.sort_unstable();
        assert!(diffs[diffs.len() / 2] <= 3, "median error {}", diffs[1500]);
        assert!(diffs[diffs.len() * 9 / 10] <= 8, "{:?}", &diffs[2700..]);
    }

    #[test]
    fn sizes_are_deterministic_and_in_range() {
        let gen = PageGen::calibrated(3, 2.0, 14);
        let mut a = SizeModel::new(&gen, 3);
        let mut b = SizeModel::new(&gen, 3);
        let h = History::default();
        for pid in 0..1000 {
            let s = PageState {
                pid,
                version: pid,
                history: &h,
            };
            let x = a.size(&s, pid * 3);
            assert_eq!(x, b.size(&s, pid * 3));
            assert!((1..=PAGE as u32).contains(&x));
        }
        let s = PageState {
            pid: 5,
            version: 1,
            history: &h,
        };
        let distinct: std::collections::BTreeSet<u32> = (0..64).map(|t| a.size(&s, t)).collect();
        assert!(
            distinct.len() > 1,
            "different writes draw different samples"
        );
    }
}
