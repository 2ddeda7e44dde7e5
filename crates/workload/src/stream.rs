//! Page streams: a [`Pattern`] instantiated over `pages` pages for one thread.
//!
//! Invariants:
//! - A stream is a pure function of (pattern, pages, page size, seed, thread, threads).
//! - Random patterns draw over the whole range from substream `thread` of the seed; the
//!   scrambler (which pages are hot) depends on the seed only, so all threads agree on it.
//! - Sequential patterns (`seq`, `skipseq`, `window`, `randperm`'s index space, `zns` zones)
//!   give each thread its own region, so threads never collide.
//! - Dispatch is a `match` on an enum, not a trait object: the generators are the inner loop
//!   of both the simulator and the emulated drive.

use crate::mix::{Op, RwMix};
use crate::pattern::{Pattern, PatternError};
use crate::rng::{derive_seed, SeededRng};
use crate::scramble::Scrambler;
use crate::zipf::ZipfSampler;
use crate::zone_order::ZonePicker;

const PURPOSE_SCRAMBLE: u64 = 1;
const PURPOSE_PERM_EPOCH: u64 = 2;
const PURPOSE_WINDOW: u64 = 3;
const PURPOSE_MIX: u64 = 4;

/// Where and how a stream runs.
#[derive(Clone, Copy, Debug)]
pub struct StreamConfig {
    /// Number of pages in the target range.
    pub pages: u64,
    /// Bytes per page (needed by `zns:SIZE`).
    pub page_bytes: u64,
    pub seed: u64,
    /// Seeds where a skewed pattern puts its hot (or read-only) pages. Jobs that continue one
    /// workload (a warm-up and its measured part, rounds of a step) share it, so the hot set
    /// stays where the earlier job put it; `seed` keeps each job's own draws.
    pub layout_seed: u64,
    pub thread: u32,
    pub threads: u32,
    /// Every thread works on its own contiguous 1/threads of the range, random patterns
    /// too (fio's jobs on separate files): the pattern runs over that region alone.
    pub own_region: bool,
    /// How many pages of a larger device each page stands for (1: itself). Patterns whose
    /// shape depends on the page count (`zipf`) draw over that many pages and fold them back
    /// in order, `represents` consecutive ranks to a page, so the share of accesses per share
    /// of the range is the larger device's. An emulated drive scaled down from its full size
    /// sets it; everything else keeps 1.
    pub represents: f64,
}

impl StreamConfig {
    pub fn single(pages: u64, page_bytes: u64, seed: u64) -> Self {
        Self {
            pages,
            page_bytes,
            seed,
            layout_seed: seed,
            thread: 0,
            threads: 1,
            own_region: false,
            represents: 1.0,
        }
    }

    /// This thread's contiguous region `[start, end)` of `[0, len)`.
    fn region(&self, len: u64) -> (u64, u64) {
        let t = self.threads as u128;
        let i = self.thread as u128;
        let start = (len as u128 * i / t) as u64;
        let end = (len as u128 * (i + 1) / t) as u64;
        (start, end)
    }
}

/// The scrambler a seed gives a pattern over `pages` pages: which pages are hot.
pub fn scrambler_for(pages: u64, seed: u64) -> Scrambler {
    Scrambler::new(pages, derive_seed(seed, PURPOSE_SCRAMBLE))
}

/// One step of a page stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Draw {
    /// Access this page.
    Page(u64),
    /// Discard `pages` pages from `start` (zns before a zone is rewritten).
    Trim { start: u64, pages: u64 },
}

#[derive(Clone, Debug)]
struct OpenZone {
    zone: u64,
    written: u64,
    trimmed: bool,
}

