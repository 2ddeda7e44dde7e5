//! SMART / Health Information log (LID 02h).

use serde::{Deserialize, Serialize};

use crate::bytes::{need, u128_, u16_, u32_, u8_};
use crate::NvmeError;

/// One SMART "data unit" is 1000 512-byte units.
pub const DATA_UNIT_BYTES: u128 = 512_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmartLog {
    pub critical_warning: u8,
    /// Composite temperature in kelvin (0 = not reported).
    pub temperature_k: u16,
    /// Available spare, percent.
    pub available_spare: u8,
    pub available_spare_threshold: u8,
    /// Percentage used (may exceed 100).
    pub percentage_used: u8,
    pub endurance_group_critical_warning: u8,
    /// In units of 512,000 bytes, rounded up by the drive.
    pub data_units_read: u128,
    pub data_units_written: u128,
    pub host_read_commands: u128,
    pub host_write_commands: u128,
    pub controller_busy_minutes: u128,
    pub power_cycles: u128,
    pub power_on_hours: u128,
    pub unsafe_shutdowns: u128,
    pub media_errors: u128,
    pub error_log_entries: u128,
    pub warning_temp_minutes: u32,
    pub critical_temp_minutes: u32,
    /// Temperature sensors 1..8 in kelvin; 0 = not implemented.
    pub temp_sensors_k: [u16; 8],
}

impl SmartLog {
    pub fn host_bytes_written(&self) -> u128 {
        self.data_units_written.saturating_mul(DATA_UNIT_BYTES)
    }
    pub fn host_bytes_read(&self) -> u128 {
        self.data_units_read.saturating_mul(DATA_UNIT_BYTES)
    }
    /// Composite temperature in degrees Celsius, None when the drive reports 0 K.
    pub fn temperature_c(&self) -> Option<i32> {
        (self.temperature_k != 0).then(|| self.temperature_k as i32 - 273)
    }
    /// Names of the critical warning bits that are set.
    pub fn critical_warnings(&self) -> Vec<&'static str> {
        const NAMES: [&str; 8] = [
            "available spare below threshold",
            "temperature out of range",
            "reliability degraded",
            "read-only",
            "volatile memory backup failed",
            "persistent memory region read-only",
            "reserved bit 6",
            "reserved bit 7",
        ];
        (0..8)
            .filter(|b| self.critical_warning & (1 << b) != 0)
            .map(|b| NAMES[b])
            .collect()
    }
}

/// Decodes the 512-byte SMART / Health Information log page.
pub fn decode_smart_log(buf: &[u8]) -> Result<SmartLog, NvmeError> {
    need(buf, 512, "SMART log")?;
    let mut temp_sensors_k = [0u16; 8];
    for (i, t) in temp_sensors_k.iter_mut().enumerate() {
        *t = u16_(buf, 200 + 2 * i);
    }
    Ok(SmartLog {
        critical_warning: u8_(buf, 0),
        temperature_k: u16_(buf, 1),
        available_spare: u8_(buf, 3),
        available_spare_threshold: u8_(buf, 4),
        percentage_used: u8_(buf, 5),
        endurance_group_critical_warning: u8_(buf, 6),
        data_units_read: u128_(buf, 32),
        data_units_written: u128_(buf, 48),
        host_read_commands: u128_(buf, 64),
        host_write_commands: u128_(buf, 80),
        controller_busy_minutes: u128_(buf, 96),
        power_cycles: u128_(buf, 112),
        power_on_hours: u128_(buf, 128),
        unsafe_shutdowns: u128_(buf, 144),
        media_errors: u128_(buf, 160),
        error_log_entries: u128_(buf, 176),
        warning_temp_minutes: u32_(buf, 192),
        critical_temp_minutes: u32_(buf, 196),
        temp_sensors_k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_field_at_its_offset() {
        let mut b = vec![0u8; 512];
        b[0] = 0b1001;
        b[1..3].copy_from_slice(&323u16.to_le_bytes());
        b[3] = 100;
        b[4] = 10;
        b[5] = 3;
        b[32..48].copy_from_slice(&7u128.to_le_bytes());
        // More than 64 bits: the counters are 128-bit.
        let big = (1u128 << 70) + 132;
        b[48..64].copy_from_slice(&big.to_le_bytes());
        b[80..96].copy_from_slice(&128u128.to_le_bytes());
        b[112..128].copy_from_slice(&5u128.to_le_bytes());
        b[128..144].copy_from_slice(&9000u128.to_le_bytes());
        b[144..160].copy_from_slice(&2u128.to_le_bytes());
        b[160..176].copy_from_slice(&1u128.to_le_bytes());
        b[196..200].copy_from_slice(&4u32.to_le_bytes());
        b[202..204].copy_from_slice(&300u16.to_le_bytes());
        let s = decode_smart_log(&b).unwrap();
        assert_eq!(s.temperature_k, 323);
        assert_eq!(s.temperature_c(), Some(50));
        assert_eq!(s.available_spare, 100);
        assert_eq!(s.available_spare_threshold, 10);
        assert_eq!(s.percentage_used, 3);
        assert_eq!(s.data_units_read, 7);
        assert_eq!(s.data_units_written, big);
        assert_eq!(s.host_bytes_written(), big * 512_000);
        assert_eq!(s.host_write_commands, 128);
        assert_eq!(s.power_cycles, 5);
        assert_eq!(s.power_on_hours, 9000);
        assert_eq!(s.unsafe_shutdowns, 2);
        assert_eq!(s.media_errors, 1);
        assert_eq!(s.critical_temp_minutes, 4);
        assert_eq!(s.temp_sensors_k[1], 300);
        assert_eq!(
            s.critical_warnings(),
            vec!["available spare below threshold", "read-only"]
        );
    }

    #[test]
    fn zero_temperature_is_unreported_and_short_buffers_fail() {
        let s = decode_smart_log(&[0u8; 512]).unwrap();
        assert_eq!(s.temperature_c(), None);
        assert!(decode_smart_log(&[0u8; 511]).is_err());
    }
}
