//! The model data mode makes the decisions the bytes mode makes.
//!
//! - Exact: given the stored sizes a bytes-mode run decided (recorded), a model-mode run
//!   that replays them ends with the same counters, everywhere: store, space manager (GC
//!   rounds, victims, moved pages, NoWA groups), the emulated drive's host and media bytes,
//!   the virtual clock, so the same DB WAF, SSD WAF, drilldown and throughput, for every
//!   layout and backend.
//! - Calibrated: with sizes from the compression model instead, the same seed gives DB WAF,
//!   SSD WAF and the drilldown within the tolerances stated below.

use ssdiq_store::device::emu::{EmuDevice, EmuMode};
use ssdiq_store::experiment::{self, Outcome, Phases};
use ssdiq_store::{configure, BackendChoice, Options};
use ssdiq_store::{DataMode, Device, OpStream, Store, Until, Workload};

const EMU: &str = "emu:default,capacity=256MiB,units_per_block=1";

fn options(row: &str) -> Options {
    let mut o = Options {
        open_zones: 4,
        ..Options::default()
    };
    match row {
        "in-place" => o.out_of_place = false,
        "oop" => {}
        "comp" => o.compression = true,
        "gdt" => {
            o.compression = true;
            o.gdt = true;
        }
        "aligned" => {
            o.compression = true;
            o.gdt = true;
            o.nowa = true;
            o.align = Some(None);
        }
        "fdp" => {
            o.compression = true;
            o.gdt = true;
            o.align = Some(None);
            o.backend = BackendChoice::Fdp;
        }
        "zns" => {
            o.compression = true;
            o.gdt = true;
            o.backend = BackendChoice::Zns;
        }
        r => panic!("no row {r}"),
    }
    o
}

fn store(row: &str, data: DataMode) -> Store {
    store_on(EMU, row, data)
}

fn store_on(target: &str, row: &str, data: DataMode) -> Store {
    let mut o = options(row);
    o.data = data;
    let mode = match o.backend {
        BackendChoice::Conventional => EmuMode::Conventional,
        BackendChoice::Fdp => EmuMode::Fdp { handles: 4 },
        BackendChoice::Zns => EmuMode::Zoned { max_open: 4 },
    };
    let dev = EmuDevice::open(target, mode, data == DataMode::Bytes).unwrap();
    let (cfg, _) = configure(&o, dev.info()).unwrap();
    Store::new(cfg, Box::new(dev)).unwrap()
}

fn run(s: &mut Store, warmup_capacities: f64) -> Outcome {
    run_for(s, warmup_capacities, 0.5)
}

/// Load, warm up and measure for the given device capacities of DB writes.
fn run_for(s: &mut Store, warmup_capacities: f64, measure_capacities: f64) -> Outcome {
    let pages = s.config().pages;
    let cap = s.device_ref().info().capacity as f64;
    let w = Workload::Ycsb {
        theta: 0.8,
        read_fraction: 0.5,
    };
    let mut ops = OpStream::new(&w, pages, 14, 1).unwrap();
    let p = Phases {
        warmup: Until {
            ops: None,
            db_bytes: Some((warmup_capacities * cap) as u64),
        },
        measure: Until {
            ops: None,
            db_bytes: Some((measure_capacities * cap) as u64),
        },
        workers: 64,
        op_cpu_ns: 1000,
    };
    experiment::run(s, &mut ops, &p, &|| false, &mut |_, _| {}).unwrap()
}

#[test]
#[ignore = "slow, about 16 s: .ci/extra/slow-tests.sh runs it"]
fn replayed_sizes_give_identical_runs_in_every_layout() {
    for row in ["in-place", "oop", "comp", "gdt", "aligned", "fdp", "zns"] {
        let mut bytes = store(row, DataMode::Bytes);
        bytes.record_sizes();
        let a = run(&mut bytes, 1.0);
        let sizes = bytes.recorded_sizes();
        assert!(!sizes.is_empty());
        let mut model = store(row, DataMode::Model);
        model.replay_sizes(sizes).unwrap();
        let b = run(&mut model, 1.0);
        assert!(a.metrics.ops > 10_000, "{row}: {:?}", a.metrics);
        assert!(a.metrics.media_bytes.unwrap() > 0, "{row}: {:?}", a.metrics);
        assert_eq!(a.metrics, b.metrics, "{row}: the measured window differs");
        assert_eq!(a.space_totals, b.space_totals, "{row}: space counters");
        assert_eq!(a.groups, b.groups, "{row}");
        assert_eq!(a.metadata_bytes, b.metadata_bytes, "{row}");
        assert_eq!(bytes.counters, model.counters, "{row}: store counters");
        assert_eq!(
            bytes.device().counters(),
            model.device().counters(),
            "{row}: drive counters"
        );
        model.check().unwrap();
        // Nothing moved in the model mode: no frames and no data plane.
        assert_eq!(model.pool().frame_bytes().len(), 0);
    }
}