#[derive(Clone, Debug)]
enum Kind {
    Seq {
        start: u64,
        len: u64,
        pos: u64,
    },
    Uniform {
        n: u64,
    },
    RandPerm {
        n: u64,
        seed: u64,
        scr: Scrambler,
        start: u64,
        end: u64,
        pos: u64,
        epoch: u64,
    },
    Zipf {
        z: ZipfSampler,
        scr: Scrambler,
        /// Pages, and the ranks drawn over them (more when folded).
        n: u64,
        ranks: u64,
    },
    Zones {
        thresholds: Vec<u64>,
        starts: Vec<u64>,
        sizes: Vec<u64>,
        scr: Scrambler,
    },
    ReadOnly {
        writable: u64,
        scr: Scrambler,
    },
    SkipSeq {
        start: u64,
        len: u64,
        pos: u64,
        ln_p: f64,
    },
    Window {
        seed: u64,
        start: u64,
        len: u64,
        n: u64,
        win_start: u64,
        win_pos: u64,
        scr: Scrambler,
    },
    Zns {
        zone_pages: u64,
        my_zones: Vec<u64>,
        open: Vec<OpenZone>,
        next: usize,
        picker: ZonePicker,
    },
    Streams {
        thresholds: Vec<u64>,
        starts: Vec<u64>,
        lens: Vec<u64>,
        pos: Vec<u64>,
    },
}

/// An endless stream of page draws for one thread.
#[derive(Clone, Debug)]
pub struct PageStream {
    rng: SeededRng,
    kind: Kind,
    /// First page of the thread's own region (`own_region`), added to every draw.
    base: u64,
}

const PURPOSE_OWN_REGION: u64 = 5;

impl PageStream {
    pub fn new(pattern: &Pattern, cfg: StreamConfig) -> Result<Self, PatternError> {
        if !cfg.own_region || cfg.threads <= 1 {
            return Self::over_range(pattern, cfg);
        }
        if cfg.thread >= cfg.threads || cfg.threads as u64 > cfg.pages {
            return Err(PatternError {
                input: pattern.to_string(),
                reason: format!(
                    "{} threads cannot each have a region of {} pages",
                    cfg.threads, cfg.pages
                ),
            });
        }
        let (start, end) = cfg.region(cfg.pages);
        let inner = StreamConfig {
            pages: end - start,
            seed: derive_seed(cfg.seed, PURPOSE_OWN_REGION + ((cfg.thread as u64) << 8)),
            layout_seed: derive_seed(
                cfg.layout_seed,
                PURPOSE_OWN_REGION + ((cfg.thread as u64) << 8),
            ),
            thread: 0,
            threads: 1,
            own_region: false,
            ..cfg
        };
        let mut s = Self::over_range(pattern, inner)?;
        s.base = start;
        Ok(s)
    }

