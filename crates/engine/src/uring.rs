//! The io_uring queue of an executor thread (the loop is [`crate::queued`]'s): one ring per
//! thread, with fio's options.
//!
//! Invariants and why:
//! - One ring per thread, created by that thread (SINGLE_ISSUER, DEFER_TASKRUN when the kernel
//!   has them and no SQPOLL thread submits for it): no locks, and completions are processed
//!   only when we ask.
//! - `--registerfiles` registers the file and `--fixedbufs` the thread's buffers (no per-I/O
//!   fd lookup or page pinning), each only when asked, as fio; the suite's own jobs ask for
//!   both ([`UringOptions::registered`]).
//! - No syscall per I/O: each batch of newly prepared SQEs is submitted with one
//!   `io_uring_enter`, then (only if nothing has completed yet) a second enter waits. At 16+
//!   in flight the wait asks for an eighth of them, with the kernel's min-wait bounding how
//!   long a finished I/O waits to be reaped ([`REAP_WAIT_US`]); with polling (`--hipri`,
//!   `--sqpoll`) every wait asks for one.
//! - `--sqpoll`: the kernel thread submits, so an enter is made only to wake it or to wait
//!   (the io-uring crate's `submit` checks the ring's NEED_WAKEUP flag). It burns a core.

use std::io;

use io_uring::{cqueue, opcode, squeue, types, IoUring};
use ssdiq_workload::Op;

use crate::error::EngineError;
use crate::feed::{Feed, Io, WorkerCtx};
use crate::job::UringOptions;
use crate::queued::{Done, Queue};
use crate::stats::Recorder;

/// With many I/Os in flight, wake for an eighth of them (like fio's
/// `iodepth_batch_complete_min`) rather than for each one: at QD32 this cuts wake-ups and
/// context switches severalfold. Below 16 in flight (QD1 probes included) every completion is
/// reaped at once, so low-depth latency is exact.
#[inline]
pub(crate) fn reap_target(inflight: usize) -> usize {
    (inflight / 8).max(1)
}

/// How long a batched wait may hold back a completion that is already there (the kernel's
/// min-wait, Linux 6.12+): after this, the wait returns with whatever has completed. It bounds
/// the latency overstatement of batched reaping. Without kernel support, every completion is
/// reaped at once.
pub const REAP_WAIT_US: u32 = 10;

/// A ring with the job's options: IOPOLL for `hipri`, SQPOLL for `sqpoll`; otherwise
/// SINGLE_ISSUER and DEFER_TASKRUN where the kernel has them (a plain ring where it does not).
fn build_ring<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    entries: u32,
    o: &UringOptions,
) -> io::Result<IoUring<S, C>> {
    let mut b = IoUring::<S, C>::builder();
    if o.hipri {
        b.setup_iopoll();
    }
    if let Some(sq) = o.sqpoll {
        b.setup_sqpoll(sq.idle_ms);
        if let Some(cpu) = sq.cpu {
            b.setup_sqpoll_cpu(cpu);
        }
        return b.build(entries);
    }
    let mut fast = b.clone();
    fast.setup_single_issuer()
        .setup_coop_taskrun()
        .setup_defer_taskrun();
    match fast.build(entries) {
        Ok(r) => Ok(r),
        // Older kernels: without the task-run flags.
        Err(_) => b.build(entries),
    }
}

/// One thread's ring and how its requests name their file and buffers.
struct Ring {
    ring: IoUring,
    /// Each member's descriptor (one for a target of one path); registered, member `m` is
    /// fixed file `m`.
    fds: Vec<i32>,
    fixed_file: bool,
    fixed_bufs: bool,
    /// Batched waits (the kernel's min-wait): not with polling, which reaps as it polls.
    batch_waits: bool,
}

