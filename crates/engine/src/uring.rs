//! The io_uring executor thread: `qd` requests in flight on one ring per thread.
//!
//! Invariants and why:
//! - One ring per thread, created by that thread (SINGLE_ISSUER, DEFER_TASKRUN when the kernel
//!   has them): no locks, and completions are processed only when we ask.
//! - The file and up to 2 x qd buffers (a read and a write buffer per slot, so reads never
//!   overwrite write data; only the kinds the feed issues) are registered: no per-I/O fd
//!   lookup or page pinning.
//! - No syscall per I/O: each batch of newly prepared SQEs is submitted with one
//!   `io_uring_enter`, then (only if nothing has completed yet) a second enter waits. At 16+
//!   in flight the wait asks for an eighth of them, with the kernel's min-wait bounding how
//!   long a finished I/O waits to be reaped ([`REAP_WAIT_US`]). No SQPOLL: its kernel thread
//!   burns a core the device path may need (not measured).
//! - Latency is from the clock read just before the submitting enter to the clock read just
//!   after the reaping enter returns; every CQE reaped then completed before that read. For an
//!   open-loop stream it is from the I/O's due time instead, so waiting for a free slot while
//!   the target stalls counts.
//! - Trim and write-zeroes are synchronous ioctls/fallocate calls timed around the call; they
//!   do not occupy a slot.
//! - Nothing in the loop allocates: slots, free list and batch list are sized up front.

use std::io;

use io_uring::{opcode, squeue, types, IoUring};
use ssdiq_workload::Op;

use crate::buf::aligned_zeroed;
use crate::error::EngineError;
use crate::feed::{Feed, Io, WorkerCtx};
use crate::stats::Recorder;

/// With many I/Os in flight, wake for an eighth of them (like fio's
/// `iodepth_batch_complete_min`) rather than for each one: at QD32 this cuts wake-ups and
/// context switches severalfold. Below 16 in flight (QD1 probes included) every completion is
/// reaped at once, so low-depth latency is exact.
#[inline]
fn reap_target(inflight: usize) -> usize {
    (inflight / 8).max(1)
}

/// How long a batched wait may hold back a completion that is already there (the kernel's
/// min-wait, Linux 6.12+): after this, the wait returns with whatever has completed. It bounds
/// the latency overstatement of batched reaping. Without kernel support, every completion is
/// reaped at once.
pub const REAP_WAIT_US: u32 = 10;

fn build_ring(entries: u32) -> io::Result<IoUring> {
    let fast = IoUring::builder()
        .setup_single_issuer()
        .setup_coop_taskrun()
        .setup_defer_taskrun()
        .build(entries);
    match fast {
        Ok(r) => Ok(r),
        // Older kernels: plain ring.
        Err(_) => IoUring::new(entries),
    }
}

#[derive(Clone, Copy)]
struct Slot {
    io: Io,
    submit_ns: u64,
    /// Due time of an open-loop I/O; latency is timed from it.
    due_ns: Option<u64>,
}

