//! ssdiq-store: a page store that writes in place or out of place, to measure DB WAF, SSD WAF
//! and their product for each technique of "How to Write to SSDs" (Lee, Ziegler, Leis; the
//! paper's Table 1) on the emulated SSD, files, block devices and NVMe FDP/ZNS namespaces.
//!
//! Data flows one way: a workload (`driver`) issues operations to the [`store::Store`]; its
//! buffer pool (`pool`) evicts batches of pages, which the write path seals (`page`),
//! compresses (`compress`) and places (`space`: zones, maps, DB GC, GDT, NoWA, FDP/ZNS)
//! on a [`device`]; `metrics` turns counter snapshots into the paper's columns.
//!
//! Crate invariants:
//! - Every read is checked: magic, CRC, page id and (by default) version; a wrong page is an
//!   error, never data.
//! - Deterministic: contents, operations and placement are functions of the seed; on the
//!   emulated SSD so are the timings.

mod compress;
pub mod device;
mod driver;
mod error;
pub mod experiment;
pub mod flags;
pub mod memory;
mod metrics;
mod page;
mod pool;
pub mod rows;
mod setup;
mod sizes;
mod space;
mod store;

pub use device::{Device, DeviceError, DeviceInfo, Placement};
pub use driver::{OpStream, Runner, Until, Workload};
pub use flags::StoreFlags;
pub use metrics::{Metrics, Snapshot};
pub use setup::{configure, BackendChoice, Derived, Options};
pub use space::{Backend, SpaceConfig};
pub use store::{DataMode, Layout, Store, StoreConfig, StoreError};
