//! A trace as simulator draws, as timed requests, and its statistics, on traces small enough
//! to work out by hand.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use ssdiq_trace::scan::{scan, CompactLimit, CompactOver};
use ssdiq_trace::TraceReplay;
use ssdiq_trace::{BlkAction, Format, MapKind, TraceOptions, TraceRecord, TraceStatsBuilder};
use ssdiq_trace::{Mapping, TraceDraws};
use ssdiq_workload::{Draw, DrawSource, Op, Request, TimedSource};

const K: u64 = 4096;

static UNLIMITED: CompactLimit = CompactLimit {
    pages: u64::MAX,
    what: String::new(),
};

fn rec(t_us: u64, op: Op, offset: u64, len: u64) -> TraceRecord {
    TraceRecord {
        time_ns: t_us * 1000,
        device: 0,
        op,
        offset,
        len,
    }
}

fn trace(dir: &tempfile::TempDir, recs: &[TraceRecord]) -> PathBuf {
    // blkparse text: the one layout here with discards.
    let p = dir.path().join("t.csv");
    std::fs::write(&p, common::text(Format::Blkparse(BlkAction::Issue), recs)).unwrap();
    p
}

/// Draws of the trace at `p`; `memory`: from the scan's in-memory pass (compact only).
fn draws_from(p: &PathBuf, map: MapKind, target: u64, memory: bool) -> Result<TraceDraws, String> {
    let compact = (map == MapKind::Compact).then_some((CompactOver::Writes, &UNLIMITED));
    let mut s = scan(&TraceOptions::new(p), K, compact).map_err(|e| e.to_string())?;
    let c = s.compaction.take().map(Arc::new);
    let seq = s.sequence.take().map(Arc::new).filter(|_| memory);
    let m = Mapping::new(map, &s, c, target, "the drive").map_err(|e| e.to_string())?;
    TraceDraws::new(&s, m, target, seq).map_err(|e| e.to_string())
}

fn draws(p: &PathBuf, map: MapKind, target: u64) -> Result<TraceDraws, String> {
    draws_from(p, map, target, false)
}

fn take(d: &mut impl DrawSource, n: usize) -> Vec<Draw> {
    (0..n).map(|_| d.next_draw()).collect()
}

fn sample() -> Vec<TraceRecord> {
    vec![
        rec(0, Op::Write, 1000 * K, K),
        rec(1, Op::Read, 50 * K, 8 * K),
        rec(2, Op::Write, 5 * K + 512, K), // touches pages 5 and 6
        rec(3, Op::Write, 1000 * K, 2 * K),
        rec(4, Op::Trim, 5 * K, 3 * K), // pages 5, 6 (written) and 7 (never written)
    ]
}

#[test]
fn compact_draws_pack_written_pages_in_first_touch_order_and_loop() {
    let dir = tempfile::tempdir().unwrap();
    let p = trace(&dir, &sample());
    let mut d = draws(&p, MapKind::Compact, 100).unwrap();
    use Draw::*;
    let pass = [
        Page(0),
        Page(1),
        Page(2),
        Page(0),
        Page(3), // page 1001, first touched by the fourth record
        Trim { start: 1, pages: 1 },
        Trim { start: 2, pages: 1 },
    ];
    let got = take(&mut d, 14);
    assert_eq!(got[..7], pass[..]);
    assert_eq!(got[7..], pass[..], "the second pass repeats the first");
    assert_eq!(d.passes(), 1);
    // The scan's in-memory pass draws the same.
    let mut m = draws_from(&p, MapKind::Compact, 100, true).unwrap();
    assert_eq!(take(&mut m, 14), got);
    assert_eq!(m.passes(), 1);
}

#[test]
fn modulo_and_direct_draws() {
    let dir = tempfile::tempdir().unwrap();
    let p = trace(&dir, &sample());
    let mut d = draws(&p, MapKind::Modulo, 100).unwrap();
    use Draw::*;
    assert_eq!(
        take(&mut d, 8),
        vec![
            Page(0),
            Page(5),
            Page(6),
            Page(0),
            Page(1),
            Trim { start: 5, pages: 1 },
            Trim { start: 6, pages: 1 },
            Trim { start: 7, pages: 1 },
        ]
    );
    let e = draws(&p, MapKind::Direct, 100).err().unwrap();
    assert!(e.contains("t.csv") && e.contains("beyond the drive"), "{e}");
    let mut d = draws(&p, MapKind::Direct, 1002).unwrap();
    assert_eq!(take(&mut d, 3), vec![Page(1000), Page(5), Page(6)]);
    let e = draws(&p, MapKind::Compact, 3).err().unwrap();
    assert!(
        e.contains("footprint of 4 pages") && e.contains("does not fit"),
        "{e}"
    );
}

#[test]
fn the_compact_map_stops_at_its_limit_and_refuses_a_huge_request_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let limit = CompactLimit {
        pages: 100,
        what: "the test's bound".into(),
    };
    let scan_of = |recs: &[TraceRecord]| {
        let p = trace(&dir, recs);
        scan(
            &TraceOptions::new(&p),
            K,
            Some((CompactOver::Writes, &limit)),
        )
        .map(|s| s.compaction.unwrap().len())
        .map_err(|e| e.to_string())
    };
    // One write of 2^40 bytes: refused before any of its 2^28 pages is mapped.
    let e = scan_of(&[rec(0, Op::Write, 0, 1 << 40)]).unwrap_err();
    assert!(
        e.contains("record 1") && e.contains("268435456 pages") && e.contains("the test's bound"),
        "{e}"
    );
    // Exactly the limit fits; rewriting those pages adds nothing; one page more is refused.
    let fits = [rec(0, Op::Write, 0, 100 * K), rec(1, Op::Write, 0, 100 * K)];
    assert_eq!(scan_of(&fits), Ok(100));
    let mut over = fits.to_vec();
    over.push(rec(2, Op::Write, 100 * K, K));
    let e = scan_of(&over).unwrap_err();
    assert!(
        e.contains("record 3") && e.contains("past 100 distinct pages"),
        "{e}"
    );
}

