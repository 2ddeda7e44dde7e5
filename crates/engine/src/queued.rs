//! The loop of an asynchronous executor thread: `qd` slots, each one request in flight, fed
//! by the thread's [`Feed`] and completed by a [`Queue`] (io_uring, Linux AIO; the place for
//! another kernel-bypass queue).
//!
//! Invariants and why:
//! - Up to 2 x qd buffers (a read and a write buffer per slot, so reads never overwrite write
//!   data; only the kinds the feed issues: 10 threads x QD32 x 512 KiB would otherwise pin
//!   320 MiB). A queue may register them ([`Buffers::iovecs`]); they outlive it.
//! - Latency is from the clock read just before the submitting call to the clock read just
//!   after the reaping call returns; every completion reaped then completed before that read.
//!   For an open-loop stream it is from the I/O's due time instead, so waiting for a free slot
//!   while the target stalls counts.
//! - Trim and write-zeroes are synchronous ioctls/fallocate calls timed around the call; they
//!   do not occupy a slot.
//! - A request goes to the member of the target that [`crate::Target::locate`] names, at that
//!   member's offset; its slot keeps the whole target's offset, which `--verify` and the
//!   statistics use (a striped target's members' shares are recorded besides).
//! - Nothing in the loop allocates: slots, free list, batch and completion lists are sized up
//!   front.

use ssdiq_workload::Op;

use crate::buf::{aligned_zeroed, AlignedBuf};
use crate::error::EngineError;
use crate::feed::{Feed, Io, WorkerCtx};
use crate::stats::Recorder;

/// The I/O buffers of one thread: read buffers first, then write buffers, one of each kind
/// the feed issues per slot.
pub struct Buffers {
    /// Owns the memory `base` points into; not touched through a reference after `new`.
    _buf: AlignedBuf,
    base: *mut u8,
    pub slot_bytes: usize,
    pub read_slots: usize,
    pub count: usize,
}

impl Buffers {
    fn new(ctx: &WorkerCtx<'_>, feed: &Feed, qd: usize) -> Buffers {
        let slot_bytes = ctx.bs as usize;
        let (reads, writes) = feed.issues();
        let read_slots = if reads { qd } else { 0 };
        let count = read_slots + if writes { qd } else { 0 };
        let mut buf = aligned_zeroed(slot_bytes * count.max(1));
        if writes {
            for s in 0..qd {
                let off = (read_slots + s) * slot_bytes;
                ctx.data
                    .init(&mut buf.as_mut_slice()[off..off + slot_bytes], s as u64);
            }
        }
        let base = buf.as_mut_ptr();
        Buffers {
            _buf: buf,
            base,
            slot_bytes,
            read_slots,
            count,
        }
    }

    /// Buffer `i`'s start.
    pub fn ptr(&self, i: usize) -> *mut u8 {
        debug_assert!(i < self.count.max(1));
        // SAFETY: inside the allocation of count x slot_bytes bytes (at least one byte).
        unsafe { self.base.add(i * self.slot_bytes) }
    }

    /// Every buffer as iovecs of at most `piece` bytes, to register: buffer `i`'s piece `k`
    /// is registered buffer `i * pieces + k`, with `pieces` = slot_bytes / piece rounded up.
    pub fn iovecs(&self, piece: usize) -> Vec<libc::iovec> {
        let piece = piece.clamp(1, self.slot_bytes.max(1));
        let pieces = self.slot_bytes.div_ceil(piece).max(1);
        (0..self.count)
            .flat_map(|i| {
                (0..pieces).map(move |k| libc::iovec {
                    // SAFETY: inside buffer i (k * piece < slot_bytes).
                    iov_base: unsafe { self.ptr(i).add(k * piece) } as *mut libc::c_void,
                    iov_len: piece.min(self.slot_bytes - k * piece),
                })
            })
            .collect()
    }
}

/// One completion: the slot, and the kernel's result (bytes done, or -errno).
pub type Done = (usize, i64);

/// A kernel queue of reads and writes.
pub trait Queue {
    /// Queues `io` on member `member` of the target (its offset already the member's; 0 for
    /// a target of one path) with buffer `index` (at `ptr`, [`Buffers::slot_bytes`] long),
    /// tagged `slot`; it is submitted by the next [`Queue::submit_and_reap`].
    fn push(&mut self, io: &Io, member: usize, ptr: *mut u8, index: usize, slot: usize);

