//! A job's target, shared by its threads: one opened path, or a RAID0 of block devices
//! (`--stripe`, [`crate::stripe`]) whose members each take their own share of the requests.
//!
//! Invariants: the executors see offsets of the whole target and ask [`Target::locate`] which
//! member and where; a request never crosses a chunk ([`crate::job::Job::validate`]), the
//! synchronous calls (fill, trim, write-zeroes, the read-back) are split into pieces here; the
//! job is checked against the whole's facts before any member is opened.

use std::io;
use std::os::fd::RawFd;
use std::path::Path;

use ssdiq_workload::Op;

use crate::error::EngineError;
use crate::job::Job;
use crate::stripe::Stripe;
use crate::target::{Member, TargetFacts};

pub struct Target {
    members: Vec<Member>,
    stripe: Option<Stripe>,
    /// The whole target's facts (for a stripe: the list of members, their largest logical
    /// block, their size together).
    pub facts: TargetFacts,
    /// A file whose range has holes and a job that reads it: the holes are laid out
    /// (written) before the job, see `crate::fill::fill_holes`.
    pub needs_layout: bool,
}

impl Target {
    /// Validates `job` against the target, then opens it (each member of a stripe).
    pub fn open(job: &Job) -> Result<Target, EngineError> {
        match job.stripe {
            None => {
                let facts = TargetFacts::probe(Path::new(&job.target))?;
                facts.check(job)?;
                let m = Member::open(facts.clone(), job)?;
                Ok(Target {
                    needs_layout: m.needs_layout,
                    members: vec![m],
                    stripe: None,
                    facts,
                })
            }
            Some(chunk) => {
                let (facts, parts) = TargetFacts::probe_striped(&job.target, chunk)?;
                facts.check(job)?;
                let members = parts
                    .into_iter()
                    .map(|f| Member::open(f, job))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Target {
                    stripe: Some(Stripe {
                        chunk,
                        members: members.len(),
                    }),
                    members,
                    facts,
                    needs_layout: false,
                })
            }
        }
    }

    /// The first (or only) member's descriptor.
    pub fn fd(&self) -> RawFd {
        self.members[0].fd()
    }

    /// Every member's descriptor, in member order.
    pub fn fds(&self) -> Vec<RawFd> {
        self.members.iter().map(Member::fd).collect()
    }

    /// Each member's path, in member order.
    pub fn member_paths(&self) -> Vec<String> {
        self.members
            .iter()
            .map(|m| m.facts.path.display().to_string())
            .collect()
    }

    /// True for a RAID0 of several members.
    pub fn is_striped(&self) -> bool {
        self.stripe.is_some()
    }

    /// The member holding byte `offset` of the target, and where on it.
    #[inline]
    pub fn locate(&self, offset: u64) -> (usize, u64) {
        match &self.stripe {
            Some(s) => s.locate(offset),
            None => (0, offset),
        }
    }

    /// The namespace ID of an NVMe generic char device (never striped).
    pub fn nsid(&self) -> Option<u32> {
        self.members[0].nsid()
    }

    /// The most one NVMe command of an NVMe char device carries ([`ssdiq_nvme::Device`]).
    pub fn nvme_max_transfer(&self) -> Option<u64> {
        self.members[0].nvme.as_ref()?.max_transfer_bytes().ok()
    }

    pub fn is_file(&self) -> bool {
        self.members[0].is_file()
    }

    /// The holes of `[0, end)` of a file target (striped targets are block devices).
    pub fn holes(&self, end: u64) -> Vec<(u64, u64)> {
        if self.is_striped() {
            return Vec::new();
        }
        self.members[0].holes(end)
    }

    /// Why a request came back short, asked of the member that served it (see
    /// [`Member::why_short`]).
    pub fn why_short(&self, op: Op, offset: u64, len: u64, done: u64) -> Option<i32> {
        let (m, at) = self.locate(offset);
        self.members[m].why_short(op, at, len, done)
    }

    /// `[offset, offset + len)` as (member, offset, length) ranges, one per member run.
    fn ranges(&self, offset: u64, len: u64) -> Vec<(usize, u64, u64)> {
        match &self.stripe {
            Some(s) => s.member_ranges(offset, len),
            None => vec![(0, offset, len)],
        }
    }

    /// Discards `[offset, offset+len)`. Returns the errno on failure.
    pub fn trim(&self, offset: u64, len: u64) -> Result<(), i32> {
        for (m, at, n) in self.ranges(offset, len) {
            self.members[m].trim(at, n)?;
        }
        Ok(())
    }

    /// Zeroes `[offset, offset+len)` without transferring data.
    pub fn write_zeroes(&self, offset: u64, len: u64) -> Result<(), i32> {
        for (m, at, n) in self.ranges(offset, len) {
            self.members[m].write_zeroes(at, n)?;
        }
        Ok(())
    }

    /// Writes `buf` at `offset`, synchronously (the fill and the layout).
    pub fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let Some(s) = &self.stripe else {
            return self.members[0].write_at(buf, offset);
        };
        for p in s.pieces(offset, buf.len() as u64) {
            let from = (p.logical - offset) as usize;
            self.members[p.member].write_at(&buf[from..from + p.len as usize], p.offset)?;
        }
        Ok(())
    }

    /// Reads `buf.len()` bytes at `offset`, synchronously (`--verify`'s read-back).
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let Some(s) = &self.stripe else {
            return self.members[0].read_at(buf, offset);
        };
        for p in s.pieces(offset, buf.len() as u64) {
            let from = (p.logical - offset) as usize;
            self.members[p.member].read_at(&mut buf[from..from + p.len as usize], p.offset)?;
        }
        Ok(())
    }

    /// Flushes what the page cache holds of every member to storage.
    pub fn sync_data(&self) -> io::Result<()> {
        for m in &self.members {
            m.file.sync_data()?;
        }
        Ok(())
    }
}
