//! The psync executor thread: one blocking pread/pwrite per I/O, the single-process pattern
//! of the io-access-patterns paper (Inria RR-9319, §3; docs/sources.md#io-access-patterns). Latency is timed around the syscall itself, or, for an
//! open-loop stream, from the I/O's due time (a late start counts).
//!
//! Invariant: one I/O in flight per thread (the job validator rejects `qd > 1` for psync; a
//! probe is always one), and nothing in the loop allocates.

use ssdiq_workload::Op;

use crate::buf::aligned_zeroed;
use crate::error::EngineError;
use crate::feed::{Feed, WorkerCtx};
use crate::stats::Recorder;

pub fn run_thread(
    ctx: &WorkerCtx<'_>,
    feed: &mut Feed,
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
    let fds = target.fds();
    let striped = target.is_striped();
    let mut rbuf = aligned_zeroed(bs as usize);
    let mut wbuf = aligned_zeroed(bs as usize);
    data.init(wbuf.as_mut_slice(), 0);
    let timed = feed.is_timed(shared);
    let open_loop = shared.rate_for(feed).is_some_and(|r| r.open_loop());
    let mut writes = 0u64;
    ready.go();
    loop {
        let now = clock.now_ns();
        let Some((io, at)) = feed.next_timed(shared, now) else {
            break;
        };
        let mut due = None;
        if timed {
            if !shared.wait_for_start(feed, at, || clock.now_ns()) {
                break;
            }
            if open_loop {
                due = Some(at);
            }
        }
        // A write's stamp, or a read's block entry as it is submitted (`--verify`).
        let mut stamp = data.before_read(io.offset);
        if io.op == Op::Write {
            stamp = data.before_write(
                &mut wbuf.as_mut_slice()[..io.len as usize],
                io.offset,
                writes,
            );
            writes += 1;
        }
        let (member, at) = target.locate(io.offset);
        let fd = fds[member];
        let t0 = clock.now_ns();
        // SAFETY: buffers hold at least bs = io.len bytes for reads and writes.
        let short = |done: u64| target.why_short(io.op, io.offset, io.len, done);
        let res: Result<(), Option<i32>> = match io.op {
            Op::Read => check(
                unsafe { libc::pread(fd, rbuf.as_mut_ptr().cast(), io.len as usize, at as i64) },
                io.len,
                short,
            ),
            Op::Write => check(
                unsafe { libc::pwrite(fd, wbuf.as_mut_ptr().cast(), io.len as usize, at as i64) },
                io.len,
                short,
            ),
            Op::Trim => target.trim(io.offset, io.len).map_err(Some),
            Op::WriteZeroes => target.write_zeroes(io.offset, io.len).map_err(Some),
        };
        let t1 = clock.now_ns();
        match res {
            Ok(()) => {
                rec.record(io.stream, t1, t1 - due.unwrap_or(t0), io.len);
                if striped && !io.stream.is_probe() {
                    rec.record_member(member, io.op, t1 - due.unwrap_or(t0), io.len);
                }
                match io.op {
                    Op::Write => data.after_write(io.offset, io.len, stamp),
                    Op::Read => {
                        if let Some((n, m)) = data.check_read(
                            &rbuf.as_slice()[..io.len as usize],
                            io.offset,
                            Some(stamp),
                        ) {
                            rec.verified(n, m);
                        }
                    }
                    Op::Trim | Op::WriteZeroes => data.after_clear(io.offset, io.len),
                }
            }
            Err(errno) => {
                rec.fail(io.op, io.offset, io.len, errno, t1);
                shared.on_failure();
            }
        }
    }
    Ok(())
}

/// `Err(Some(errno))` for a failed call; for a short transfer, the errno `short(done)`
/// finds (`Err(None)` if there is none).
#[inline]
fn check(r: isize, len: u64, short: impl Fn(u64) -> Option<i32>) -> Result<(), Option<i32>> {
    if r < 0 {
        Err(Some(
            std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO),
        ))
    } else if r as u64 != len {
        Err(short(r as u64))
    } else {
        Ok(())
    }
}