    fn over_range(pattern: &Pattern, cfg: StreamConfig) -> Result<Self, PatternError> {
        let err = |reason: String| PatternError {
            input: pattern.to_string(),
            reason,
        };
        let n = cfg.pages;
        if n == 0 {
            return Err(err("the target range holds no pages".into()));
        }
        if cfg.threads == 0 || cfg.thread >= cfg.threads {
            return Err(err(format!(
                "thread {} of {} is not a valid thread index",
                cfg.thread, cfg.threads
            )));
        }
        if pattern.is_sequential()
            && !matches!(pattern, Pattern::Zns { .. })
            && (cfg.threads as u64) > n
        {
            return Err(err(format!(
                "{} threads cannot split {n} pages",
                cfg.threads
            )));
        }
        let mut rng = SeededRng::substream(cfg.seed, cfg.thread as u64);
        let scr = || scrambler_for(n, cfg.layout_seed);
        let kind = match pattern {
            Pattern::Seq => {
                let (s, e) = cfg.region(n);
                Kind::Seq {
                    start: s,
                    len: e - s,
                    pos: 0,
                }
            }
            Pattern::Uniform => Kind::Uniform { n },
            Pattern::RandPerm => {
                let (start, end) = cfg.region(n);
                Kind::RandPerm {
                    n,
                    seed: cfg.seed,
                    scr: Scrambler::new(n, derive_seed(cfg.seed, PURPOSE_PERM_EPOCH)),
                    start,
                    end,
                    pos: start,
                    epoch: 0,
                }
            }
            Pattern::Zipf { theta } => {
                let ranks = if cfg.represents > 1.0 {
                    ((n as f64 * cfg.represents).round() as u64).max(n)
                } else {
                    n
                };
                Kind::Zipf {
                    z: ZipfSampler::new(ranks, *theta),
                    scr: scr(),
                    n,
                    ranks,
                }
            }
            Pattern::TwoZone { .. } | Pattern::Zones(_) => {
                let fr = pattern.zone_fractions().expect("piecewise pattern");
                let mut thresholds = Vec::with_capacity(fr.len());
                let mut starts = Vec::with_capacity(fr.len());
                let mut sizes = Vec::with_capacity(fr.len());
                let (mut cw, mut cs) = (0.0f64, 0.0f64);
                let mut prev_end = 0u64;
                for (i, &(w, s)) in fr.iter().enumerate() {
                    cw += w;
                    cs += s;
                    let last = i + 1 == fr.len();
                    let end = if last {
                        n
                    } else {
                        ((cs * n as f64).round() as u64).min(n)
                    };
                    let size = end.saturating_sub(prev_end);
                    if size == 0 && w > 0.0 {
                        return Err(err(format!(
                            "zone {} ({}% of {n} pages) holds no page",
                            i + 1,
                            s * 100.0
                        )));
                    }
                    starts.push(prev_end);
                    sizes.push(size);
                    prev_end = end.max(prev_end);
                    thresholds.push(if last { u64::MAX } else { frac_to_u64(cw) });
                }
                Kind::Zones {
                    thresholds,
                    starts,
                    sizes,
                    scr: scr(),
                }
            }
            Pattern::ReadOnly { fraction } => {
                let ro = (fraction * n as f64).floor() as u64;
                let writable = n - ro;
                if writable == 0 {
                    return Err(err(format!("no writable page left of {n}")));
                }
                Kind::ReadOnly {
                    writable,
                    scr: scr(),
                }
            }
            Pattern::SkipSeq { p } => {
                let (s, e) = cfg.region(n);
                Kind::SkipSeq {
                    start: s,
                    len: e - s,
                    pos: 0,
                    ln_p: if *p > 0.0 { p.ln() } else { 0.0 },
                }
            }
            Pattern::Window { n: w } => {
                let (s, e) = cfg.region(n);
                let seed = derive_seed(cfg.seed, PURPOSE_WINDOW ^ ((cfg.thread as u64) << 32));
                let first = (*w).min(e - s);
                Kind::Window {
                    seed,
                    start: s,
                    len: e - s,
                    n: *w,
                    win_start: 0,
                    win_pos: 0,
                    scr: Scrambler::new(first, derive_seed(seed, 0)),
                }
            }
            Pattern::Zns {
                zone_bytes,
                open,
                order,
            } => {
                if cfg.page_bytes == 0 || zone_bytes % cfg.page_bytes != 0 {
                    return Err(err(format!(
                        "zone size {zone_bytes} B is not a multiple of the page size {} B",
                        cfg.page_bytes
                    )));
                }
                let zone_pages = zone_bytes / cfg.page_bytes;
                let zones = n / zone_pages;
                let t = cfg.threads as u64;
                let k = *open as u64;
                if k < t {
                    return Err(err(format!(
                        "{k} open zones cannot be shared by {t} threads; use xK with K >= threads"
                    )));
                }
                let my_open = k / t + u64::from((cfg.thread as u64) < k % t);
                let my_zones: Vec<u64> =
                    (0..zones).filter(|z| z % t == cfg.thread as u64).collect();
                if (my_zones.len() as u64) <= my_open {
                    return Err(err(format!(
                        "{n} pages hold {zones} zones of {zone_pages} pages; {k} open zones over {t} threads need more zones than open ones"
                    )));
                }
                let mut picker = ZonePicker::new(*order, my_zones.len(), my_open as usize)
                    .ok_or_else(|| {
                    err(format!(
                        "the range ({}) holds {} zones of {} for each of {t} threads; the apart order uses a multiple of 4 of them, at least 4 and more than the {my_open} open per thread",
                        crate::units::format_size(n * cfg.page_bytes),
                        my_zones.len(),
                        crate::units::format_size(*zone_bytes)
                    ))
                })?;
                let mut open_zones: Vec<OpenZone> = Vec::with_capacity(my_open as usize);
                for _ in 0..my_open {
                    let zone = picker.next(&mut rng, &my_zones, &open_ids(&open_zones));
                    open_zones.push(OpenZone {
                        zone,
                        written: 0,
                        trimmed: false,
                    });
                }
                Kind::Zns {
                    zone_pages,
                    my_zones,
                    open: open_zones,
                    next: 0,
                    picker,
                }
            }
            Pattern::Streams { n: k } => {
                let (s, e) = cfg.region(n);
                let len = e - s;
                let k = *k as u64;
                if len < k {
                    return Err(err(format!(
                        "{len} pages cannot hold {k} streams (one page each at least)"
                    )));
                }
                let total: f64 = (0..k as u32).map(crate::pattern::stream_weight).sum();
                let mut cw = 0.0;
                let thresholds = (0..k as u32)
                    .map(|i| {
                        cw += crate::pattern::stream_weight(i);
                        if i as u64 + 1 == k {
                            u64::MAX
                        } else {
                            frac_to_u64(cw / total)
                        }
                    })
                    .collect();
                let bounds: Vec<u64> = (0..=k).map(|i| s + len * i / k).collect();
                Kind::Streams {
                    thresholds,
                    starts: bounds[..k as usize].to_vec(),
                    lens: bounds.windows(2).map(|w| w[1] - w[0]).collect(),
                    pos: vec![0; k as usize],
                }
            }
        };
        Ok(Self { rng, kind, base: 0 })
    }

