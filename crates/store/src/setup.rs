//! From user-level options and a device to a [`StoreConfig`]: dataset size from the fill,
//! zone size from the GC unit (aligned or not), pool size from the buffer fraction.
//!
//! Zone size rules (paper §5.3, §7.2):
//! - ZNS: the device's zones.
//! - Aligned to GC unit U: with NoWA the active group spans U (zone = U / open zones), so a
//!   group fills whole superblocks; without NoWA each zone is U.
//! - Not aligned (the paper's "before aligning the GC unit"): `--zone`, or the paper's 250 MiB
//!   zone as the same fraction of this device as of its 894 GiB PM9A3. The fraction, not the
//!   size: a scaled emulated drive keeps its full-size superblock count, so a zone that keeps
//!   its share of the capacity meets the superblocks as the paper's zone met the full-size
//!   drive's; and it leaves a small file or device enough zones.

use crate::device::DeviceInfo;
use crate::space::{Backend, SpaceConfig};
use crate::store::{Layout, StoreConfig};
pub use ssdiq_schema::store::{BackendChoice, Derived, Options};

const PAGE: u64 = 4096;

/// The paper's zone size before alignment (§7.2: 250 MB, 16 open) and its drive's capacity
/// (Samsung PM9A3, 894 GiB).
const PAPER_ZONE: u64 = 250 << 20;
const PAPER_CAPACITY: u64 = 894 << 30;

/// The unaligned zone of a device of `capacity` bytes: the paper's share of the capacity,
/// whole pages, at least one.
pub fn unaligned_zone(capacity: u64) -> u64 {
    let bytes = (capacity as u128 * PAPER_ZONE as u128 / PAPER_CAPACITY as u128) as u64;
    (bytes / PAGE).max(1) * PAGE
}

