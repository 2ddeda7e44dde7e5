//! Checks of the emulated SSD through the executor (issue 6): determinism, idle latencies,
//! suspension, WAF against the plain FTL simulation, and the implied-WAF premise. Small
//! capacities with small superblocks keep them fast; WAF depends on OP and block geometry,
//! not on capacity.

use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, FillMode, Job, RunControl, Stats};
use ssdiq_flash::{simulate, GcMode, SimConfig};
use ssdiq_workload::units::Rate;
use ssdiq_workload::{Op, Pattern, RwMix};

const SMALL: &str = "capacity=1GiB";

fn open(profile: &str, extra: &str) -> EmuExecutor {
    EmuExecutor::open(&format!("emu:{profile},{SMALL}{extra}")).unwrap()
}

fn job(e: &EmuExecutor, rw: &str, bs: u64, qd: u32) -> Job {
    let cap = e.capacity_bytes();
    let mut j = Job::new("emu", RwMix::parse(rw).unwrap(), bs, cap);
    j.qd = qd;
    j
}

fn run(e: &mut EmuExecutor, j: &Job) -> Stats {
    e.run(j, &RunControl::default()).unwrap()
}

fn mean_us(s: &Stats, op: Op) -> f64 {
    s.ops[&op].mean_ns() / 1e3
}

fn mb_s(s: &Stats, op: Op) -> f64 {
    s.ops[&op].bytes as f64 / 1e6 / (s.elapsed_ns as f64 / 1e9)
}

/// Fill, then `warm` drive writes of uniform random 4 KiB writes at QD 32.
fn steady(e: &mut EmuExecutor, warm: f64) {
    let mut j = job(e, "randwrite", 4096, 32);
    j.fill = Some(FillMode::Seq);
    j.bound.bytes = Some((e.capacity_bytes() as f64 * warm) as u64);
    run(e, &j);
}

#[test]
fn same_seed_same_results_bit_for_bit() {
    let report = || {
        let mut e = open("default", "");
        let mut j = job(&e, "randrw:30", 4096, 8);
        j.threads = 2;
        j.fill = Some(FillMode::Seq);
        j.bound.bytes = Some(e.capacity_bytes() / 2);
        j.probes = vec![ssdiq_engine::Probe::READ, ssdiq_engine::Probe::WRITE];
        j.rate = Some(Rate::IoPerSec(50_000.0));
        let s = run(&mut e, &j);
        serde_json::to_string(&s.report(j.info())).unwrap()
    };
    let a = report();
    assert_eq!(a, report());
    assert!(a.contains("\"clock\":\"virtual\""));
}

#[test]
fn idle_latencies_match_the_spec() {
    for name in ["default", "nosuspend", "smallbuf", "highop", "2r"] {
        let mut e = open(name, "");
        let spec = e.spec();
        let mut w = job(&e, "randwrite", 4096, 1);
        w.bound.bytes = Some(4 << 20);
        let s = run(&mut e, &w);
        let wl = mean_us(&s, Op::Write);
        let want = spec.write_lat_us.unwrap();
        assert!(
            (wl / want - 1.0).abs() < 0.1,
            "{name}: write {wl} us vs {want}"
        );
        let mut f = job(&e, "write", 1 << 20, 8);
        f.range_bytes = 64 << 20;
        f.bound.bytes = Some(64 << 20);
        run(&mut e, &f);
        // Idle: let the buffer drain before measuring.
        e.idle_for(1_000_000_000);
        let mut r = job(&e, "randread", 4096, 1);
        r.range_bytes = 64 << 20;
        r.bound.bytes = Some(4 << 20);
        let s = run(&mut e, &r);
        let rl = mean_us(&s, Op::Read);
        let want = spec.read_lat_us.unwrap();
        assert!(
            (rl / want - 1.0).abs() < 0.1,
            "{name}: read {rl} us vs {want}"
        );
    }
}

/// QD1 read probe under random writes at 25% of the spec's random-write rate.
fn probe_p999_us(profile: &str) -> f64 {
    let mut e = open(profile, "");
    steady(&mut e, 1.0);
    let kiops = e.spec().rand_write_kiops.unwrap();
    let mut j = job(&e, "randwrite", 4096, 32);
    j.bound.bytes = None;
    j.bound.time_ns = Some(10_000_000_000);
    j.rate = Some(Rate::IoPerSec(kiops * 1000.0 * 0.25));
    j.probes = vec![ssdiq_engine::Probe::READ];
    let s = run(&mut e, &j);
    s.probes[&Op::Read].quantile(0.999) as f64 / 1e3
}

#[test]
fn read_tail_is_worse_without_suspension() {
    let on = probe_p999_us("default");
    let off = probe_p999_us("nosuspend");
    println!("read probe P99.9 under 25% write load: suspend on {on:.0} us, off {off:.0} us");
    assert!(off > 2.0 * on, "on {on} us, off {off} us");
}

