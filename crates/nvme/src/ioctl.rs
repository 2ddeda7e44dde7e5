//! The raw kernel interface: `struct nvme_passthru_cmd64` and the passthrough ioctls, in the
//! kernel's own shape (`include/uapi/linux/nvme_ioctl.h`). Everything here is `unsafe`-free for
//! callers except [`submit`], which checks buffer lengths before handing pointers to the kernel.

use std::os::fd::RawFd;

/// `struct nvme_passthru_cmd64`, 80 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassthruCmd64 {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    pub metadata: u64,
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
    pub rsvd2: u32,
    pub result: u64,
}

const _: () = assert!(std::mem::size_of::<PassthruCmd64>() == 80);

/// `_IOWR('N', 0x47, struct nvme_passthru_cmd64)`.
pub const NVME_IOCTL_ADMIN64_CMD: u64 = ioc(3, b'N', 0x47, 80);
/// `_IOWR('N', 0x48, struct nvme_passthru_cmd64)`.
pub const NVME_IOCTL_IO64_CMD: u64 = ioc(3, b'N', 0x48, 80);
/// `_IO('N', 0x44)`: resets the controller (on its `/dev/nvmeX` node).
pub const NVME_IOCTL_RESET: u64 = ioc(0, b'N', 0x44, 0);
/// `_IOWR('N', 0x80, struct nvme_uring_cmd)`: an I/O command through io_uring's
/// `IORING_OP_URING_CMD` on a generic char device (Linux 5.19+).
pub const NVME_URING_CMD_IO: u32 = ioc(3, b'N', 0x80, URING_CMD_BYTES as u64) as u32;
/// `struct nvme_uring_cmd`: the first 72 bytes of [`PassthruCmd64`] (everything but
/// `result`, which the completion carries).
pub const URING_CMD_BYTES: usize = 72;

/// `cmd` as the 80-byte command area of a 128-byte SQE (`struct nvme_uring_cmd`, then
/// zeros), with `data`/`len` as its data buffer.
pub fn uring_cmd_bytes(cmd: &PassthruCmd64, data: *mut u8, len: u32) -> [u8; 80] {
    let mut c = *cmd;
    c.addr = data as u64;
    c.data_len = len;
    let mut out = [0u8; 80];
    // SAFETY: PassthruCmd64 is repr(C), 80 bytes, plain integers; its first 72 bytes are
    // struct nvme_uring_cmd's layout field for field.
    let raw = unsafe {
        std::slice::from_raw_parts((&c as *const PassthruCmd64).cast::<u8>(), URING_CMD_BYTES)
    };
    out[..URING_CMD_BYTES].copy_from_slice(raw);
    out
}

/// `_IO('N', 0x40)`: returns the namespace ID of a namespace device.
pub const NVME_IOCTL_ID: u64 = ioc(0, b'N', 0x40, 0);

const fn ioc(dir: u64, ty: u8, nr: u8, size: u64) -> u64 {
    (dir << 30) | (size << 16) | ((ty as u64) << 8) | nr as u64
}

/// Which queue a command goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queue {
    Admin,
    Io,
}

/// What the kernel said about one passthrough command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Completed with status 0; `result` is completion dword 0 (and 1).
    Ok { result: u64 },
    /// The controller completed the command with a non-zero status (SCT/SC, plus DNR/More bits).
    Status(u16),
}

/// Submits one command. `data` is the transfer buffer (either direction); its length becomes
/// `data_len`. Returns the ioctl's errno as an `io::Error` (e.g. EINVAL for a transfer above MDTS).
pub fn submit(
    fd: RawFd,
    queue: Queue,
    cmd: &mut PassthruCmd64,
    data: Option<&mut [u8]>,
) -> std::io::Result<Outcome> {
    match data {
        Some(buf) => {
            cmd.addr = buf.as_mut_ptr() as u64;
            cmd.data_len = u32::try_from(buf.len()).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "transfer above 4 GiB")
            })?;
        }
        None => {
            cmd.addr = 0;
            cmd.data_len = 0;
        }
    }
    cmd.metadata = 0;
    cmd.metadata_len = 0;
    let req = match queue {
        Queue::Admin => NVME_IOCTL_ADMIN64_CMD,
        Queue::Io => NVME_IOCTL_IO64_CMD,
    };
    // SAFETY: `cmd` is a valid, exclusively borrowed nvme_passthru_cmd64, and `addr`/`data_len`
    // describe a live, exclusively borrowed buffer (or are 0); the kernel reads and writes only
    // within them for the duration of the call.
    let rc = unsafe { libc::ioctl(fd, req as _, cmd as *mut PassthruCmd64) };
    cmd.addr = 0;
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if rc > 0 {
        return Ok(Outcome::Status(rc as u16));
    }
    Ok(Outcome::Ok { result: cmd.result })
}

/// Resets the controller whose `/dev/nvmeX` node `fd` is open (the kernel re-initialises it;
/// its namespaces stay).
pub fn reset_controller(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: NVME_IOCTL_RESET takes no argument.
    let rc = unsafe { libc::ioctl(fd, NVME_IOCTL_RESET as _) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The namespace ID of an open namespace device (block or generic char device).
pub fn namespace_id(fd: RawFd) -> std::io::Result<u32> {
    // SAFETY: NVME_IOCTL_ID takes no argument.
    let rc = unsafe { libc::ioctl(fd, NVME_IOCTL_ID as _) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(rc as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioctl_numbers_match_the_kernel() {
        assert_eq!(NVME_IOCTL_ADMIN64_CMD, 0xC050_4E47);
        assert_eq!(NVME_IOCTL_IO64_CMD, 0xC050_4E48);
        assert_eq!(NVME_IOCTL_ID, 0x4E40);
        assert_eq!(NVME_IOCTL_RESET, 0x4E44);
        // linux/nvme_ioctl.h: NVME_URING_CMD_IO, _IOWR('N', 0x80, struct nvme_uring_cmd).
        assert_eq!(NVME_URING_CMD_IO, 0xC048_4E80);
    }

    #[test]
    fn a_uring_cmd_is_the_passthru_command_without_its_result() {
        let c = crate::cmd::read(1, 0x1_0000_0002, 8);
        let mut buf = [0u8; 4096];
        let b = uring_cmd_bytes(&c, buf.as_mut_ptr(), 4096);
        assert_eq!(b[0], crate::cmd::io::READ);
        assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()), 1);
        assert_eq!(
            u64::from_le_bytes(b[24..32].try_into().unwrap()),
            buf.as_ptr() as u64
        );
        assert_eq!(u32::from_le_bytes(b[36..40].try_into().unwrap()), 4096);
        assert_eq!(u32::from_le_bytes(b[40..44].try_into().unwrap()), 2);
        assert_eq!(u32::from_le_bytes(b[44..48].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(b[48..52].try_into().unwrap()), 7);
        assert!(b[72..].iter().all(|&x| x == 0));
    }

    #[test]
    fn struct_layout_matches_the_kernel() {
        let c = PassthruCmd64::default();
        let base = &c as *const _ as usize;
        assert_eq!(&c.nsid as *const _ as usize - base, 4);
        assert_eq!(&c.metadata as *const _ as usize - base, 16);
        assert_eq!(&c.addr as *const _ as usize - base, 24);
        assert_eq!(&c.data_len as *const _ as usize - base, 36);
        assert_eq!(&c.cdw10 as *const _ as usize - base, 40);
        assert_eq!(&c.cdw15 as *const _ as usize - base, 60);
        assert_eq!(&c.timeout_ms as *const _ as usize - base, 64);
        assert_eq!(&c.result as *const _ as usize - base, 72);
    }
}
