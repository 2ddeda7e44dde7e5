//! A job from its flags as the user typed them (`ssdiq io`'s), checked: every error is an
//! [`EngineError::Invalid`] naming the flag, its value and what was expected.
//!
//! The job is built without its replay and not yet validated: a trace replay is attached by
//! the caller (it needs the job's range), then [`Job::validate`] runs.

use ssdiq_workload::units::{format_size, parse_duration_ns, parse_rate, parse_size};
use ssdiq_workload::{DataPattern, Pattern, RwMix};

use crate::error::EngineError;
use crate::job::{
    Arrivals, EngineKind, FillMode, Job, OnError, Probe, SqPoll, UringOptions, SQPOLL_IDLE_MS,
};
use crate::target::{TargetFacts, TargetKind};

/// The flags of one job, as text (the defaults are the caller's).
#[derive(Clone, Debug, Default)]
pub struct JobFlags<'a> {
    pub rw: &'a str,
    pub pattern: Option<&'a str>,
    pub bs: &'a str,
    pub qd: u32,
    pub threads: u32,
    pub own_regions: bool,
    pub size: Option<&'a str>,
    pub io_size: Option<&'a str>,
    pub time: Option<&'a str>,
    pub rate: Option<&'a str>,
    pub arrivals: &'a str,
    pub probe: Option<&'a str>,
    pub probe_rate: Option<&'a str>,
    pub probe_qd: u32,
    pub probe_loop: &'a str,
    pub engine: &'a str,
    pub hipri: bool,
    pub sqpoll: bool,
    pub sqpoll_cpu: Option<u32>,
    pub sqpoll_idle: Option<&'a str>,
    pub fixedbufs: bool,
    pub registerfiles: bool,
    pub fdp_pid: Option<&'a str>,
    pub stripe: Option<&'a str>,
    pub verify: bool,
    pub buffered: bool,
    pub offset_align: Option<&'a str>,
    pub offset: Option<&'a str>,
    pub fill: Option<&'a str>,
    pub seed: u64,
    pub data: &'a str,
    pub on_error: &'a str,
    /// `Some(writes)` when a trace is replayed: the job then ends with the trace, and the
    /// trace says whether it writes.
    pub replay_writes: Option<bool>,
}

fn invalid(msg: impl Into<String>) -> EngineError {
    EngineError::Invalid(msg.into())
}

fn or_invalid<T, E: std::fmt::Display>(r: Result<T, E>) -> Result<T, EngineError> {
    r.map_err(|e| invalid(e.to_string()))
}

/// A flag's value parsed by a parser whose message names only the value: the message then
/// names the flag too (`--bs: invalid size "abc": ...`).
fn of_flag<T, E: std::fmt::Display>(flag: &str, r: Result<T, E>) -> Result<T, EngineError> {
    r.map_err(|e| invalid(format!("{flag}: {e}")))
}

