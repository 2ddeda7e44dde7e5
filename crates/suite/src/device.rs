//! A real drive as a suite target: a regular file (emptied on reset), a block device
//! (discarded on reset, and formatted through the NVMe layer when that is safe), or an NVMe
//! generic char device (`/dev/ngXnY`: every job, and the reset's deallocate, as NVMe
//! passthrough commands through io_uring, `--engine uring-cmd` of `ssdiq io`).
//!
//! Invariants:
//! - Opening has no side effects; the caller runs `ssdiq_nvme::safety::check_destructive`
//!   before building a target for a block device.
//! - The capacity is a multiple of [`CAPACITY_ALIGN`], so every step's block size divides it.
//! - An NVMe namespace is erased as the SSD-iq paper does it (sanitize block erase), or by
//!   format, only when that reaches no other namespace (`ssdiq_nvme::reset::choose_reset`):
//!   the safety checks cover only this one. Otherwise, and for other block devices, every
//!   LBA is discarded, and the reset string says which happened and why. After a sanitize or
//!   format every LBA is discarded as well, as the reference does (`blkdiscard` after
//!   `nvme sanitize`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use ssdiq_engine::{
    Clock, DeviceCounters, DeviceHealth, DeviceSample, EngineError, EngineKind, Executor, Job,
    RealExecutor, RunControl, Stats, WriteCounters,
};
use ssdiq_engine::{Target, TargetFacts, TargetKind};
use ssdiq_nvme::reset::ResetMethod;
use ssdiq_schema::TargetInfo;
use ssdiq_workload::RwMix;

use crate::target::{SuiteError, SuiteTarget};

/// A sanitize block erase takes seconds to minutes on real drives; past this, something is
/// wrong and the run stops rather than benchmark a drive still erasing.
const SANITIZE_TIMEOUT: Duration = Duration::from_secs(3600);

/// Capacities are rounded down to this (the largest block size of the plan).
pub const CAPACITY_ALIGN: u64 = 128 * 1024;

pub struct DeviceTarget {
    facts: TargetFacts,
    capacity: u64,
    /// Carries the NVMe counters when the drive answers SMART: the engine samples them for the
    /// device log while jobs run.
    exec: DriveExecutor,
    nvme: bool,
}

/// The engine's executor, sending every job as NVMe passthrough commands (`uring-cmd`) when
/// the drive is a generic char device, the only commands it takes.
struct DriveExecutor {
    real: RealExecutor,
    passthrough: bool,
}

impl Executor for DriveExecutor {
    fn run(&mut self, job: &Job, ctl: &RunControl<'_>) -> Result<Stats, EngineError> {
        if !self.passthrough {
            return self.real.run(job, ctl);
        }
        let mut j = job.clone();
        j.engine = EngineKind::UringCmd;
        self.real.run(&j, ctl)
    }
}

impl DeviceTarget {
    /// A file of `size` bytes (required unless it exists) or a whole block device.
    pub fn open(path: &Path, size: Option<u64>) -> Result<Self, SuiteError> {
        let facts = TargetFacts::probe(path)?;
        let capacity = match (facts.kind, size, facts.size) {
            (TargetKind::Block, Some(_), _) => {
                return Err(SuiteError::Invalid(format!(
                    "invalid --size: {} is a block device; the whole device is used",
                    path.display()
                )))
            }
            (_, Some(s), _) => s,
            (_, None, Some(s)) if s > 0 => s,
            (_, None, _) => {
                return Err(SuiteError::Invalid(format!(
                    "{} does not exist or is empty; give --size to create it",
                    path.display()
                )))
            }
        };
        let capacity = capacity / CAPACITY_ALIGN * CAPACITY_ALIGN;
        if capacity < 64 * CAPACITY_ALIGN {
            return Err(SuiteError::Invalid(format!(
                "invalid --size \"{}\": the benchmark needs at least 8 MiB",
                size.unwrap_or(capacity)
            )));
        }
        let counters = NvmeCounters::probe(&facts);
        let nvme = counters.is_some();
        let passthrough = facts.kind == TargetKind::NvmeChar;
        Ok(DeviceTarget {
            facts,
            capacity,
            exec: DriveExecutor {
                real: match counters {
                    Some(c) => RealExecutor::with_counters(Box::new(c)),
                    None => RealExecutor::new(),
                },
                passthrough,
            },
            nvme,
        })
    }