    /// The next draw. Never ends: sequential patterns wrap, permutations start a new pass.
    #[inline]
    pub fn next_draw(&mut self) -> Draw {
        match self.draw_in_range() {
            Draw::Page(p) => Draw::Page(self.base + p),
            Draw::Trim { start, pages } => Draw::Trim {
                start: self.base + start,
                pages,
            },
        }
    }

    #[inline]
    fn draw_in_range(&mut self) -> Draw {
        let rng = &mut self.rng;
        match &mut self.kind {
            Kind::Seq { start, len, pos } => {
                let p = *start + *pos;
                *pos += 1;
                if *pos == *len {
                    *pos = 0;
                }
                Draw::Page(p)
            }
            Kind::Uniform { n } => Draw::Page(rng.below(*n)),
            Kind::RandPerm {
                n,
                seed,
                scr,
                start,
                end,
                pos,
                epoch,
            } => {
                let p = scr.apply(*pos);
                *pos += 1;
                if *pos == *end {
                    *pos = *start;
                    *epoch += 1;
                    *scr =
                        Scrambler::new(*n, derive_seed(*seed, PURPOSE_PERM_EPOCH + (*epoch << 8)));
                }
                Draw::Page(p)
            }
            Kind::Zipf { z, scr, n, ranks } => {
                let r = z.sample(rng) - 1;
                let rank = if *ranks == *n {
                    r
                } else {
                    (r as u128 * *n as u128 / *ranks as u128) as u64
                };
                Draw::Page(scr.apply(rank))
            }
            Kind::Zones {
                thresholds,
                starts,
                sizes,
                scr,
            } => {
                let r = rng.next_u64();
                let mut i = 0;
                while r >= thresholds[i] && i + 1 < thresholds.len() {
                    i += 1;
                }
                Draw::Page(scr.apply(starts[i] + rng.below(sizes[i])))
            }
            Kind::ReadOnly { writable, scr } => Draw::Page(scr.apply(rng.below(*writable))),
            Kind::SkipSeq {
                start,
                len,
                pos,
                ln_p,
            } => {
                if *ln_p != 0.0 {
                    // Pages skipped before the next accepted one: Geometric(1 - P).
                    let u = 1.0 - rng.unit_f64();
                    let skip = (u.ln() / *ln_p).floor() as u64;
                    *pos = (*pos + skip % *len) % *len;
                }
                let p = *start + *pos;
                *pos += 1;
                if *pos == *len {
                    *pos = 0;
                }
                Draw::Page(p)
            }
            Kind::Window {
                seed,
                start,
                len,
                n,
                win_start,
                win_pos,
                scr,
            } => {
                let p = *start + *win_start + scr.apply(*win_pos);
                *win_pos += 1;
                if *win_pos == scr.len() {
                    *win_start += scr.len();
                    if *win_start >= *len {
                        *win_start = 0;
                    }
                    *win_pos = 0;
                    let size = (*n).min(*len - *win_start);
                    let index = *win_start / *n;
                    *scr = Scrambler::new(
                        size,
                        derive_seed(*seed, index.wrapping_add(rng.next_u64())),
                    );
                }
                Draw::Page(p)
            }
            Kind::Zns {
                zone_pages,
                my_zones,
                open,
                next,
                picker,
            } => {
                let slot = *next;
                if !open[slot].trimmed {
                    open[slot].trimmed = true;
                    return Draw::Trim {
                        start: open[slot].zone * *zone_pages,
                        pages: *zone_pages,
                    };
                }
                let oz = &mut open[slot];
                let p = oz.zone * *zone_pages + oz.written;
                oz.written += 1;
                if oz.written == *zone_pages {
                    let zone = picker.next(rng, my_zones, &open_ids(open));
                    open[slot] = OpenZone {
                        zone,
                        written: 0,
                        trimmed: false,
                    };
                }
                *next = (slot + 1) % open.len();
                Draw::Page(p)
            }
            Kind::Streams {
                thresholds,
                starts,
                lens,
                pos,
            } => {
                let r = rng.next_u64();
                let i = thresholds
                    .partition_point(|&t| t <= r)
                    .min(thresholds.len() - 1);
                let p = starts[i] + pos[i];
                pos[i] += 1;
                if pos[i] == lens[i] {
                    pos[i] = 0;
                }
                Draw::Page(p)
            }
        }
    }
}