/// Runs one thread of a job on io_uring until its feed ends, then drains.
pub fn run_thread(
    ctx: &WorkerCtx<'_>,
    feed: &mut Feed,
    qd: u32,
    rec: &mut Recorder,
    ready: &mut crate::clock::Ready<'_>,
) -> Result<(), EngineError> {
    let WorkerCtx {
        target,
        data,
        shared,
        clock,
        bs,
    } = *ctx;
    let qd = qd as usize;
    let mut ring = build_ring((qd as u32).next_power_of_two())
        .map_err(|e| EngineError::io("io_uring setup", e))?;
    let min_timeout = ring.params().is_feature_min_timeout();
    let fd = target.fd();
    let fixed_file = ring.submitter().register_files(&[fd]).is_ok();
    let slot_bytes = bs as usize;
    // Read buffers first, then write buffers; a feed that never reads (or never writes)
    // gets none of that kind: 10 threads x QD32 x 512 KiB would otherwise pin 320 MiB.
    let (reads, writes) = feed.issues();
    let read_slots = if reads { qd } else { 0 };
    let slots_total = read_slots + if writes { qd } else { 0 };
    let mut bufs = aligned_zeroed(slot_bytes * slots_total.max(1));
    let base = bufs.as_mut_ptr();
    if writes {
        for s in 0..qd {
            let off = (read_slots + s) * slot_bytes;
            data.init(&mut bufs.as_mut_slice()[off..off + slot_bytes], s as u64);
        }
    }
    let iovecs: Vec<libc::iovec> = (0..slots_total)
        .map(|i| libc::iovec {
            // SAFETY: inside the allocation of slots_total*slot_bytes bytes.
            iov_base: unsafe { base.add(i * slot_bytes) } as *mut libc::c_void,
            iov_len: slot_bytes,
        })
        .collect();
    // SAFETY: the buffers outlive the ring (declared before it is dropped below, and the
    // ring is drained before returning).
    let fixed_bufs = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();

    let mut slots = vec![
        Slot {
            io: Io {
                stream: crate::series::StreamId::main(Op::Read),
                op: Op::Read,
                offset: 0,
                len: 0,
            },
            submit_ns: 0,
            due_ns: None,
        };
        qd
    ];
    let mut free: Vec<usize> = (0..qd).rev().collect();
    let mut batch: Vec<usize> = Vec::with_capacity(qd);
    let mut inflight = 0usize;
    let mut pending: Option<(Io, u64)> = None;
    let mut ended = false;
    let mut writes = 0u64;
    let timed = feed.is_timed(shared);
    let open_loop = shared.rate_for(feed).is_some_and(|r| r.open_loop());

    ready.go();
    // Clock of the last reap: bounds checks use it (a time bound is checked once per batch),
    // only rate-limited and replayed requests need a fresh read each.
    let mut last_ns = clock.now_ns();
    loop {
        // Prepare as many SQEs as free slots and the start times allow.
        while !ended && !free.is_empty() {
            let now = if timed { clock.now_ns() } else { last_ns };
            if pending.is_some() && shared.must_stop(feed, now) {
                // A timed start the job will not reach (stop, time bound).
                pending = None;
                ended = true;
                break;
            }
            if pending.is_none() {
                match feed.next_timed(shared, now) {
                    None => {
                        ended = true;
                        break;
                    }
                    Some(p) => pending = Some(p),
                }
            }
            let (io, at) = pending.expect("set above");
            if at > now {
                break;
            }
            pending = None;
            match io.op {
                Op::Trim | Op::WriteZeroes => {
                    let t0 = clock.now_ns();
                    let r = if io.op == Op::Trim {
                        target.trim(io.offset, io.len)
                    } else {
                        target.write_zeroes(io.offset, io.len)
                    };
                    let t1 = clock.now_ns();
                    last_ns = t1;
                    let from = if open_loop { at.min(t0) } else { t0 };
                    match r {
                        Ok(()) => rec.record(io.stream, t1, t1 - from, io.len),
                        Err(e) => {
                            rec.fail(io.op, io.offset, io.len, Some(e), t1);
                            shared.on_failure();
                        }
                    }
                    continue;
                }
                Op::Read | Op::Write => {}
            }
            let s = free.pop().expect("checked non-empty");
            let bi = if io.op == Op::Read { s } else { read_slots + s };
            // SAFETY: inside the buffer allocation; this slot is not in flight.
            let ptr = unsafe { base.add(bi * slot_bytes) };
            if io.op == Op::Write {
                // SAFETY: as above; exclusive while the slot is free.
                let b = unsafe { std::slice::from_raw_parts_mut(ptr, io.len as usize) };
                data.before_write(b, io.offset, writes);
                writes += 1;
            }
            let entry = prep(io, ptr, bi as u16, fd, fixed_file, fixed_bufs).user_data(s as u64);
            // SAFETY: the buffer stays valid until the completion is reaped.
            unsafe {
                ring.submission()
                    .push(&entry)
                    .expect("ring has qd entries and at most qd are queued");
            }
            slots[s].io = io;
            slots[s].due_ns = open_loop.then_some(at);
            batch.push(s);
        }

        if inflight == 0 && batch.is_empty() {
            match pending {
                Some((_, at)) => {
                    // Rate-limited and idle: nothing to reap, wait for the scheduled start,
                    // unless the job ends first.
                    if !shared.wait_for_start(feed, at, || clock.now_ns()) {
                        pending = None;
                        ended = true;
                    }
                    continue;
                }
                None if ended => break,
                None => continue,
            }
        }

        // One enter: submit the batch and wait for at least one completion.
        let t_sub = clock.now_ns();
        for &s in &batch {
            slots[s].submit_ns = t_sub;
        }
        inflight += batch.len();
        batch.clear();
        let waited = match pending {
            Some((_, at)) if at > t_sub => {
                // Rate-limited: reap whatever completes before the next scheduled start,
                // looking up at least every POLL_NS for a stop request.
                let left = (at - t_sub).min(crate::rate::POLL_NS);
                let ts = types::Timespec::new()
                    .sec(left / 1_000_000_000)
                    .nsec((left % 1_000_000_000) as u32);
                let args = types::SubmitArgs::new().timespec(&ts);
                ring.submitter().submit_with_args(1, &args)
            }
            _ => {
                // Submit first, then wait in a second enter only if nothing is there yet:
                // measured on a loop device, one combined submit-and-wait enter adds ~15 us
                // to QD1 latency (the task sleeps before the punted I/O even starts).
                let r = ring.submit();
                if r.is_ok() && ring.completion().is_empty() {
                    let want = if min_timeout {
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
        let t_done = clock.now_ns();
        last_ns = t_done;
        for cqe in ring.completion() {
            let s = cqe.user_data() as usize;
            let io = slots[s].io;
            let res = cqe.result();
            if res < 0 {
                rec.fail(io.op, io.offset, io.len, Some(-res), t_done);
                shared.on_failure();
            } else if res as u64 != io.len {
                let errno = target.why_short(io.op, io.offset, io.len, res as u64);
                rec.fail(io.op, io.offset, io.len, errno, t_done);
                shared.on_failure();
            } else {
                let from = match slots[s].due_ns {
                    Some(due) => due.min(slots[s].submit_ns),
                    None => slots[s].submit_ns,
                };
                rec.record(io.stream, t_done, t_done - from, io.len);
            }
            free.push(s);
            inflight -= 1;
        }
    }
    drop(ring);
    drop(bufs);
    Ok(())
}

#[inline]
fn prep(
    io: Io,
    ptr: *mut u8,
    buf_index: u16,
    fd: i32,
    fixed_file: bool,
    fixed_bufs: bool,
) -> squeue::Entry {
    let len = io.len as u32;
    macro_rules! with_fd {
        ($f:expr) => {
            if fixed_file {
                $f(types::Fixed(0))
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
