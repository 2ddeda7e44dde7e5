//! The memory estimate of a store against what `Store::new`, its load and updates allocate,
//! counted by a global allocator (the device's own memory is estimated apart).

#[path = "../../flash/tests/support/counting.rs"]
mod counting;
use counting::{bounds, peak_of};

use ssdiq_store::device::emu::{EmuDevice, EmuMode};
use ssdiq_store::device::mem::MemDevice;
use ssdiq_store::memory::store_bytes;
use ssdiq_store::{Backend, DataMode, Device, Layout, SpaceConfig, Store, StoreConfig};

const PAGES: u64 = 100_000;
const ZONE: u64 = 1 << 20;
const ZONES: u32 = 600;

fn config(layout: Layout, data: DataMode) -> StoreConfig {
    StoreConfig {
        pages: PAGES,
        frames: 10_000,
        evict_batch: 64,
        records_per_page: 14,
        data_ratio: 2.0,
        layout,
        verify: true,
        seed: 7,
        data,
    }
}

fn out_of_place(gdt: bool, compression: bool) -> Layout {
    Layout::OutOfPlace {
        space: SpaceConfig {
            zone_bytes: ZONE,
            zone_capacity: ZONE,
            zones: ZONES,
            max_open: 4,
            gdt: gdt.then_some(2),
            nowa: gdt,
            backend: Backend::Conventional,
            trim_on_reset: false,
            seed: 7,
        },
        compression,
    }
}

#[test]
fn the_store_estimate_bounds_what_is_allocated() {
    for (name, layout, data) in [
        (
            "in place, bytes",
            Layout::InPlace { dwb: true },
            DataMode::Bytes,
        ),
        (
            "in place, model",
            Layout::InPlace { dwb: true },
            DataMode::Model,
        ),
        (
            "out of place, bytes",
            out_of_place(false, false),
            DataMode::Bytes,
        ),
        (
            "GDT + compression, model",
            out_of_place(true, true),
            DataMode::Model,
        ),
        (
            "compression, bytes",
            out_of_place(false, true),
            DataMode::Bytes,
        ),
    ] {
        let cfg = config(layout, data);
        let est = store_bytes(&cfg);
        // Model mode needs a device without a data plane: the emulated SSD's.
        let dev: Box<dyn Device> = match data {
            DataMode::Bytes => Box::new(MemDevice::new(ZONE * ZONES as u64, 1)),
            DataMode::Model => Box::new(
                EmuDevice::open("emu:default,capacity=1GiB", EmuMode::Conventional, false).unwrap(),
            ),
        };
        let actual = peak_of(|| {
            let mut s = Store::new(cfg, dev).unwrap();
            s.load(&mut |_| {}).unwrap();
            // Updates past a full pool: evictions, and GC on the out-of-place layouts.
            for i in 0..60_000u64 {
                s.update(i * 7919 % PAGES, (i % 14) as u32).unwrap();
            }
            s
        });
        bounds(name, est, actual);
    }
}