fn open_ids(open: &[OpenZone]) -> Vec<u64> {
    open.iter().map(|o| o.zone).collect()
}

fn frac_to_u64(f: f64) -> u64 {
    if f >= 1.0 {
        u64::MAX
    } else if f <= 0.0 {
        0
    } else {
        (f * 18_446_744_073_709_551_616.0) as u64
    }
}

/// One request: an operation on `pages` pages from `page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub op: Op,
    pub page: u64,
    pub pages: u64,
}

/// A page stream combined with a read/write mix: what an executor issues.
#[derive(Clone, Debug)]
pub struct RequestStream {
    pages: PageStream,
    mix: RwMix,
    rng: SeededRng,
}

impl RequestStream {
    pub fn new(pattern: &Pattern, mix: RwMix, cfg: StreamConfig) -> Result<Self, PatternError> {
        Ok(Self {
            pages: PageStream::new(pattern, cfg)?,
            mix,
            rng: SeededRng::substream(derive_seed(cfg.seed, PURPOSE_MIX), cfg.thread as u64),
        })
    }

    #[inline]
    pub fn next_request(&mut self) -> Request {
        match self.pages.next_draw() {
            Draw::Page(page) => Request {
                op: self.mix.pick(&mut self.rng),
                page,
                pages: 1,
            },
            Draw::Trim { start, pages } => Request {
                op: Op::Trim,
                page: start,
                pages,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(p: &str, pages: u64, seed: u64, thread: u32, threads: u32) -> PageStream {
        PageStream::new(
            &Pattern::parse(p).unwrap(),
            StreamConfig {
                pages,
                page_bytes: 4096,
                seed,
                layout_seed: seed,
                thread,
                threads,
                own_region: false,
                represents: 1.0,
            },
        )
        .unwrap()
    }

    fn pages_of(s: &mut PageStream, count: usize) -> Vec<u64> {
        (0..count)
            .map(|_| match s.next_draw() {
                Draw::Page(p) => p,
                Draw::Trim { .. } => panic!("unexpected trim"),
            })
            .collect()
    }

    #[test]
    fn same_seed_same_stream_for_every_pattern() {
        for p in [
            "seq",
            "uniform",
            "randperm",
            "zipf:0.8",
            "twozone:80/20",
            "zones:50@10,50@90",
            "readonly:0.3",
            "skipseq:0.5",
            "window:16",
            "zns:64KiBx2",
            "streams:3",
        ] {
            let draws = |seed| {
                let mut s = stream(p, 1000, seed, 1, 2);
                (0..500).map(|_| s.next_draw()).collect::<Vec<_>>()
            };
            assert_eq!(draws(3), draws(3), "{p}");
            if p != "seq" {
                assert_ne!(draws(3), draws(4), "{p}: seed has no effect");
            }
        }
    }

    /// Zipf folded from 100x the pages puts the full-size Zipf's mass on each share of the
    /// range: the hottest k pages get exactly the top 100k ranks' mass (exact oracle), and a
    /// stream that represents only itself is the plain one, draw for draw.
    #[test]
    fn folded_zipf_keeps_the_larger_device_s_share_per_share_of_pages() {
        let (n, fold, theta, draws) = (10_000u64, 100.0, 0.9, 400_000usize);
        let folded = StreamConfig {
            represents: fold,
            ..StreamConfig::single(n, 4096, 7)
        };
        let pat = Pattern::parse(&format!("zipf:{theta}")).unwrap();
        let mut s = PageStream::new(&pat, folded).unwrap();
        let scr = scrambler_for(n, 7);
        let mut rank_of = vec![0u64; n as usize];
        for r in 0..n {
            rank_of[scr.apply(r) as usize] = r;
        }
        let mut hits = vec![0u64; n as usize];
        for p in pages_of(&mut s, draws) {
            hits[rank_of[p as usize] as usize] += 1;
        }
        let big = n * fold as u64;
        for k in [1u64, 10, 100, 1000] {
            let got = hits[..k as usize].iter().sum::<u64>() as f64 / draws as f64;
            let want = crate::zipf::mass_top(k * fold as u64, big, theta);
            let plain = crate::zipf::mass_top(k, n, theta);
            let sd = (want * (1.0 - want) / draws as f64).sqrt();
            assert!(
                (got - want).abs() < 5.0 * sd + 1e-4,
                "top {k}: {got} vs {want}"
            );
            assert!(
                want > plain * 1.05,
                "top {k}: folding changes nothing to test"
            );
        }
        let plain = StreamConfig::single(n, 4096, 7);
        let mut a = PageStream::new(&pat, plain).unwrap();
        let mut b = PageStream::new(
            &pat,
            StreamConfig {
                represents: 1.0,
                ..plain
            },
        )
        .unwrap();
        assert_eq!(pages_of(&mut a, 1000), pages_of(&mut b, 1000));
    }

    #[test]
    fn every_draw_is_in_range() {
        for p in [
            "uniform",
            "randperm",
            "zipf:1.2",
            "twozone:95/5",
            "readonly:0.9",
            "skipseq:0.9",
            "window:7",
        ] {
            let mut s = stream(p, 997, 1, 0, 1);
            for x in pages_of(&mut s, 20_000) {
                assert!(x < 997, "{p}: {x}");
            }
        }
    }

    #[test]
    fn streams_are_sequential_in_equal_regions_with_the_artifact_weights() {
        let (n, k) = (1000u64, 4u64);
        let mut s = stream("streams:4", n, 5, 0, 1);
        let draws = 200_000;
        let mut counts = [0u64; 4];
        let mut last: [Option<u64>; 4] = [None; 4];
        for p in pages_of(&mut s, draws) {
            let i = (p / (n / k)) as usize;
            counts[i] += 1;
            if let Some(prev) = last[i] {
                let start = i as u64 * n / k;
                assert_eq!(p, start + (prev - start + 1) % (n / k), "stream {i} jumped");
            } else {
                assert_eq!(p, i as u64 * n / k, "stream {i} starts at its region");
            }
            last[i] = Some(p);
        }
        // Weights 1, 1.2, 1.4, 1.6 of 5.2; binomial sd at 200k draws is below 0.0011.
        for (i, c) in counts.iter().enumerate() {
            let want = crate::pattern::stream_weight(i as u32) / 5.2;
            let got = *c as f64 / draws as f64;
            assert!((got - want).abs() < 0.005, "stream {i}: {got} vs {want}");
        }
    }

    #[test]
    fn streams_split_per_thread_and_need_a_page_each() {
        let mut b = stream("streams:2", 20, 1, 1, 2);
        assert!(pages_of(&mut b, 1000)
            .iter()
            .all(|&p| (10..20).contains(&p)));
        let e = PageStream::new(
            &Pattern::parse("streams:8").unwrap(),
            StreamConfig::single(5, 4096, 1),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("5 pages cannot hold 8 streams"),
            "{e}"
        );
    }

    #[test]
    fn own_regions_keep_every_pattern_inside_the_thread_s_region() {
        for p in ["uniform", "zipf:0.9", "randperm", "seq", "zns:16KiBx2"] {
            let pat = Pattern::parse(p).unwrap();
            let mut firsts = Vec::new();
            for thread in 0..3u32 {
                let cfg = StreamConfig {
                    own_region: true,
                    thread,
                    threads: 3,
                    ..StreamConfig::single(300, 4096, 9)
                };
                let mut s = PageStream::new(&pat, cfg).unwrap();
                let lo = thread as u64 * 100;
                let mut seen = std::collections::HashSet::new();
                for _ in 0..2_000 {
                    let (a, b) = match s.next_draw() {
                        Draw::Page(x) => (x, x + 1),
                        Draw::Trim { start, pages } => (start, start + pages),
                    };
                    assert!(lo <= a && b <= lo + 100, "{p} thread {thread}: {a}..{b}");
                    seen.insert(a - lo);
                }
                assert!(seen.len() > 50, "{p}: the whole region is used");
                let rel = |d: Draw| match d {
                    Draw::Page(x) => x - lo,
                    Draw::Trim { start, .. } => start - lo,
                };
                firsts.push((0..20).map(|_| rel(s.next_draw())).collect::<Vec<_>>());
            }
            if p != "seq" {
                assert_ne!(firsts[0], firsts[1], "{p}: threads draw independently");
            }
        }
    }

    #[test]
    fn seq_splits_into_thread_regions_and_wraps() {
        let mut a = stream("seq", 10, 0, 0, 2);
        let mut b = stream("seq", 10, 0, 1, 2);
        assert_eq!(pages_of(&mut a, 7), vec![0, 1, 2, 3, 4, 0, 1]);
        assert_eq!(pages_of(&mut b, 6), vec![5, 6, 7, 8, 9, 5]);
    }

    #[test]
    fn randperm_visits_every_page_exactly_once_per_pass_across_threads() {
        let n = 10_007u64;
        for threads in [1u32, 3] {
            let mut seen = vec![0u32; n as usize];
            for t in 0..threads {
                let mut s = stream("randperm", n, 11, t, threads);
                let (start, end) = StreamConfig {
                    pages: n,
                    page_bytes: 1,
                    seed: 0,
                    layout_seed: 0,
                    thread: t,
                    threads,
                    own_region: false,
                    represents: 1.0,
                }
                .region(n);
                for p in pages_of(&mut s, (end - start) as usize) {
                    seen[p as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "threads={threads}");
        }
        // The second pass is a different order.
        let mut s = stream("randperm", 100, 2, 0, 1);
        let first = pages_of(&mut s, 100);
        let second = pages_of(&mut s, 100);
        assert_ne!(first, second);
        let mut sorted = second.clone();
        sorted.sort();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn twozone_sends_w_percent_to_exactly_s_percent_of_pages() {
        let n = 100_000u64;
        let seed = 21;
        let draws = 400_000usize;
        let scr = scrambler_for(n, seed);
        let hot_n = n / 5;
        let mut is_hot = vec![false; n as usize];
        for i in 0..hot_n {
            is_hot[scr.apply(i) as usize] = true;
        }
        assert_eq!(is_hot.iter().filter(|&&h| h).count() as u64, hot_n);
        let mut s = stream("twozone:80/20", n, seed, 0, 1);
        let mut hits = vec![0u32; n as usize];
        let mut hot = 0usize;
        for p in pages_of(&mut s, draws) {
            hits[p as usize] += 1;
            hot += is_hot[p as usize] as usize;
        }
        let frac = hot as f64 / draws as f64;
        let sigma = (0.8f64 * 0.2 / draws as f64).sqrt();
        assert!((frac - 0.8).abs() < 4.0 * sigma, "hot share {frac}");
        // Within the hot zone, uniform: a per-page count test (mean 16 per hot page).
        let hot_hits: Vec<u32> = (0..n as usize)
            .filter(|&i| is_hot[i])
            .map(|i| hits[i])
            .collect();
        let mean = hot_hits.iter().map(|&h| h as f64).sum::<f64>() / hot_hits.len() as f64;
        assert!((mean - 16.0).abs() < 0.1, "mean hits per hot page {mean}");
        // Hot pages are spread over the whole LBA range: each tenth of it holds ~10% of them.
        for d in 0..10 {
            let lo = d * n as usize / 10;
            let c = (lo..lo + n as usize / 10).filter(|&i| is_hot[i]).count();
            assert!((1_700..2_300).contains(&c), "decile {d}: {c}");
        }
    }

    #[test]
    fn readonly_never_touches_its_fraction() {
        let n = 10_000u64;
        let mut s = stream("readonly:0.75", n, 5, 0, 1);
        let mut touched = vec![false; n as usize];
        for p in pages_of(&mut s, 200_000) {
            touched[p as usize] = true;
        }
        assert_eq!(touched.iter().filter(|&&t| t).count(), 2_500);
    }

    #[test]
    fn skipseq_ascends_and_skips_with_probability_p() {
        let n = 1_000_000u64;
        let mut s = stream("skipseq:0.75", n, 1, 0, 1);
        let v = pages_of(&mut s, 50_000);
        assert!(v.windows(2).all(|w| w[1] > w[0]));
        // Mean gap is 1/(1-P) = 4 pages.
        let mean_gap = (v[v.len() - 1] - v[0]) as f64 / (v.len() - 1) as f64;
        assert!((mean_gap - 4.0).abs() < 0.1, "{mean_gap}");
    }

    #[test]
    fn window_shuffles_only_within_windows() {
        let mut s = stream("window:8", 100, 1, 0, 1);
        let v = pages_of(&mut s, 100);
        for (w, chunk) in v.chunks(8).enumerate() {
            let mut c = chunk.to_vec();
            c.sort();
            let lo = w as u64 * 8;
            assert_eq!(
                c,
                (lo..(lo + chunk.len() as u64).min(100)).collect::<Vec<_>>()
            );
        }
        assert_ne!(v, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn zns_trims_then_writes_each_zone_sequentially() {
        // 64 KiB zones of 4 KiB pages = 16 pages; 10 zones; 2 open at once.
        let n = 160u64;
        let mut s = stream("zns:64KiBx2", n, 8, 0, 1);
        let mut progress: std::collections::HashMap<u64, u64> = Default::default();
        let mut trims = 0;
        for _ in 0..5_000 {
            match s.next_draw() {
                Draw::Trim { start, pages } => {
                    assert_eq!(pages, 16);
                    assert_eq!(start % 16, 0);
                    let z = start / 16;
                    assert!(
                        progress.get(&z).is_none_or(|&w| w == 16),
                        "zone {z} trimmed while open"
                    );
                    progress.insert(z, 0);
                    trims += 1;
                }
                Draw::Page(p) => {
                    let z = p / 16;
                    let w = progress
                        .get_mut(&z)
                        .expect("write to a zone that was not trimmed first");
                    assert_eq!(p % 16, *w, "zone {z} not written sequentially");
                    *w += 1;
                }
            }
            assert!(
                progress.values().filter(|&&w| w < 16).count() <= 2,
                "more than 2 zones open"
            );
        }
        assert!(trims > 100);
    }

    #[test]
    fn bad_stream_configs_are_errors() {
        let pat = Pattern::parse("zns:6KiB").unwrap();
        let e = PageStream::new(&pat, StreamConfig::single(100, 4096, 0)).unwrap_err();
        assert!(
            e.to_string().contains("not a multiple of the page size"),
            "{e}"
        );
        let pat = Pattern::parse("zns:4KiBx1").unwrap();
        let cfg = StreamConfig {
            pages: 100,
            page_bytes: 4096,
            seed: 0,
            layout_seed: 0,
            thread: 0,
            threads: 2,
            own_region: false,
            represents: 1.0,
        };
        assert!(PageStream::new(&pat, cfg).is_err());
        let pat = Pattern::parse("twozone:90/0.001").unwrap();
        let e = PageStream::new(&pat, StreamConfig::single(1000, 4096, 0)).unwrap_err();
        assert!(e.to_string().contains("holds no page"), "{e}");
    }
}
