//! The Linux AIO queue of an executor thread (`--engine libaio`, fio's and iob's libaio; the
//! loop is [`crate::queued`]'s): one AIO context per thread, one `io_submit` per batch and
//! `io_getevents` to reap, through the system calls themselves (libaio the C library is a
//! thin wrapper of these three).
//!
//! Invariants and why:
//! - One iocb per slot, in an array that lives as long as the context: the kernel copies an
//!   iocb during `io_submit`, and an event names its slot in `data`.
//! - O_DIRECT only (the job validator refuses `--buffered`): buffered AIO runs synchronously
//!   inside `io_submit`, which would time the page cache's copy as submission.
//! - `io_submit` may take fewer iocbs than given (the context is full, EAGAIN): what is left is
//!   submitted again after reaping, so nothing is dropped.
//! - A wait asks for at least one completion (fio's libaio at `iodepth_batch_complete_min=1`),
//!   or for what completes within a rate-limited stream's wait.
//! - The iocb layout is the kernel's (`linux/aio_abi.h`) on a little-endian machine.

use crate::error::EngineError;
use crate::feed::{Feed, Io, WorkerCtx};
use crate::queued::{Done, Queue};
use crate::stats::Recorder;
use ssdiq_workload::Op;

#[cfg(not(target_endian = "little"))]
compile_error!("the iocb layout here is the little-endian one");

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;

/// `struct iocb` of `linux/aio_abi.h` (little-endian: the key before the rw flags).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    data: u64,
    key: u32,
    rw_flags: i32,
    opcode: u16,
    reqprio: i16,
    fildes: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);
const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// One thread's AIO context.
struct Aio {
    ctx: libc::c_ulong,
    /// Each member's descriptor (one for a target of one path).
    fds: Vec<u32>,
    iocbs: Vec<Iocb>,
    /// Iocbs pushed and not yet taken by `io_submit`.
    pending: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
}

impl Aio {
    fn new(fds: &[i32], qd: usize) -> Result<Aio, EngineError> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the context id into `ctx`.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, qd as libc::c_long, &mut ctx) };
        if r < 0 {
            let e = errno();
            let hint = if e == libc::EAGAIN {
                " (the system's AIO limit, fs.aio-max-nr, is reached: raise it with sysctl, or lower --threads x --qd)"
            } else {
                ""
            };
            return Err(EngineError::io(
                "io_setup",
                std::io::Error::other(format!("{}{hint}", std::io::Error::from_raw_os_error(e))),
            ));
        }
        Ok(Aio {
            ctx,
            fds: fds.iter().map(|&f| f as u32).collect(),
            iocbs: vec![Iocb::default(); qd],
            pending: Vec::with_capacity(qd),
            events: vec![IoEvent::default(); qd],
        })
    }

    /// Submits every pending iocb it can; `Ok(false)` when the context is full.
    fn submit(&mut self) -> Result<bool, EngineError> {
        let mut off = 0;
        while off < self.pending.len() {
            // SAFETY: `pending` holds pointers into `iocbs`, which outlives the call.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    (self.pending.len() - off) as libc::c_long,
                    self.pending.as_mut_ptr().add(off),
                )
            };
            if r < 0 {
                match errno() {
                    libc::EINTR => continue,
                    libc::EAGAIN => break,
                    e => {
                        return Err(EngineError::io(
                            "io_submit",
                            std::io::Error::from_raw_os_error(e),
                        ))
                    }
                }
            }
            if r == 0 {
                break;
            }
            off += r as usize;
        }
        self.pending.drain(..off);
        Ok(self.pending.is_empty())
    }
}

impl Queue for Aio {
    #[inline]
    fn push(&mut self, io: &Io, member: usize, ptr: *mut u8, _index: usize, slot: usize) {
        self.iocbs[slot] = Iocb {
            data: slot as u64,
            opcode: if io.op == Op::Read {
                IOCB_CMD_PREAD
            } else {
                IOCB_CMD_PWRITE
            },
            fildes: self.fds[member],
            buf: ptr as u64,
            nbytes: io.len,
            offset: io.offset as i64,
            ..Iocb::default()
        };
        let p: *mut Iocb = &mut self.iocbs[slot];
        self.pending.push(p);
    }

    fn submit_and_reap(
        &mut self,
        _inflight: usize,
        wait_ns: Option<u64>,
        done: &mut Vec<Done>,
    ) -> Result<(), EngineError> {
        let all_in = self.submit()?;
        let mut ts = wait_ns.map(|ns| libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        });
        let tsp = ts
            .as_mut()
            .map_or(std::ptr::null_mut(), |t| t as *mut libc::timespec);
        // SAFETY: `events` has room for qd events, at most qd are in flight.
        let n = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                1 as libc::c_long,
                self.events.len() as libc::c_long,
                self.events.as_mut_ptr(),
                tsp,
            )
        };
        if n < 0 {
            match errno() {
                libc::EINTR => {}
                e => {
                    return Err(EngineError::io(
                        "io_getevents",
                        std::io::Error::from_raw_os_error(e),
                    ))
                }
            }
        }
        done.extend(
            self.events[..n.max(0) as usize]
                .iter()
                .map(|e| (e.data as usize, e.res)),
        );
        // What the full context refused goes in now that slots were reaped.
        if !all_in {
            self.submit()?;
        }
        Ok(())
    }
}

impl Drop for Aio {
    fn drop(&mut self) {
        // SAFETY: the context is ours; the loop drained it.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}

/// Runs one thread of a job on Linux AIO until its feed ends, then drains.
pub fn run_thread(
    ctx: &WorkerCtx<'_>,
    feed: &mut Feed,
    qd: u32,
    rec: &mut Recorder,
    ready: &mut crate::clock::Ready<'_>,
) -> Result<(), EngineError> {
    let fds = ctx.target.fds();
    crate::queued::run_thread(ctx, feed, qd, rec, ready, |_| Aio::new(&fds, qd as usize))
}