#[test]
fn steady_state_waf_matches_the_ftl_simulation() {
    for (name, extra) in [
        ("default", ""),
        ("highop", ""),
        ("default", ",gc_frontier=on,gc_frontier_share=0.5"),
    ] {
        let mut e = open(name, extra);
        steady(&mut e, 3.0);
        let before = e.write_counters();
        let mut j = job(&e, "randwrite", 4096, 32);
        j.bound.bytes = Some(e.capacity_bytes() * 2);
        let s = run(&mut e, &j);
        let emu = s.counters.waf().unwrap();
        assert_eq!(before, s.counters.before.unwrap());
        let mut g = *e.drive().geometry();
        // The emulated drive keeps free superblocks near its low watermark, not the FTL
        // reserve: give the simulation that reserve, out of the drive's superblocks.
        g.reserve_blocks = e.profile().gc.low_watermark;
        g.blocks -= g.reserve_blocks;
        let sim = simulate(
            &SimConfig {
                geometry: g,
                policy: e.drive().ftl().policy(),
                gc_frontier: e.profile().drive.gc_frontier,
                gc_frontier_share: e.profile().drive.gc_frontier_share.unwrap_or(1.0),
                gc_mode: GcMode::Naive,
                wear_level_gap: e.profile().gc.wear_level_gap,
                pattern: Pattern::Uniform,
                warmup_drive_writes: 0.0,
                drive_writes: 5.0,
                seed: 1,
                // The buffer absorbs rewrites within its scaled window: an LRU of that size
                // absorbs the same under uniform traffic.
                buffer_pages: e.drive().timing().window_pages,
                points_per_drive_write: 1,
            },
            |_| {},
        )
        .unwrap();
        println!(
            "{name}{extra}: emulated WAF {emu:.4}, simulated {:.4}",
            sim.waf
        );
        assert!(
            (emu / sim.waf - 1.0).abs() < 0.02,
            "{name}{extra}: {emu} vs {}",
            sim.waf
        );
    }
}

#[test]
fn random_write_bandwidth_times_waf_is_sequential_bandwidth() {
    // A small buffer, so the sequential figure is the flash's, not the buffer's.
    let mut e = open("default", ",buffer_kib=4096");
    let mut seq = job(&e, "write", 128 << 10, 32);
    seq.bound.bytes = Some(e.capacity_bytes() * 2);
    let seq_bw = mb_s(&run(&mut e, &seq), Op::Write);
    e.reset();
    steady(&mut e, 3.0);
    let mut j = job(&e, "randwrite", 4096, 32);
    j.bound.bytes = Some(e.capacity_bytes() * 2);
    let s = run(&mut e, &j);
    let implied = mb_s(&s, Op::Write) * s.counters.waf().unwrap();
    println!("seq write {seq_bw:.0} MB/s; random write x WAF {implied:.0} MB/s");
    assert!(
        (implied / seq_bw - 1.0).abs() < 0.1,
        "{implied} vs {seq_bw}"
    );
}

#[test]
fn bad_targets_are_one_line_errors() {
    for (t, want) in [
        ("emu:nope", "unknown emu profile \"nope\""),
        ("emu:default,op", "expected key=value"),
        ("emu:default,bogus=1", "unknown emu key \"bogus\""),
        ("emu:default,op=abc", "invalid emu value op=abc"),
        ("emu:/nonexistent/x.toml", "cannot read emu profile"),
    ] {
        let e = EmuExecutor::open(t).err().unwrap().to_string();
        assert!(e.contains(want), "{t}: {e}");
        assert!(!e.contains('\n'), "{t}: {e}");
    }
    let mut e = open("default", "");
    let mut j = job(&e, "randread", 512, 1);
    j.range_bytes = 1 << 20;
    assert!(e.run(&j, &RunControl::default()).is_err());
}

#[test]
fn stop_flag_gives_partial_stats_and_the_drive_persists() {
    let mut e = open("default", "");
    let ctl = RunControl::default();
    ctl.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let j = job(&e, "randwrite", 4096, 4);
    let s = e.run(&j, &ctl).unwrap();
    assert!(s.partial);
    let t = e.now_ns();
    let j = job(&e, "write", 1 << 20, 4);
    let s = run(&mut e, &j);
    assert!(!s.partial && e.now_ns() > t);
    assert_eq!(e.write_counters().host_bytes, e.capacity_bytes());
    e.reset();
    assert_eq!(e.write_counters().host_bytes, e.capacity_bytes());
}

