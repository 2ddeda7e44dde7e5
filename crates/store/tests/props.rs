//! Randomized operations against every layout and backend: every read returns the last
//! written version (the store checks CRC, page id and version on each fetch), both maps and
//! the zone table stay consistent, and the device holds the newest copy of every page.

use proptest::prelude::*;
use ssdiq_store::device::mem::MemDevice;
use ssdiq_store::device::ZoneGeometry;
use ssdiq_store::{Backend, Device, Layout, SpaceConfig, Store, StoreConfig};

const PAGES: u64 = 200;
const ZONE: u64 = 8 * 4096;
const ZONES: u32 = 40;

#[derive(Clone, Copy, Debug)]
enum Variant {
    InPlace,
    Oop,
    Comp,
    CompGdt,
    CompGdtNowa,
    Fdp,
    Zns,
}

fn space(v: Variant, seed: u64) -> SpaceConfig {
    SpaceConfig {
        zone_bytes: ZONE,
        zone_capacity: ZONE,
        zones: ZONES,
        max_open: 3,
        gdt: matches!(v, Variant::CompGdt | Variant::CompGdtNowa | Variant::Zns).then_some(2),
        nowa: matches!(v, Variant::CompGdtNowa),
        backend: match v {
            Variant::Fdp => Backend::Fdp { handles: 4 },
            Variant::Zns => Backend::Zns,
            _ => Backend::Conventional,
        },
        trim_on_reset: matches!(v, Variant::Oop),
        seed,
    }
}

fn store(v: Variant, seed: u64, ratio: f64) -> Store {
    let dev: Box<dyn Device> = match v {
        Variant::Zns => Box::new(MemDevice::zoned(ZoneGeometry {
            zone_bytes: ZONE,
            zone_capacity: ZONE,
            zones: ZONES,
            max_open: 3,
        })),
        Variant::Fdp => Box::new(MemDevice::new(ZONE * ZONES as u64, 4)),
        _ => Box::new(MemDevice::new(ZONE * ZONES as u64, 1)),
    };
    let layout = match v {
        Variant::InPlace => Layout::InPlace { dwb: true },
        _ => Layout::OutOfPlace {
            space: space(v, seed),
            compression: !matches!(v, Variant::Oop | Variant::Fdp),
        },
    };
    let cfg = StoreConfig {
        pages: PAGES,
        frames: 16,
        evict_batch: 4,
        records_per_page: 14,
        data_ratio: ratio,
        layout,
        verify: true,
        seed,
    };
    let mut s = Store::new(cfg, dev).unwrap();
    s.load(&mut |_| {}).unwrap();
    s
}

fn variant() -> impl Strategy<Value = Variant> {
    prop_oneof![
        Just(Variant::InPlace),
        Just(Variant::Oop),
        Just(Variant::Comp),
        Just(Variant::CompGdt),
        Just(Variant::CompGdtNowa),
        Just(Variant::Fdp),
        Just(Variant::Zns),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn reads_return_the_last_write(
        v in variant(),
        seed in 0u64..1000,
        ratio in prop_oneof![Just(1.0), Just(2.0), Just(3.0)],
        ops in prop::collection::vec((0u64..PAGES, 0u32..14, any::<bool>(), 0u8..4), 200..1500),
    ) {
        let mut s = store(v, seed, ratio);
        for (i, &(pid, slot, upd, hot)) in ops.iter().enumerate() {
            // A hot set makes GC see skew.
            let pid = if hot == 0 { pid % 10 } else { pid };
            if upd { s.update(pid, slot).unwrap() } else { s.read(pid).unwrap() }
            if i % 300 == 0 {
                s.check().map_err(TestCaseError::fail)?;
            }
        }
        s.check().map_err(TestCaseError::fail)?;
        s.flush().unwrap();
        s.check().map_err(TestCaseError::fail)?;
        let n = s.verify_device().unwrap();
        prop_assert_eq!(n, PAGES);
    }
}

#[test]
fn gc_runs_and_moves_pages_in_every_out_of_place_variant() {
    for v in [
        Variant::Oop,
        Variant::Comp,
        Variant::CompGdt,
        Variant::CompGdtNowa,
        Variant::Fdp,
        Variant::Zns,
    ] {
        let mut s = store(v, 7, 2.0);
        let mut rng = ssdiq_workload::SeededRng::new(1);
        for _ in 0..20_000 {
            let pid = if rng.below(4) == 0 {
                rng.below(PAGES)
            } else {
                rng.below(20)
            };
            s.update(pid, rng.below(14) as u32).unwrap();
        }
        s.check().unwrap();
        let c = s.space().unwrap().counters;
        assert!(c.gc_rounds > 10, "{v:?}: {c:?}");
        assert!(c.gc_pages_moved > 0, "{v:?}: {c:?}");
        if matches!(v, Variant::CompGdtNowa) {
            assert!(c.groups_recorded > 10, "{c:?}");
        }
        s.flush().unwrap();
        assert_eq!(s.verify_device().unwrap(), PAGES);
    }
}

#[test]
fn corruption_on_the_device_is_detected() {
    let mut s = store(Variant::Comp, 3, 2.0);
    // Page 5 is not resident after the load: damage its slot and read it.
    let (off, l) = s.space().unwrap().locate(5).unwrap();
    let mut slot = vec![0u8; 4096];
    s.device().read(off, &mut slot).unwrap();
    slot[l.offset as usize + 40] ^= 0xff;
    s.device()
        .write(off, &slot, ssdiq_store::Placement::None)
        .unwrap();
    let e = s.read(5).unwrap_err().to_string();
    assert!(e.contains("page 5"), "{e}");
}