pub fn configure(o: &Options, info: &DeviceInfo) -> Result<(StoreConfig, Derived), String> {
    if !(o.fill > 0.0 && o.fill < 1.0) {
        return Err(format!(
            "invalid --fill {}: expected the dataset's share of the device, above 0 and below 1",
            o.fill
        ));
    }
    if !(o.buffer > 0.0 && o.buffer <= 1.0) {
        return Err(format!(
            "invalid --buffer {}: expected a fraction of the dataset up to 1",
            o.buffer
        ));
    }
    if !(1..=31).contains(&o.records_per_page) {
        return Err(format!(
            "invalid records per page {}: expected 1 to 31",
            o.records_per_page
        ));
    }
    if !(o.data_ratio >= 1.0 && o.data_ratio <= 20.0) {
        return Err(format!(
            "invalid data ratio {}: expected 1 (incompressible) to 20",
            o.data_ratio
        ));
    }
    if o.evict_batch == 0 || o.evict_batch > 4096 {
        return Err(format!(
            "invalid eviction batch {}: expected 1 to 4096 pages",
            o.evict_batch
        ));
    }
    let mut k = o.open_zones;
    if !o.out_of_place {
        if o.compression
            || o.gdt
            || o.nowa
            || o.align.is_some()
            || o.backend != BackendChoice::Conventional
        {
            return Err("compression, GDT, NoWA, GC-unit alignment and the FDP/ZNS backends need out-of-place writes".into());
        }
        let dwb = if o.dwb {
            o.evict_batch as u64 * PAGE
        } else {
            0
        };
        let pages = ((info.capacity.saturating_sub(dwb)) as f64 * o.fill / PAGE as f64) as u64;
        return Ok((
            StoreConfig {
                pages,
                frames: frames(o, pages),
                evict_batch: o.evict_batch,
                records_per_page: o.records_per_page,
                data_ratio: o.data_ratio,
                layout: Layout::InPlace { dwb: o.dwb },
                verify: o.verify,
                seed: o.seed,
                data: o.data,
            },
            Derived {
                zone_bytes: None,
                gc_unit: info.gc_unit,
                aligned: false,
            },
        ));
    }
    if k == 0 || k > 1024 {
        return Err(format!("invalid open zones {k}: expected 1 to 1024"));
    }
    if o.backend == BackendChoice::Fdp {
        // As the paper does: the reclaim unit handles bound the zones open at once.
        k = k.min(info.streams as u32);
    }
    let (zone_bytes, zone_capacity, zones, gc_unit, aligned) = match o.backend {
        BackendChoice::Zns => {
            let z = info.zoned.ok_or_else(|| {
                format!(
                    "{} is not zoned; the ZNS backend needs a zoned device",
                    info.description
                )
            })?;
            if o.zone.is_some() || o.align.is_some() {
                return Err(
                    "the ZNS backend uses the device's zones; drop --zone and --align-gc-unit"
                        .into(),
                );
            }
            if z.max_open > 0 && k > z.max_open {
                return Err(format!("{k} open zones; the device allows {}", z.max_open));
            }
            (
                z.zone_bytes,
                z.zone_capacity,
                z.zones,
                Some(z.zone_bytes),
                true,
            )
        }
        _ => {
            if info.zoned.is_some() {
                return Err(format!(
                    "{} is zoned; use the ZNS backend",
                    info.description
                ));
            }
            let unit = match o.align {
                // The unit given is the drive's erase unit: a multiple of 4 KiB, never
                // silently rounded down to one.
                Some(Some(u)) if u < PAGE || !u.is_multiple_of(PAGE) => {
                    return Err(format!(
                        "invalid --align-gc-unit {u}: expected a positive multiple of 4 KiB"
                    ))
                }
                Some(Some(u)) => Some(u),
                Some(None) => Some(info.gc_unit.ok_or_else(|| {
                    format!(
                        "{} does not report its GC unit; give it: --align-gc-unit SIZE (measure it with a ZNS-like pattern, paper §5.3)",
                        info.description
                    )
                })?),
                None => info.gc_unit,
            };
            let zone = match (o.align, o.zone, unit) {
                (Some(_), Some(_), _) => {
                    return Err("--zone and --align-gc-unit exclude each other".into())
                }
                (Some(_), None, Some(u)) => {
                    if o.nowa {
                        u / k as u64 / PAGE * PAGE
                    } else {
                        u / PAGE * PAGE
                    }
                }
                (None, Some(z), _) => z,
                (None, None, _) => unaligned_zone(info.capacity),
                (Some(_), None, None) => unreachable!("alignment without a unit was refused"),
            };
            if zone < PAGE || !zone.is_multiple_of(PAGE) {
                return Err(format!(
                    "invalid {} {zone}: expected a zone of a positive multiple of 4 KiB",
                    zone_flag(o)
                ));
            }
            let zones = (info.capacity / zone).min(u32::MAX as u64 - 1) as u32;
            (zone, zone, zones, unit, o.align.is_some())
        }
    };
    let backend = match o.backend {
        BackendChoice::Conventional => Backend::Conventional,
        BackendChoice::Fdp => Backend::Fdp {
            handles: info.streams,
        },
        BackendChoice::Zns => Backend::Zns,
    };
    if zones < 2 * k + 1 {
        return Err(format!(
            "invalid {} {zone_bytes}: {zones} zones of it for {k} open zones; expected at least 2 x open + 1: use smaller zones or fewer --open-zones",
            zone_flag(o)
        ));
    }
    let pages = (info.capacity as f64 * o.fill / PAGE as f64) as u64;
    Ok((
        StoreConfig {
            pages,
            frames: frames(o, pages),
            evict_batch: o.evict_batch,
            records_per_page: o.records_per_page,
            data_ratio: o.data_ratio,
            layout: Layout::OutOfPlace {
                space: SpaceConfig {
                    zone_bytes,
                    zone_capacity,
                    zones,
                    max_open: k,
                    gdt: o.gdt.then_some(o.gdt_groups),
                    nowa: o.nowa,
                    backend,
                    trim_on_reset: o.trim_on_reset,
                    seed: o.seed,
                },
                compression: o.compression,
            },
            verify: o.verify,
            seed: o.seed,
            data: o.data,
        },
        Derived {
            zone_bytes: Some(zone_bytes),
            gc_unit,
            aligned,
        },
    ))
}

fn frames(o: &Options, pages: u64) -> u32 {
    ((pages as f64 * o.buffer) as u64)
        .max(2 * o.evict_batch as u64)
        .min(u32::MAX as u64) as u32
}

/// The flag that set the zone size, for a message about it.
fn zone_flag(o: &Options) -> &'static str {
    if o.zone.is_some() {
        "--zone"
    } else if o.align.is_some() {
        "--align-gc-unit"
    } else {
        "zone size (the default)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unaligned_zone_is_the_papers_share_of_the_capacity() {
        assert_eq!(unaligned_zone(PAPER_CAPACITY), PAPER_ZONE);
        // 2 GiB x 250 MiB / 894 GiB = 572.7 KiB: 143 whole pages.
        assert_eq!(unaligned_zone(2 << 30), 143 * PAGE);
        assert_eq!(unaligned_zone(4 * PAPER_CAPACITY), 4 * PAPER_ZONE);
        assert_eq!(unaligned_zone(1 << 20), PAGE, "at least one page");
    }
}