#[test]
fn uncompressed_layouts_are_identical_without_replay() {
    for row in ["in-place", "oop"] {
        let a = run(&mut store(row, DataMode::Bytes), 1.0);
        let b = run(&mut store(row, DataMode::Model), 1.0);
        assert_eq!(a.metrics, b.metrics, "{row}");
    }
}

/// Relative difference.
fn rel(a: f64, b: f64) -> f64 {
    (a / b - 1.0).abs()
}

#[test]
#[ignore = "slow, about 11 s: .ci/extra/slow-tests.sh runs it"]
fn the_calibrated_model_gives_the_same_figures_within_tolerance() {
    // Tolerances: DB WAF and the user and DB GC bytes of the drilldown 1.5%, compressed
    // size 0.3%. SSD WAF: the emulated drive's GC turns a small difference in which slots
    // are written when into a different sequence of GC rounds. On this small drive (one
    // capacity measured) that makes the measured window's SSD WAF move by up to 10% between
    // seeds of the bytes mode itself (2.70 to 2.96 for seeds 1 to 3 of `comp`); the model
    // is held to 12% there and to 6% over the whole run (load to end), where the rounds
    // average out (measured under naive greedy GC: 4.3% for `comp`, 1.92 vs 2.00; 0.2% at
    // 2 GiB, bench/store-throughput.sh). (NoWA with aligned zones is left out here: on a drive of a few dozen
    // superblocks whether its groups land on superblock boundaries depends on the drive's
    // GC phase, 1.00 to 1.27 between seeds of the bytes mode.) docs/store.md compares the
    // modes on every row at 2 GiB.
    const DRIVE: &str = EMU;
    for row in ["comp", "gdt"] {
        let mut bytes = store_on(DRIVE, row, DataMode::Bytes);
        bytes.shadow_size_model();
        let a = run_for(&mut bytes, 1.5, 1.0);
        let mut model = store_on(DRIVE, row, DataMode::Model);
        let b = run_for(&mut model, 1.5, 1.0);
        let (x, y) = (&a.metrics, &b.metrics);
        let msg = format!("{row}: bytes {x:?}\nmodel {y:?}");
        assert!(rel(y.db_waf, x.db_waf) < 0.015, "DB WAF: {msg}");
        assert!(
            rel(y.ssd_waf.unwrap(), x.ssd_waf.unwrap()) < 0.12,
            "SSD WAF: {msg}"
        );
        let total = |s: &mut Store| {
            let c = s.device().counters().unwrap();
            c.media_bytes.unwrap() as f64 / c.host_bytes as f64
        };
        let (p, q) = (total(&mut bytes), total(&mut model));
        assert!(rel(q, p) < 0.06, "whole-run SSD WAF {p} vs {q}: {msg}");
        let per = |m: &ssdiq_store::Metrics, b: u64| b as f64 / m.user_pages as f64;
        for (f, name) in [
            (
                (|m: &ssdiq_store::Metrics| m.drilldown.user_bytes) as fn(&_) -> u64,
                "user",
            ),
            (|m| m.drilldown.db_gc_bytes, "DB GC"),
        ] {
            let (p, q) = (per(x, f(x)), per(y, f(y)));
            assert!(
                rel(q, p) < 0.015 || (q - p).abs() < 0.005,
                "{name}: {p} vs {q}: {msg}"
            );
        }
        assert!(
            rel(y.compressed_fraction, x.compressed_fraction) < 0.003,
            "{msg}"
        );
        // The model against LZ4 on every user write of the bytes run.
        let c = a.size_model.expect("shadowed");
        assert!(c.pages > 10_000, "{c:?}");
        assert!(rel(c.model_mean_bytes, c.real_mean_bytes) < 0.001, "{c:?}");
        assert!(
            rel(c.model_slots_per_page, c.real_slots_per_page) < 0.003,
            "{c:?}"
        );
    }
}

#[test]
fn the_model_mode_refuses_devices_with_data_and_the_bytes_mode_without() {
    let o = options("comp");
    let dev = EmuDevice::open(EMU, EmuMode::Conventional, true).unwrap();
    let (mut cfg, _) = configure(&o, dev.info()).unwrap();
    cfg.data = DataMode::Model;
    let e = Store::new(cfg.clone(), Box::new(dev)).err().unwrap();
    assert!(e.to_string().contains("keeps data"), "{e}");
    let dev = EmuDevice::open(EMU, EmuMode::Conventional, false).unwrap();
    cfg.data = DataMode::Bytes;
    let e = Store::new(cfg, Box::new(dev)).err().unwrap();
    assert!(e.to_string().contains("keeps no data"), "{e}");
}
