//! NVMe device facts and admin for ssdiq: Identify, SMART (02h), OCP SMART extended (C0h), FDP
//! logs (20h-22h), Format NVM, Sanitize, Dataset Management, writes with FDP placement.
//!
//! Layers, bottom up:
//! - [`ioctl`]: `struct nvme_passthru_cmd64` and the passthrough ioctls, as the kernel has them.
//! - `cmd`: pure command encoders (dword layouts).
//! - `identify`, `smart`, `ocp`, `fdp`: pure decoders over byte buffers.
//! - [`reset`]: which erase reaches only one namespace, and the Sanitize Status log.
//! - [`device`]: an open device node mapped through sysfs, with typed commands.
//! - [`info`]: the report `ssdiq info` renders.
//!
//! The engine's device-counter hook uses [`write_counters`] / [`WriteCounters`].

mod bytes;
pub mod cmd;
pub mod device;
mod error;
mod fdp;
mod identify;
pub mod info;
pub mod ioctl;
mod ocp;
pub mod reset;
pub mod safety;
mod smart;
mod zns;

pub use cmd::{DsmRange, Placement, SanitizeAction, SecureErase};
pub use device::{write_counters, Device, DeviceMap, NodeKind, WriteCounters};
pub use error::{status_text, NvmeError};
pub use info::InfoReport;