    /// Submits what was pushed and collects completions into `done`: with `wait_ns` (a
    /// rate-limited stream's next start is that far off) whatever completes within it, else
    /// at least one of the `inflight` requests (more where the queue batches its wake-ups).
    fn submit_and_reap(
        &mut self,
        inflight: usize,
        wait_ns: Option<u64>,
        done: &mut Vec<Done>,
    ) -> Result<(), EngineError>;
}

#[derive(Clone, Copy)]
struct Slot {
    io: Io,
    /// The member of a striped target that serves it (0 otherwise).
    member: usize,
    /// The `--verify` generation of a write (0 without it).
    stamp: u32,
    submit_ns: u64,
    /// Due time of an open-loop I/O; latency is timed from it.
    due_ns: Option<u64>,
}

/// Runs one thread of a job on the queue `make` builds over the thread's buffers, until its
/// feed ends, then drains.
pub fn run_thread<Q: Queue>(
    ctx: &WorkerCtx<'_>,
    feed: &mut Feed,
    qd: u32,
    rec: &mut Recorder,
    ready: &mut crate::clock::Ready<'_>,
    make: impl FnOnce(&Buffers) -> Result<Q, EngineError>,
) -> Result<(), EngineError> {
    let WorkerCtx {
        target,
        data,
        shared,
        clock,
        ..
    } = *ctx;
    let qd = qd as usize;
    let bufs = Buffers::new(ctx, feed, qd);
    let mut queue = make(&bufs)?;

    let mut slots = vec![
        Slot {
            io: Io {
                stream: crate::series::StreamId::main(Op::Read),
                op: Op::Read,
                offset: 0,
                len: 0,
            },
            member: 0,
            stamp: 0,
            submit_ns: 0,
            due_ns: None,
        };
        qd
    ];
    let striped = target.is_striped();
    let mut free: Vec<usize> = (0..qd).rev().collect();
    let mut batch: Vec<usize> = Vec::with_capacity(qd);
    let mut done: Vec<Done> = Vec::with_capacity(qd);
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
        // Prepare as many requests as free slots and the start times allow.
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
                        Ok(()) => {
                            data.after_clear(io.offset, io.len);
                            rec.record(io.stream, t1, t1 - from, io.len)
                        }
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
            let bi = if io.op == Op::Read {
                s
            } else {
                bufs.read_slots + s
            };
            let ptr = bufs.ptr(bi);
            // A write's stamp, or a read's block entry as it is submitted (`--verify`).
            slots[s].stamp = data.before_read(io.offset);
            if io.op == Op::Write {
                // SAFETY: inside the buffer; exclusive while the slot is free.
                let b = unsafe { std::slice::from_raw_parts_mut(ptr, io.len as usize) };
                slots[s].stamp = data.before_write(b, io.offset, writes);
                writes += 1;
            }
            let (member, member_offset) = target.locate(io.offset);
            let on_member = Io {
                offset: member_offset,
                ..io
            };
            queue.push(&on_member, member, ptr, bi, s);
            slots[s].io = io;
            slots[s].member = member;
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

        let t_sub = clock.now_ns();
        for &s in &batch {
            slots[s].submit_ns = t_sub;
        }
        inflight += batch.len();
        batch.clear();
        let wait_ns = match pending {
            // Rate-limited: reap whatever completes before the next scheduled start, looking
            // up at least every POLL_NS for a stop request.
            Some((_, at)) if at > t_sub => Some((at - t_sub).min(crate::rate::POLL_NS)),
            _ => None,
        };
        done.clear();
        queue.submit_and_reap(inflight, wait_ns, &mut done)?;
        let t_done = clock.now_ns();
        last_ns = t_done;
        for &(s, res) in &done {
            let io = slots[s].io;
            if res < 0 {
                rec.fail(io.op, io.offset, io.len, Some((-res) as i32), t_done);
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
                if striped && !io.stream.is_probe() {
                    rec.record_member(slots[s].member, io.op, t_done - from, io.len);
                }
                if io.op == Op::Write {
                    data.after_write(io.offset, io.len, slots[s].stamp);
                } else {
                    // SAFETY: the read completed; the slot's buffer holds what it read and
                    // nothing writes it until the slot is reused.
                    let b = unsafe { std::slice::from_raw_parts(bufs.ptr(s), io.len as usize) };
                    if let Some((n, m)) = data.check_read(b, io.offset, Some(slots[s].stamp)) {
                        rec.verified(n, m);
                    }
                }
            }
            free.push(s);
            inflight -= 1;
        }
    }
    drop(queue);
    drop(bufs);
    Ok(())
}