    pub fn is_block(&self) -> bool {
        self.facts.kind == TargetKind::Block
    }

    pub fn path(&self) -> &Path {
        &self.facts.path
    }

    fn discard_all(&self) -> Result<(), SuiteError> {
        let mut job = Job::new(
            self.job_target(),
            RwMix::parse("trim").expect("built-in mix"),
            CAPACITY_ALIGN,
            self.capacity,
        );
        job.direct = true;
        if self.exec.passthrough {
            job.engine = EngineKind::UringCmd;
        }
        let t = Target::open(&job)?;
        t.trim(0, self.capacity).map_err(|errno| SuiteError::Reset {
            target: self.job_target(),
            reason: format!("BLKDISCARD: {}", std::io::Error::from_raw_os_error(errno)),
        })
    }

    /// Erases an NVMe namespace by sanitize or format when that reaches nothing else; `None`
    /// for other block devices, `Some(Err)` when the drive refused.
    fn nvme_erase(&self) -> Option<Result<ResetMethod, SuiteError>> {
        let dev = ssdiq_nvme::Device::open(&self.facts.path).ok()?;
        dev.nsid()?;
        Some(
            dev.erase_namespace(SANITIZE_TIMEOUT)
                .map_err(|e| SuiteError::Reset {
                    target: self.job_target(),
                    reason: e.to_string(),
                }),
        )
    }
}

impl SuiteTarget for DeviceTarget {
    fn job_target(&self) -> String {
        self.facts.path.display().to_string()
    }

    fn capacity_bytes(&self) -> u64 {
        self.capacity
    }

    fn logical_block_bytes(&self) -> u64 {
        self.facts.logical_block
    }

    fn identity(&self) -> TargetInfo {
        let mut info = TargetInfo {
            name: self.job_target(),
            capacity_bytes: self.capacity,
            emulated: false,
            reports_media_writes: false,
            kind: Some(
                match (self.facts.kind, self.nvme) {
                    (TargetKind::File, _) => "file",
                    (TargetKind::Block, true) => "nvme",
                    (TargetKind::Block, false) => "block",
                    (TargetKind::NvmeChar, _) => "nvme",
                }
                .into(),
            ),
            ..Default::default()
        };
        if self.nvme {
            if let Ok(dev) = ssdiq_nvme::Device::open(&self.facts.path) {
                if let Ok(c) = dev.identify_controller() {
                    info.model = Some(c.model.trim().to_string());
                    info.serial = Some(c.serial.trim().to_string());
                    info.firmware = Some(c.firmware.trim().to_string());
                }
            }
            info.reports_media_writes = ssdiq_nvme::write_counters(&self.facts.path)
                .map(|c| c.media_bytes_written.is_some())
                .unwrap_or(false);
        }
        info
    }

    fn clock(&self) -> Clock {
        Clock::Wall
    }

    fn reset(&mut self) -> Result<String, SuiteError> {
        match self.facts.kind {
            TargetKind::File => {
                let path = &self.facts.path;
                let reason = |e: std::io::Error| SuiteError::Reset {
                    target: path.display().to_string(),
                    reason: e.to_string(),
                };
                // Emptied in place (its blocks are freed), never deleted: a symlink stays a
                // symlink, and the caller checked that the size fits before the run.
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(path)
                    .map_err(reason)?;
                f.set_len(self.capacity).map_err(reason)?;
                self.facts.size = Some(self.capacity);
                Ok("file recreated".into())
            }
            TargetKind::Block | TargetKind::NvmeChar => {
                // Through the block layer, or as the NVMe command on a char device.
                let discard = if self.exec.passthrough {
                    "NVMe deallocate of every LBA"
                } else {
                    "BLKDISCARD"
                };
                let erased = self.nvme_erase().transpose()?;
                self.discard_all()?;
                Ok(match erased {
                    Some(ResetMethod::SanitizeBlockErase) => {
                        format!("NVMe sanitize (block erase), then {discard}")
                    }
                    Some(ResetMethod::Format) => format!("NVMe format, then {discard}"),
                    Some(ResetMethod::DeallocateOnly(why)) => format!("{discard} ({why})"),
                    None => discard.into(),
                })
            }
        }
    }

