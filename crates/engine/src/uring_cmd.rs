//! The NVMe passthrough queue of an executor thread (`--engine uring-cmd`; the loop is
//! [`crate::queued`]'s): NVMe read and write commands through io_uring's
//! `IORING_OP_URING_CMD` on a generic char device (`/dev/ngXnY`), past the block layer, as
//! fio's `io_uring_cmd`.
//!
//! Invariants and why:
//! - One ring per thread with 128-byte SQEs (the command rides in the SQE) and 32-byte CQEs
//!   (the NVMe result with it), and the same options as io_uring's ([`crate::uring`]).
//! - The commands are the store's (`ssdiq_nvme::cmd`): one encoding of read and write, with the
//!   FDP placement of `--fdp-pid` on every write.
//! - A completion's result is 0 on success, an NVMe status (> 0) or -errno: the loop wants
//!   bytes done, so success is the request's length, a status is EIO (counted as an error).

use io_uring::{cqueue, opcode, squeue, types, IoUring};
use ssdiq_nvme::cmd::{self, Placement};
use ssdiq_nvme::ioctl::{uring_cmd_bytes, NVME_URING_CMD_IO};
use ssdiq_workload::Op;

use crate::error::EngineError;
use crate::feed::{Feed, Io, WorkerCtx};
use crate::job::UringOptions;
use crate::queued::{Done, Queue};
use crate::stats::Recorder;

struct CmdRing {
    ring: IoUring<squeue::Entry128, cqueue::Entry32>,
    fd: i32,
    nsid: u32,
    /// Bytes per logical block: offsets and lengths become LBAs and block counts.
    lba_bytes: u64,
    /// `--fdp-pid`, by offset.
    placement: crate::placement::Resolved,
    fixed_file: bool,
    fixed_bufs: bool,
    batch_waits: bool,
    /// Each slot's request length: a successful command completes with 0, not its bytes.
    lens: Vec<u64>,
}

impl Queue for CmdRing {
    fn push(&mut self, io: &Io, _member: usize, ptr: *mut u8, index: usize, slot: usize) {
        let slba = io.offset / self.lba_bytes;
        let nlb = (io.len / self.lba_bytes) as u32;
        let c = match io.op {
            Op::Read => cmd::read(self.nsid, slba, nlb),
            _ => {
                let p = self
                    .placement
                    .pid_at(io.offset)
                    .map_or(Placement::None, Placement::Fdp);
                cmd::write(self.nsid, slba, nlb, p)
            }
        };
        let bytes = uring_cmd_bytes(&c, ptr, io.len as u32);
        let mut op = if self.fixed_file {
            opcode::UringCmd80::new(types::Fixed(0), NVME_URING_CMD_IO)
        } else {
            opcode::UringCmd80::new(types::Fd(self.fd), NVME_URING_CMD_IO)
        }
        .cmd(bytes);
        if self.fixed_bufs {
            op = op.buf_index(Some(index as u16));
        }
        self.lens[slot] = io.len;
        // SAFETY: the buffer stays valid until the completion is reaped.
        unsafe {
            self.ring
                .submission()
                .push(&op.build().user_data(slot as u64))
                .expect("ring has qd entries and at most qd are queued");
        }
    }

    fn submit_and_reap(
        &mut self,
        inflight: usize,
        wait_ns: Option<u64>,
        done: &mut Vec<Done>,
    ) -> Result<(), EngineError> {
        crate::uring::enter(&mut self.ring, self.batch_waits, inflight, wait_ns)?;
        let lens = &self.lens;
        done.extend(self.ring.completion().map(|c| {
            let slot = c.user_data() as usize;
            let r = match c.result() {
                0 => lens[slot] as i64,
                r if r > 0 => -(libc::EIO as i64),
                r => r as i64,
            };
            (slot, r)
        }));
        Ok(())
    }
}

/// Runs one thread of a job on NVMe passthrough until its feed ends, then drains.
pub fn run_thread(
    ctx: &WorkerCtx<'_>,
    feed: &mut Feed,
    qd: u32,
    opts: &UringOptions,
    placement: crate::placement::Resolved,
    rec: &mut Recorder,
    ready: &mut crate::clock::Ready<'_>,
) -> Result<(), EngineError> {
    let target = ctx.target;
    let fd = target.fd();
    let nsid = target.nsid().ok_or_else(|| {
        EngineError::Invalid(format!(
            "invalid --engine uring-cmd for {}: not an NVMe namespace",
            target.facts.path.display()
        ))
    })?;
    crate::queued::run_thread(ctx, feed, qd, rec, ready, |bufs| {
        let (ring, set) = crate::uring::setup::<squeue::Entry128, cqueue::Entry32>(
            qd,
            opts,
            &[fd],
            bufs,
            "io_uring setup with 128-byte SQEs",
        )?;
        Ok(CmdRing {
            ring,
            fd,
            nsid,
            lba_bytes: target.facts.logical_block,
            placement: placement.clone(),
            fixed_file: set.fixed_file,
            fixed_bufs: set.fixed_bufs,
            batch_waits: set.batch_waits,
            lens: vec![0; qd as usize],
        })
    })
}