impl JobFlags<'_> {
    /// io_uring's options from the flags: off unless given, as fio's.
    fn uring(&self) -> Result<UringOptions, EngineError> {
        let sqpoll = if self.sqpoll {
            if let Some(cpu) = self.sqpoll_cpu {
                // SAFETY: sysconf only reads.
                let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1) as u32;
                if cpu >= cpus {
                    return Err(invalid(format!(
                        "invalid --sqpoll-cpu \"{cpu}\": expected a CPU from 0 to {}",
                        cpus - 1
                    )));
                }
            }
            let idle_ms = match self.sqpoll_idle {
                None => SQPOLL_IDLE_MS,
                Some(t) => {
                    let ns = of_flag("--sqpoll-idle", parse_duration_ns(t))?;
                    let ms = ns / 1_000_000;
                    if ns % 1_000_000 != 0 || ms > u32::MAX as u64 {
                        return Err(invalid(format!(
                            "invalid --sqpoll-idle \"{t}\": expected whole milliseconds, e.g. 10ms or 1s"
                        )));
                    }
                    ms as u32
                }
            };
            Some(SqPoll {
                cpu: self.sqpoll_cpu,
                idle_ms,
            })
        } else {
            if self.sqpoll_cpu.is_some() || self.sqpoll_idle.is_some() {
                return Err(invalid("--sqpoll-cpu and --sqpoll-idle need --sqpoll"));
            }
            None
        };
        Ok(UringOptions {
            hipri: self.hipri,
            sqpoll,
            fixedbufs: self.fixedbufs,
            registerfiles: self.registerfiles,
        })
    }

    /// `--offset` in bytes (0 without it).
    pub fn offset(&self) -> Result<u64, EngineError> {
        Ok(of_flag("--offset", self.offset.map(parse_size).transpose())?.unwrap_or(0))
    }

    /// `--stripe`: a RAID0's chunk in bytes (`None`: one target).
    pub fn stripe(&self) -> Result<Option<u64>, EngineError> {
        let chunk = of_flag("--stripe", self.stripe.map(parse_size).transpose())?;
        if chunk == Some(0) {
            return Err(invalid("invalid --stripe \"0\": must be > 0"));
        }
        Ok(chunk)
    }

    /// `--size` in bytes.
    pub fn size(&self) -> Result<Option<u64>, EngineError> {
        of_flag("--size", self.size.map(parse_size).transpose())
    }

    /// [`Job::writes`] from the flags alone, so a target can be checked before its facts
    /// are read. A flag that does not parse counts as writing (the job's own error follows).
    pub fn writes(&self) -> bool {
        let main = match self.replay_writes {
            Some(w) => w,
            None => RwMix::parse(self.rw).map_or(true, |m| m.writes()),
        };
        let probes = self
            .probe
            .is_some_and(|p| parse_probes(p).map_or(true, |v| v.iter().any(|p| p.writes())));
        main || probes || self.fill.is_some()
    }

    /// The job on a file or block device with these `facts`; without `--size` it covers
    /// the target (or `natural`, the range a new file is given when a replay sizes it).
    pub fn job_on(&self, facts: &TargetFacts, natural: Option<u64>) -> Result<Job, EngineError> {
        let shown = facts.path.display();
        self.job(shown.to_string(), &|bs| match facts.size {
            Some(existing) if existing >= bs => Ok(existing / bs * bs),
            None if natural.is_some() => Ok(natural.expect("checked")),
            Some(0) if facts.kind == TargetKind::Block => Err(invalid(format!(
                "{shown} has no capacity (0 bytes): an unattached loop device, or no medium?"
            ))),
            Some(n) if facts.kind == TargetKind::Block => Err(invalid(format!(
                "invalid --bs \"{}\": larger than {shown} ({n} bytes)",
                self.bs
            ))),
            Some(_) => Err(invalid(format!(
                "{shown} is smaller than one block of --bs {}; give --size with --recreate to resize it",
                self.bs
            ))),
            None => Err(invalid(format!(
                "{shown} does not exist; give --size to create it"
            ))),
        })
    }

    /// The job on `target`; `default_range(bs)` is the range used without `--size`.
    pub fn job(
        &self,
        target: String,
        default_range: &dyn Fn(u64) -> Result<u64, EngineError>,
    ) -> Result<Job, EngineError> {
        let mix = or_invalid(RwMix::parse(self.rw))?;
        let bs = of_flag("--bs", parse_size(self.bs))?;
        if bs == 0 {
            return Err(invalid(format!(
                "invalid --bs \"{}\": must be > 0",
                self.bs
            )));
        }
        let size = self.size()?;
        let offset = self.offset()?;
        let range = match size {
            Some(s) => s,
            None => {
                let whole = default_range(bs)?;
                if offset >= whole {
                    return Err(invalid(format!(
                        "invalid --offset \"{}\": at or beyond the end of the target ({})",
                        self.offset.unwrap_or_default(),
                        format_size(whole)
                    )));
                }
                (whole - offset) / bs * bs
            }
        };
        if range == 0 {
            return Err(invalid("invalid --size \"0\": must be > 0"));
        }
        let mut job = Job::new(target, mix, bs, range);
        job.offset_bytes = offset;
        if let Some(p) = self.pattern {
            job.pattern = or_invalid(Pattern::parse(p))?;
        }
        if let Some(a) = self.offset_align {
            job.offset_align = of_flag("--offset-align", parse_size(a))?;
        }
        job.qd = self.qd;
        job.threads = self.threads;
        job.own_regions = self.own_regions;
        let time_ns = of_flag("--time", self.time.map(parse_duration_ns).transpose())?;
        let io_size = of_flag("--io-size", self.io_size.map(parse_size).transpose())?;
        job.bound.time_ns = time_ns;
        job.bound.bytes = match (io_size, time_ns) {
            (Some(b), _) => Some(b),
            (None, Some(_)) => None,
            // A replay ends with its trace.
            (None, None) if self.replay_writes.is_some() => None,
            (None, None) => Some(range),
        };
        job.rate = of_flag("--rate", self.rate.map(parse_rate).transpose())?;
        job.arrivals = Arrivals::parse(self.arrivals).map_err(invalid)?;
        if let Some(p) = self.probe {
            job.probes = parse_probes(p)?;
        }
        job.probe_qd = self.probe_qd;
        job.probe_open_loop = match self.probe_loop {
            "open" => true,
            "closed" => false,
            other => {
                return Err(invalid(format!(
                    "invalid --probe-loop \"{other}\": expected open or closed"
                )))
            }
        };
        job.probe_rate = self
            .probe_rate
            .map(parse_rate)
            .transpose()
            .map_err(|e| invalid(format!("--probe-rate: {e}")))?;
        job.engine = of_flag("--engine", EngineKind::parse(self.engine))?;
        job.uring = self.uring()?;
        job.fdp = self
            .fdp_pid
            .map(crate::placement::FdpPlacement::parse)
            .transpose()
            .map_err(EngineError::Invalid)?;
        job.stripe = self.stripe()?;
        if !matches!(job.engine, EngineKind::IoUring | EngineKind::UringCmd) {
            if let Some(o) = [
                (self.hipri, "--hipri"),
                (self.sqpoll, "--sqpoll"),
                (self.fixedbufs, "--fixedbufs"),
                (self.registerfiles, "--registerfiles"),
            ]
            .iter()
            .find_map(|(on, flag)| on.then_some(flag))
            {
                return Err(invalid(format!(
                    "invalid {o} with --engine {}: an io_uring option (use --engine io_uring or uring-cmd)",
                    job.engine.name()
                )));
            }
        }
        job.direct = !self.buffered;
        job.verify = self.verify;
        job.fill = match self.fill {
            None => None,
            Some("seq") => Some(FillMode::Seq),
            Some(other) => {
                return Err(invalid(format!("invalid --fill \"{other}\": expected seq")));
            }
        };
        job.seed = self.seed;
        job.data = of_flag("--data", DataPattern::parse(self.data))?;
        job.on_error = match self.on_error {
            "stop" => OnError::Stop,
            "continue" => OnError::Continue,
            other => {
                return Err(invalid(format!(
                    "invalid --on-error \"{other}\": expected stop or continue"
                )))
            }
        };
        Ok(job)
    }
}

/// `--probe`: read, write or rw:R, comma-separated; each probe once.
pub fn parse_probes(s: &str) -> Result<Vec<Probe>, EngineError> {
    let mut v = Vec::new();
    for p in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let probe = Probe::parse(p).ok_or_else(|| {
            invalid(format!(
                "invalid --probe \"{s}\": unknown probe \"{p}\"; expected read, write or rw:R (R = percent reads)"
            ))
        })?;
        if !v.contains(&probe) {
            v.push(probe);
        }
    }
    if v.is_empty() {
        return Err(invalid(format!(
            "invalid --probe \"{s}\": expected read, write or rw:R (R = percent reads)"
        )));
    }
    Ok(v)
}
