//! The emulated SSD (`ssdiq_emu`) as a suite target: virtual time, its own datasheet,
//! and media-write counters from the flash model.
//!
//! Invariants: the drive's state persists across runs of one process, so `reset` is what
//! makes a run start from an empty drive; the capacity is rounded down to
//! [`crate::device::CAPACITY_ALIGN`] like every target's.

use ssdiq_emu::{EmuExecutor, LBA_BYTES};
use ssdiq_engine::{
    Clock, DeviceCounters, DeviceHealth, DeviceSample, Executor, RunControl, WriteCounters,
};
use ssdiq_schema::{Spec, TargetInfo};

use crate::device::CAPACITY_ALIGN;
use crate::target::{SuiteError, SuiteTarget};

pub struct EmuTarget {
    name: String,
    exec: EmuExecutor,
}

impl EmuTarget {
    /// `emu:PROFILE[,key=value...]`.
    pub fn open(name: &str) -> Result<Self, SuiteError> {
        Ok(EmuTarget {
            name: name.to_string(),
            exec: EmuExecutor::open(name)?,
        })
    }

    /// The drive of a profile already parsed from `name` (`ssdiq_emu::TargetSpec`).
    pub fn from_profile(name: String, profile: ssdiq_emu::Profile) -> Result<Self, SuiteError> {
        Ok(EmuTarget {
            name,
            exec: EmuExecutor::from_profile(profile)?,
        })
    }

    /// The profile's true over-provisioning, (physical - logical) / logical.
    pub fn op(&self) -> f64 {
        self.exec.op()
    }
}

impl SuiteTarget for EmuTarget {
    fn job_target(&self) -> String {
        self.name.clone()
    }

    fn capacity_bytes(&self) -> u64 {
        self.exec.capacity_bytes() / CAPACITY_ALIGN * CAPACITY_ALIGN
    }

    fn identity(&self) -> TargetInfo {
        TargetInfo {
            name: self.name.clone(),
            // The target as given, overrides included: two runs of one profile with different
            // options must not share a column name in a comparison.
            model: Some(self.name.clone()),
            serial: None,
            firmware: Some(self.exec.description().to_string()),
            capacity_bytes: self.capacity_bytes(),
            emulated: true,
            reports_media_writes: true,
            kind: Some("emulated".into()),
            gc_unit_bytes: Some(self.exec.drive().geometry().ppb() * LBA_BYTES),
            full_capacity_bytes: self
                .exec
                .profile()
                .full_capacity_bytes()
                .ok()
                .filter(|f| *f > self.capacity_bytes()),
        }
    }

    fn logical_block_bytes(&self) -> u64 {
        self.exec.logical_block_size()
    }

    fn builtin_spec(&self) -> Option<Spec> {
        let s = self.exec.spec();
        Some(Spec {
            name: Some(format!("emu:{}", self.exec.profile_name())),
            capacity_gb: Some(self.exec.capacity_bytes() as f64 / 1e9),
            seq_read_mb_s: s.seq_read_mb_s,
            seq_write_mb_s: s.seq_write_mb_s,
            rand_read_kiops: s.rand_read_kiops,
            rand_write_kiops: s.rand_write_kiops,
            read_lat_us: s.read_lat_us,
            write_lat_us: s.write_lat_us,
        })
    }

    fn clock(&self) -> Clock {
        Clock::Virtual
    }

    fn reset(&mut self) -> Result<String, SuiteError> {
        self.exec.reset();
        Ok("emulated drive reset to empty".into())
    }

    fn counters(&mut self) -> Option<WriteCounters> {
        Some(self.exec.write_counters())
    }

    fn logs_device(&self) -> bool {
        true
    }

    fn health(&mut self) -> Option<DeviceHealth> {
        self.exec.health()
    }

    /// Virtual time passes in steps of `sample_ns`; the drive's background work (buffer drain,
    /// GC) runs meanwhile. The stop flag is checked at every step.
    fn idle(&mut self, ns: u64, sample_ns: u64, ctl: &RunControl<'_>) -> Vec<DeviceSample> {
        let step = sample_ns.max(1);
        let mut out = vec![DeviceSample {
            t_ns: 0,
            health: self.exec.health().unwrap_or_default(),
        }];
        let mut t = 0;
        while t < ns && !ctl.stopped() {
            let d = step.min(ns - t);
            self.exec.idle_for(d);
            t += d;
            out.push(DeviceSample {
                t_ns: t,
                health: self.exec.health().unwrap_or_default(),
            });
        }
        out
    }

    fn executor(&mut self) -> &mut dyn Executor {
        &mut self.exec
    }
}