#[test]
fn a_trace_without_writes_cannot_drive_the_simulator() {
    let dir = tempfile::tempdir().unwrap();
    let p = trace(&dir, &[rec(0, Op::Read, 0, K)]);
    let e = draws(&p, MapKind::Modulo, 10).err().unwrap();
    assert!(e.contains("no write"), "{e}");
}

fn replay(p: &PathBuf, map: MapKind, units: u64, max_units: u64) -> Vec<(u64, Request)> {
    let compact = (map == MapKind::Compact).then_some((CompactOver::Accessed, &UNLIMITED));
    let mut s = scan(&TraceOptions::new(p), K, compact).unwrap();
    let c = s.compaction.take().map(Arc::new);
    let m = Mapping::new(map, &s, c, units, "the target").unwrap();
    let mut r = TraceReplay::new(&s, m, units, max_units).unwrap();
    let mut out = Vec::new();
    while let Some(t) = r.next_timed() {
        out.push((t.at_ns, t.request));
    }
    assert!(r.error().is_none());
    out
}

fn req(op: Op, page: u64, pages: u64) -> Request {
    Request { op, page, pages }
}

#[test]
fn replay_widens_splits_and_keeps_times() {
    let dir = tempfile::tempdir().unwrap();
    let p = trace(&dir, &sample());
    // Direct, at most 2 units per read or write: the 8-page read splits in four; the trim
    // of 3 units (no buffer involved) stays whole.
    let got = replay(&p, MapKind::Direct, 2000, 2);
    assert_eq!(
        got,
        vec![
            (0, req(Op::Write, 1000, 1)),
            (1000, req(Op::Read, 50, 2)),
            (1000, req(Op::Read, 52, 2)),
            (1000, req(Op::Read, 54, 2)),
            (1000, req(Op::Read, 56, 2)),
            (2000, req(Op::Write, 5, 2)),
            (3000, req(Op::Write, 1000, 2)),
            (4000, req(Op::Trim, 5, 3)),
        ]
    );
    // Modulo onto 52 units: the read of 50..58 wraps to 50..52 and 0..6.
    let got = replay(&p, MapKind::Modulo, 52, 256);
    assert_eq!(got[1], (1000, req(Op::Read, 50, 2)));
    assert_eq!(got[2], (1000, req(Op::Read, 0, 6)));
    // Compact: pages in first-touch order (1000 -> 0, 50..58 -> 1..9, 5 -> 9, 6 -> 10,
    // 1001 -> 11); the write of 1000..1002 splits where the map is not contiguous; the trim
    // of 7 (never accessed) is dropped.
    let got = replay(&p, MapKind::Compact, 12, 256);
    assert_eq!(
        got,
        vec![
            (0, req(Op::Write, 0, 1)),
            (1000, req(Op::Read, 1, 8)),
            (2000, req(Op::Write, 9, 2)),
            (3000, req(Op::Write, 0, 1)),
            (3000, req(Op::Write, 11, 1)),
            (4000, req(Op::Trim, 9, 2)),
        ]
    );
}

#[test]
fn statistics_of_a_small_trace() {
    let recs = vec![
        rec(0, Op::Write, 0, 8 * K),
        rec(10, Op::Write, 8 * K, 8 * K), // sequential after the first
        rec(30, Op::Read, 0, K),
        rec(35, Op::Write, 0, K), // not sequential (previous write ended at 16K)
        rec(20, Op::Write, 0, K), // stamped before its predecessor
        rec(60, Op::Trim, 0, 64 * K),
    ];
    let mut b = TraceStatsBuilder::new(K);
    for r in &recs {
        b.add(r);
    }
    let s = b.finish("t", "alibaba", None, 6, |d| d.to_string());
    assert_eq!(s.requests, 6);
    assert_eq!(
        (s.read.requests, s.write.requests, s.trim.requests),
        (1, 4, 1)
    );
    assert_eq!(s.write.bytes, 18 * K);
    assert!((s.write.sequential_fraction - 0.25).abs() < 1e-12);
    assert_eq!(s.footprint.pages, 16);
    assert_eq!((s.footprint.read_pages, s.footprint.written_pages), (1, 16));
    assert_eq!(s.footprint.read_only_pages, 0);
    assert_eq!(s.footprint.max_end, 16 * K);
    assert_eq!(s.inter_arrival.backwards, 1);
    assert!((s.duration_s - 60e-6).abs() < 1e-12);
    // Page 0 written 3 times, 15 pages once: 18 page writes.
    let w = &s.write_skew;
    assert_eq!(
        (w.page_writes, w.written_pages, w.max_writes_per_page),
        (18, 16, 3)
    );
    assert_eq!(w.count_histogram, vec![(1, 15), (3, 1)]);
    // The hottest page (top 0.01% of 16 pages rounds up to one page) gets 3/18.
    assert!((w.top[0].share - 3.0 / 18.0).abs() < 1e-12);
    let sizes: Vec<(u64, u64, u64, u64)> = s
        .sizes
        .iter()
        .map(|b| (b.up_to_bytes, b.read, b.write, b.trim))
        .filter(|b| b.1 + b.2 + b.3 > 0)
        .collect();
    assert_eq!(
        sizes,
        vec![(4096, 1, 2, 0), (32768, 0, 2, 0), (262144, 0, 0, 1)]
    );
}