impl Queue for Ring {
    #[inline]
    fn push(&mut self, io: &Io, member: usize, ptr: *mut u8, index: usize, slot: usize) {
        let entry = prep(
            *io,
            ptr,
            index as u16,
            (member as u32, self.fds[member]),
            self.fixed_file,
            self.fixed_bufs,
        )
        .user_data(slot as u64);
        // SAFETY: the buffer stays valid until the completion is reaped.
        unsafe { push_with_room(&mut self.ring, &entry) }
    }

    fn submit_and_reap(
        &mut self,
        inflight: usize,
        wait_ns: Option<u64>,
        done: &mut Vec<Done>,
    ) -> Result<(), EngineError> {
        enter(&mut self.ring, self.batch_waits, inflight, wait_ns)?;
        done.extend(
            self.ring
                .completion()
                .map(|c| (c.user_data() as usize, c.result() as i64)),
        );
        Ok(())
    }
}

/// Pushes `entry` on `ring`'s submission queue, making room first if it is full. The ring
/// has an entry per request in flight, but with SQPOLL the kernel's thread can post a
/// request's completion before it moves the queue's head past the request's entry, so a
/// request reaped does not yet mean an entry free (`--sqpoll` panicked on a full queue in 3 of
/// 6 one-second runs of buffered reads). Submitting wakes that thread, and SQ_WAIT waits for
/// it to take entries; without SQPOLL the submit takes them itself.
///
/// # Safety
/// As [`squeue::SubmissionQueue::push`]: what `entry` points to stays valid until its
/// completion is reaped.
pub(crate) unsafe fn push_with_room<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    ring: &mut IoUring<S, C>,
    entry: &S,
) {
    // SAFETY: the caller's.
    while unsafe { ring.submission().push(entry) }.is_err() {
        // Errors (EINTR, EBUSY) leave the queue as it was: the loop tries again.
        let _ = ring.submit();
        if ring.params().is_setup_sqpoll() && ring.submission().is_full() {
            let _ = ring.submitter().squeue_wait();
        }
    }
}

/// Submits what is queued on `ring` and waits as [`Queue::submit_and_reap`] says: with
/// `wait_ns`, whatever completes within it; else at least one completion (an eighth of
/// `inflight` with `batch_waits`, bounded by [`REAP_WAIT_US`]; polled for with SQPOLL).
/// Completions stay on the ring.
pub(crate) fn enter<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    ring: &mut IoUring<S, C>,
    batch_waits: bool,
    inflight: usize,
    wait_ns: Option<u64>,
) -> Result<(), EngineError> {
    let waited = match wait_ns {
        Some(left) => {
            let ts = types::Timespec::new()
                .sec(left / 1_000_000_000)
                .nsec((left % 1_000_000_000) as u32);
            let args = types::SubmitArgs::new().timespec(&ts);
            ring.submitter().submit_with_args(1, &args)
        }
        None if ring.params().is_setup_sqpoll() => {
            // With SQPOLL the kernel's thread submits and this one polls the completion
            // ring, as fio's io_uring engine does with sqthread_poll: no system call on the
            // I/O path at all. Waiting in the kernel instead put ssdiq's QD1 median 17 us
            // above fio's (docs/engine.md).
            let r = ring.submit();
            while r.is_ok() && inflight > 0 && ring.completion().is_empty() {
                std::hint::spin_loop();
            }
            r
        }
        None => {
            // Submit first, then wait in a second enter only if nothing is there yet:
            // measured on a loop device, one combined submit-and-wait enter adds ~15 us
            // to QD1 latency (the task sleeps before the punted I/O even starts).
            let r = ring.submit();
            if r.is_ok() && ring.completion().is_empty() {
                let want = if batch_waits {
                    reap_target(inflight)
                } else {
                    1
                };
                if want <= 1 {
                    ring.submit_and_wait(1)
                } else {
                    let args = types::SubmitArgs::new().min_wait_usec(REAP_WAIT_US);
                    ring.submitter().submit_with_args(want, &args)
                }
            } else {
                r
            }
        }
    };
    if let Err(e) = waited {
        match e.raw_os_error() {
            Some(libc::EINTR) | Some(libc::ETIME) | Some(libc::EBUSY) | Some(libc::EAGAIN) => {}
            _ => return Err(EngineError::io("io_uring_enter", e)),
        }
    }
    Ok(())
}