#[test]
fn trims_and_zoned_writes_run_to_completion() {
    // A small buffer, so trims of buffered pages and parked writes meet.
    let mut e = open("default", ",buffer_kib=1024");
    let mut j = job(&e, "write", 1 << 20, 8);
    j.pattern = Pattern::parse("zns:16MiB").unwrap();
    j.fill = Some(FillMode::Seq);
    j.bound.bytes = Some(e.capacity_bytes() * 3);
    let s = run(&mut e, &j);
    assert!(!s.partial);
    // The byte bound counts trimmed bytes too.
    let done = s.ops[&Op::Write].bytes + s.ops[&Op::Trim].bytes;
    assert!(done >= e.capacity_bytes() * 3, "{done}");
    assert!(s.ops[&Op::Trim].ios > 0);
    // Whole zones are trimmed before they are rewritten: no GC copies.
    let waf = s.counters.waf().unwrap();
    println!(
        "zns: {} B written, {} trims, WAF {waf:.3}, {:.2} s, fill {:?}",
        s.ops[&Op::Write].bytes,
        s.ops[&Op::Trim].ios,
        s.elapsed_ns as f64 / 1e9,
        s.fill
    );
    assert!(waf < 1.05, "zoned WAF {waf}");
    let mut t = job(&e, "randtrim", 4096, 4);
    t.bound.bytes = Some(64 << 20);
    let s = run(&mut e, &t);
    assert_eq!(s.ops[&Op::Trim].bytes, 64 << 20);
}

/// A drive whose firmware stalls one write in 2000 for 10-20 ms. An open-loop probe keeps its
/// schedule through a stall of its own write, so every write due meanwhile waits and counts;
/// a closed-loop (fio-style) paced probe times from submission and skips the writes that were
/// due during the stall (coordinated omission): it sees an order of magnitude less tail.
#[test]
fn an_open_loop_probe_sees_the_stalls_a_closed_loop_one_hides() {
    let probe = |open_loop: bool| {
        let mut e = open("default", ",write_stall_rate=0.0005,write_stall_us=20000");
        let mut j = job(&e, "randwrite", 4096, 32);
        j.fill = Some(FillMode::Seq);
        j.bound.bytes = None;
        j.bound.time_ns = Some(20_000_000_000);
        j.rate = Some(Rate::IoPerSec(20_000.0));
        j.probes = vec![ssdiq_engine::Probe::WRITE];
        j.probe_rate = Some(Rate::IoPerSec(2000.0));
        j.probe_open_loop = open_loop;
        let s = run(&mut e, &j);
        s.probes[&Op::Write].clone()
    };
    let open_loop = probe(true);
    let closed = probe(false);
    let slow = |s: &ssdiq_engine::OpStats| s.over_1ms as f64 / s.ios as f64;
    println!(
        "write probe >1 ms: open {:.4} closed {:.4}; P99.9 open {} closed {} ns; ios {} / {}",
        slow(&open_loop),
        slow(&closed),
        open_loop.quantile(0.999),
        closed.quantile(0.999),
        open_loop.ios,
        closed.ios
    );
    // Every due write is issued and measured: 2000/s for 20 s (plus the one due at 20 s).
    assert!(open_loop.ios.abs_diff(40_000) <= 1, "{}", open_loop.ios);
    assert!(closed.ios < open_loop.ios);
    assert!(slow(&open_loop) > 5.0 * slow(&closed));
    assert!(open_loop.quantile(0.999) > 5 * closed.quantile(0.999));
}

/// Poisson arrivals: the count per 10 ms interval has variance about its mean (dispersion
/// 1); evenly paced arrivals have almost none. Reads on an idle drive, so completions follow
/// arrivals.
#[test]
fn poisson_arrivals_are_overdispersed_paced_ones_are_not() {
    let dispersion = |arrivals: ssdiq_engine::Arrivals| {
        let mut e = open("default", "");
        let mut j = job(&e, "randread", 4096, 64);
        j.bound.bytes = None;
        j.bound.time_ns = Some(10_000_000_000);
        j.rate = Some(Rate::IoPerSec(10_000.0));
        j.arrivals = arrivals;
        j.series_interval_ns = 10_000_000;
        let s = run(&mut e, &j);
        let n: Vec<f64> = s
            .series
            .iter()
            .filter(|p| p.stream == "read")
            .take(999)
            .map(|p| p.ios as f64)
            .collect();
        let mean = n.iter().sum::<f64>() / n.len() as f64;
        let var = n.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n.len() - 1) as f64;
        assert!((mean / 100.0 - 1.0).abs() < 0.05, "mean {mean} per 10 ms");
        var / mean
    };
    let poisson = dispersion(ssdiq_engine::Arrivals::Poisson);
    let paced = dispersion(ssdiq_engine::Arrivals::Paced);
    println!("dispersion of 10 ms counts: Poisson {poisson:.3}, paced {paced:.3}");
    assert!((0.8..1.2).contains(&poisson), "{poisson}");
    assert!(paced < 0.1, "{paced}");
}
