//! The emulated drive's timing model on its own: exact idle latencies, writes waiting for
//! buffer room, and the FTL's invariants and flash accounting under random writes.

use ssdiq_emu::{builtin, Drive, Profile, LBA_BYTES};
use ssdiq_workload::SeededRng;

fn drive(extra: &[(&str, &str)]) -> Drive {
    let mut o = vec![("capacity", "256MiB")];
    o.extend_from_slice(extra);
    Drive::new(&Profile::parse(builtin("default").unwrap(), &o).unwrap()).unwrap()
}

/// Runs the drive's internal events until nothing is pending; returns admitted writes.
fn drain(d: &mut Drive) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    while d.next_event() != u64::MAX {
        let t = d.next_event();
        d.advance(t);
        d.take_completed(&mut out);
    }
    out
}

#[test]
fn idle_latencies_are_the_sum_of_their_parts() {
    let mut d = drive(&[]);
    let t = *d.timing();
    // Buffered write: link transfer + write_us.
    let link = t.link_ns_per_page as u64;
    assert_eq!(d.write(0, 7, 1, 0), Some(link + t.write_ns));
    // Still buffered: served from DRAM.
    let now = 1_000_000;
    d.advance(now);
    assert_eq!(
        d.read(now, 7, 1),
        now + t.read_overhead_ns + t.dram_ns + link
    );
    // Unmapped: DRAM too.
    assert_eq!(
        d.read(now, 9, 1),
        now + t.read_overhead_ns + t.dram_ns + link
    );
    // A full unit goes to flash; once programmed, a read costs tR + one page's transfer.
    for l in 0..t.unit_pages as u64 {
        d.write(now, 100 + l, 1, 0);
    }
    drain(&mut d);
    let now = d.now() + 1_000_000;
    d.advance(now);
    let xfer = t.xfer_ns_per_page as u64;
    assert_eq!(
        d.read(now, 100, 1),
        now + t.read_overhead_ns + t.read_ns + xfer + link
    );
    // The unit (page 7 and the first 47 of the 48), then page 147 alone: the host was idle
    // for the idle delay, so the partial unit was programmed.
    assert_eq!(
        d.counters().media_write_bytes,
        (t.unit_pages as u64 + 1) * LBA_BYTES
    );
    let now = d.now() + 1_000_000;
    d.advance(now);
    assert_eq!(
        d.read(now, 100 + t.unit_pages as u64 - 1, 1),
        now + t.read_overhead_ns + t.read_ns + xfer + link
    );
}

#[test]
fn a_full_buffer_makes_writes_wait_for_a_program() {
    // Two units of buffer.
    let mut d = drive(&[("buffer_kib", "384")]);
    let t = *d.timing();
    let cap = 2 * t.unit_pages as u64;
    for l in 0..cap {
        assert!(d.write(0, l, 1, l).is_some());
    }
    // Both units are programming now; the next write waits for the first to end.
    assert_eq!(d.write(0, cap, 1, 99), None);
    assert_eq!(d.parked(), 1);
    let done = drain(&mut d);
    assert_eq!(done.len(), 1);
    let (tag, at) = done[0];
    assert_eq!(tag, 99);
    assert_eq!(at, t.program_ns + t.write_ns);
}

#[test]
fn random_writes_keep_the_ftl_consistent_and_count_every_program() {
    let mut d = drive(&[]);
    let u = d.geometry().logical_pages;
    let mut rng = SeededRng::new(3);
    let mut now = 0;
    let mut parked = 0;
    for i in 0..4 * u {
        // One write every 2 us: faster than the flash, so GC and the buffer limit it.
        now += 2_000;
        d.advance(now);
        let mut out = Vec::new();
        d.take_completed(&mut out);
        parked -= out.len();
        if parked > 64 {
            continue;
        }
        if d.write(now, rng.below(u), 1, i).is_none() {
            parked += 1;
        }
        if i % 1000 == 0 {
            d.trim(now, rng.below(u), 1);
        }
    }
    drain(&mut d);
    d.ftl().check_invariants().unwrap();
    let c = d.ftl().counters();
    // Everything that reached flash was counted as media bytes once its program ended
    // (relocated pages still waiting in DRAM are not programmed yet).
    assert!(d.counters().media_write_bytes <= c.flash_programs() * LBA_BYTES);
    assert!(c.gc_programs > 0 && d.counters().erases > 0);
    let waf = d.counters().media_write_bytes as f64 / d.counters().host_write_bytes as f64;
    assert!(waf > 1.0 && waf < 8.0, "{waf}");

    // A reset (sanitize, format) undoes no wear: it erases every superblock holding data.
    let erases = d.counters().erases;
    let used = u64::from(d.ftl().geometry().ftl_blocks() - d.ftl().free_blocks());
    assert!(used > u64::from(d.ftl().geometry().blocks) / 2);
    d.reset();
    assert_eq!(d.counters().erases, erases + used);
    let after_reset = d.counters().erases;
    // Erases after the reset count on from there.
    for i in 0..3 * u {
        now += 20_000;
        d.advance(now);
        let mut out = Vec::new();
        d.take_completed(&mut out);
        let _ = d.write(now, rng.below(u), 1, i);
    }
    drain(&mut d);
    assert!(d.counters().erases > after_reset);
}