/// Runs one thread of a job on io_uring until its feed ends, then drains.
pub fn run_thread(
    ctx: &WorkerCtx<'_>,
    feed: &mut Feed,
    qd: u32,
    opts: &UringOptions,
    rec: &mut Recorder,
    ready: &mut crate::clock::Ready<'_>,
) -> Result<(), EngineError> {
    let fds = ctx.target.fds();
    crate::queued::run_thread(ctx, feed, qd, rec, ready, |bufs| {
        let (ring, set) = setup(qd, opts, &fds, (bufs, bufs.slot_bytes), "io_uring setup")?;
        Ok(Ring {
            ring,
            fds,
            fixed_file: set.fixed_file,
            fixed_bufs: set.fixed_bufs,
            batch_waits: set.batch_waits,
        })
    })
}

/// What a thread's ring was set up with.
pub(crate) struct RingSetup {
    /// The file is registered (index 0).
    pub fixed_file: bool,
    /// The thread's buffers are registered, in [`crate::queued::Buffers`]' order.
    pub fixed_bufs: bool,
    /// Waits may batch (the kernel's min-wait; not with polling).
    pub batch_waits: bool,
}

/// A ring of `qd` entries with the job's options, and the files `fds` and the buffers `bufs`
/// (in registered pieces of at most `piece` bytes, [`crate::queued::Buffers::iovecs`])
/// registered where asked. `what` names the setup in an error.
pub(crate) fn setup<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    qd: u32,
    opts: &UringOptions,
    fds: &[i32],
    (bufs, piece): (&crate::queued::Buffers, usize),
    what: &str,
) -> Result<(IoUring<S, C>, RingSetup), EngineError> {
    let ring = build_ring::<S, C>(qd.next_power_of_two(), opts).map_err(|e| {
        let with = if opts.sqpoll.is_some() {
            " with SQPOLL"
        } else {
            ""
        };
        EngineError::io(format!("{what}{with}"), e)
    })?;
    let min_timeout = ring.params().is_feature_min_timeout();
    let fixed_file = opts.registerfiles && ring.submitter().register_files(fds).is_ok();
    // SAFETY: the buffers outlive the ring (the loop drops the queue first, and drains it
    // before that).
    let fixed_bufs =
        opts.fixedbufs && unsafe { ring.submitter().register_buffers(&bufs.iovecs(piece)) }.is_ok();
    let batch_waits = min_timeout && !opts.hipri && opts.sqpoll.is_none();
    Ok((
        ring,
        RingSetup {
            fixed_file,
            fixed_bufs,
            batch_waits,
        },
    ))
}

#[inline]
fn prep(
    io: Io,
    ptr: *mut u8,
    buf_index: u16,
    (member, fd): (u32, i32),
    fixed_file: bool,
    fixed_bufs: bool,
) -> squeue::Entry {
    let len = io.len as u32;
    macro_rules! with_fd {
        ($f:expr) => {
            if fixed_file {
                $f(types::Fixed(member))
            } else {
                $f(types::Fd(fd))
            }
        };
    }
    match (io.op, fixed_bufs) {
        (Op::Read, true) => with_fd!(|t| opcode::ReadFixed::new(t, ptr, len, buf_index)
            .offset(io.offset)
            .build()),
        (Op::Read, false) => with_fd!(|t| opcode::Read::new(t, ptr, len).offset(io.offset).build()),
        (_, true) => with_fd!(|t| opcode::WriteFixed::new(t, ptr, len, buf_index)
            .offset(io.offset)
            .build()),
        (_, false) => with_fd!(|t| opcode::Write::new(t, ptr, len).offset(io.offset).build()),
    }
}
