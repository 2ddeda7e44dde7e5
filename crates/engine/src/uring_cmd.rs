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
//! - A request longer than one command may carry (the controller's MDTS, at most 256 KiB:
//!   [`ssdiq_nvme::Device::max_transfer_bytes`]) goes as several commands, as the block layer
//!   splits it on a block device; it completes when all have, failed if any failed. Without
//!   this the kernel refuses it (EINVAL): the protocol's 512 KiB steps on QEMU's NVMe.

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
    /// Bytes one command carries at most (a multiple of the logical block).
    max_bytes: u64,
    /// Registered pieces per buffer (one per command of a whole request).
    pieces: usize,
    /// Each slot's request length: a successful command completes with 0, not its bytes.
    lens: Vec<u64>,
    /// Each slot's commands still in flight, and its first failure (0: none).
    parts_left: Vec<u32>,
    failed: Vec<i64>,
}

impl Queue for CmdRing {
    fn push(&mut self, io: &Io, _member: usize, ptr: *mut u8, index: usize, slot: usize) {
        // The placement of the request's first byte, for every command of it.
        let p = self
            .placement
            .pid_at(io.offset)
            .map_or(Placement::None, Placement::Fdp);
        self.lens[slot] = io.len;
        self.failed[slot] = 0;
        self.parts_left[slot] = io.len.div_ceil(self.max_bytes).max(1) as u32;
        let mut done = 0;
        while done < io.len.max(1) {
            let len = (io.len - done).min(self.max_bytes);
            let slba = (io.offset + done) / self.lba_bytes;
            let nlb = (len / self.lba_bytes) as u32;
            let c = match io.op {
                Op::Read => cmd::read(self.nsid, slba, nlb),
                _ => cmd::write(self.nsid, slba, nlb, p),
            };
            // SAFETY: `done` < the request's length, which fits in the slot's buffer.
            let at = unsafe { ptr.add(done as usize) };
            let bytes = uring_cmd_bytes(&c, at, len as u32);
            let mut op = if self.fixed_file {
                opcode::UringCmd80::new(types::Fixed(0), NVME_URING_CMD_IO)
            } else {
                opcode::UringCmd80::new(types::Fd(self.fd), NVME_URING_CMD_IO)
            }
            .cmd(bytes);
            if self.fixed_bufs {
                let piece = index * self.pieces + (done / self.max_bytes) as usize;
                op = op.buf_index(Some(piece as u16));
            }
            // SAFETY: the buffer stays valid until the completion is reaped.
            unsafe {
                crate::uring::push_with_room(&mut self.ring, &op.build().user_data(slot as u64))
            }
            done += len.max(1);
        }
    }

    fn submit_and_reap(
        &mut self,
        inflight: usize,
        wait_ns: Option<u64>,
        done: &mut Vec<Done>,
    ) -> Result<(), EngineError> {
        // A request of several commands may have only some back: wait on until one request
        // is whole (the loop's contract), unless the caller bounded the wait. Every request
        // in flight has a command in flight, so waiting for `inflight` of them never hangs.
        let before = done.len();
        loop {
            crate::uring::enter(&mut self.ring, self.batch_waits, inflight, wait_ns)?;
            for c in self.ring.completion() {
                let slot = c.user_data() as usize;
                let r = c.result();
                if r != 0 && self.failed[slot] == 0 {
                    self.failed[slot] = if r > 0 { -(libc::EIO as i64) } else { r as i64 };
                }
                self.parts_left[slot] -= 1;
                if self.parts_left[slot] == 0 {
                    let f = self.failed[slot];
                    done.push((slot, if f == 0 { self.lens[slot] as i64 } else { f }));
                }
            }
            if done.len() > before || wait_ns.is_some() || inflight == 0 {
                return Ok(());
            }
        }
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
    let lba_bytes = target.facts.logical_block;
    let max_bytes = target
        .nvme_max_transfer()
        .map_or(u64::MAX, |m| (m / lba_bytes).max(1) * lba_bytes);
    crate::queued::run_thread(ctx, feed, qd, rec, ready, |bufs| {
        let parts = (bufs.slot_bytes as u64).div_ceil(max_bytes).max(1) as u32;
        // Each command's piece of a buffer is registered on its own: the kernel maps a fixed
        // buffer for passthrough whole, and one of more pages than the queue's segments
        // (127 on QEMU's NVMe) is refused (EINVAL), even for a command that uses part of it.
        let piece = max_bytes.min(bufs.slot_bytes as u64) as usize;
        let (ring, set) = crate::uring::setup::<squeue::Entry128, cqueue::Entry32>(
            qd * parts,
            opts,
            &[fd],
            (bufs, piece),
            "io_uring setup with 128-byte SQEs",
        )?;
        Ok(CmdRing {
            ring,
            fd,
            nsid,
            lba_bytes,
            placement: placement.clone(),
            fixed_file: set.fixed_file,
            fixed_bufs: set.fixed_bufs,
            batch_waits: set.batch_waits,
            max_bytes,
            pieces: parts as usize,
            lens: vec![0; qd as usize],
            parts_left: vec![0; qd as usize],
            failed: vec![0; qd as usize],
        })
    })
}
