//! Device-counter hook: host and media bytes written, as the device itself counts them.
//!
//! The NVMe crate implements it from SMART / OCP C0h logs; the emulated SSD from its flash
//! model. Executors sample it before the measured job, periodically while it runs, and after;
//! [`crate::stats::Stats`] carries the samples and derives the measured WAF when media bytes are
//! known.

use serde::Serialize;

pub use ssdiq_schema::io::{buffer_lag, CounterLog, CounterSample, WriteCounters};

/// A fuller sample of a device's state for a per-second device log: what SMART and the OCP
/// C0h log tell (or what the emulated drive knows of itself). Every field is optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DeviceHealth {
    pub host_bytes: Option<u64>,
    pub media_bytes: Option<u64>,
    pub temperature_c: Option<f64>,
    /// OCP thermal throttling status (0 = not throttling).
    pub throttling: Option<u8>,
    /// Free blocks, percent of all blocks.
    pub free_blocks_pct: Option<f64>,
    pub erase_count_min: Option<u64>,
    pub erase_count_max: Option<u64>,
    /// Mean erase count per block (the emulated drive; OCP drives give min and max).
    pub erase_count_avg: Option<f64>,
}

impl From<WriteCounters> for DeviceHealth {
    fn from(c: WriteCounters) -> Self {
        DeviceHealth {
            host_bytes: Some(c.host_bytes),
            media_bytes: c.media_bytes,
            ..Default::default()
        }
    }
}

/// One device-log sample, `t_ns` after the measured job started.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DeviceSample {
    pub t_ns: u64,
    #[serde(flatten)]
    pub health: DeviceHealth,
}

/// Source of device write counters. `None` means "not available right now"; the executor keeps
/// running either way.
pub trait DeviceCounters: Send {
    fn snapshot(&mut self) -> Option<WriteCounters>;

    /// A sample for the device log; by default only the write counters.
    fn health(&mut self) -> Option<DeviceHealth> {
        self.snapshot().map(DeviceHealth::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waf_from_deltas() {
        let log = CounterLog {
            before: Some(WriteCounters {
                host_bytes: 100,
                media_bytes: Some(1000),
                buffered_bytes: Some(40),
            }),
            after: Some(WriteCounters {
                host_bytes: 300,
                media_bytes: Some(1500),
                buffered_bytes: Some(10),
            }),
            samples: vec![],
        };
        assert_eq!(log.host_bytes(), Some(200));
        assert_eq!(log.media_bytes(), Some(500));
        assert_eq!(log.waf(), Some(2.5));
        assert_eq!(log.buffered_change(), Some(-30));
        assert_eq!(buffer_lag(-30, 200), Some(-0.15));
        assert_eq!(buffer_lag(4, 200), None, "2% is not worth a note");
        assert_eq!(buffer_lag(5, 0), None);
        let no_media = CounterLog {
            before: Some(WriteCounters::default()),
            after: Some(WriteCounters {
                host_bytes: 5,
                media_bytes: None,
                buffered_bytes: None,
            }),
            samples: vec![],
        };
        assert_eq!(no_media.waf(), None);
    }
}