    fn counters(&mut self) -> Option<WriteCounters> {
        self.exec.real.counters.as_mut().and_then(|c| c.snapshot())
    }

    fn logs_device(&self) -> bool {
        self.nvme
    }

    fn health(&mut self) -> Option<DeviceHealth> {
        self.exec.real.counters.as_mut().and_then(|c| c.health())
    }

    /// Sleeps in slices of at most 100 ms (so Ctrl-C ends it at once), sampling the device
    /// log every `sample_ns` on an NVMe drive.
    fn idle(&mut self, ns: u64, sample_ns: u64, ctl: &RunControl<'_>) -> Vec<DeviceSample> {
        let start = std::time::Instant::now();
        let mut out = Vec::new();
        let mut next = 0u64;
        loop {
            let t = start.elapsed().as_nanos() as u64;
            if self.nvme && t >= next && t <= ns {
                if let Some(health) = self.health() {
                    out.push(DeviceSample { t_ns: t, health });
                }
                next = (t / sample_ns.max(1) + 1) * sample_ns.max(1);
            }
            if t >= ns || ctl.stopped() {
                break;
            }
            let until = if self.nvme { next.min(ns) } else { ns };
            std::thread::sleep(Duration::from_nanos(
                until.saturating_sub(t).clamp(1, 100_000_000),
            ));
        }
        out
    }

    fn executor(&mut self) -> &mut dyn Executor {
        &mut self.exec
    }
}

/// Host/media write counters of an NVMe namespace (SMART, OCP C0h), for the measured WAF and
/// the device log.
pub struct NvmeCounters {
    path: PathBuf,
    dev: Option<ssdiq_nvme::Device>,
}

fn clamp(v: u128) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

impl NvmeCounters {
    /// Counters for NVMe namespaces (block or generic char devices) that answer a SMART
    /// query; none for anything else.
    pub fn probe(facts: &TargetFacts) -> Option<NvmeCounters> {
        if !matches!(facts.kind, TargetKind::Block | TargetKind::NvmeChar) {
            return None;
        }
        let mut c = NvmeCounters {
            path: facts.path.clone(),
            dev: None,
        };
        c.snapshot().map(|_| c)
    }

    /// The device, opened once and kept.
    fn device(&mut self) -> Option<&ssdiq_nvme::Device> {
        if self.dev.is_none() {
            self.dev = ssdiq_nvme::Device::open(&self.path).ok();
        }
        self.dev.as_ref()
    }
}

impl DeviceCounters for NvmeCounters {
    fn snapshot(&mut self) -> Option<WriteCounters> {
        let c = self.device()?.write_counters().ok()?;
        Some(WriteCounters {
            host_bytes: clamp(c.host_bytes_written),
            media_bytes: c.media_bytes_written.map(clamp),
            buffered_bytes: None,
        })
    }

    /// SMART (host writes, temperature) and, where the drive has it, the OCP C0h log (media
    /// writes, free blocks, erase counts, throttling), decoded by `ssdiq_nvme`.
    fn health(&mut self) -> Option<DeviceHealth> {
        let dev = self.device()?;
        let smart = dev.smart_log().ok()?;
        let ocp = dev.ocp_smart_log().ok().flatten();
        Some(DeviceHealth {
            host_bytes: Some(clamp(smart.host_bytes_written())),
            media_bytes: ocp.as_ref().map(|o| clamp(o.physical_media_bytes_written)),
            temperature_c: smart.temperature_c().map(f64::from),
            throttling: ocp.as_ref().map(|o| o.thermal_throttling_status),
            free_blocks_pct: ocp.as_ref().map(|o| o.percent_free_blocks as f64),
            erase_count_min: ocp.as_ref().map(|o| o.user_data_erase_count_min as u64),
            erase_count_max: ocp.as_ref().map(|o| o.user_data_erase_count_max as u64),
            erase_count_avg: None,
        })
    }
}
