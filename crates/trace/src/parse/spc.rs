//! SPC traces (UMass repository, e.g. Financial1.spc): `ASU,LBA,Size,Opcode,Timestamp[,...]`,
//! e.g. `0,303567,3584,w,0.000000`: 512-byte LBAs, size in bytes, r or w, seconds. Each ASU
//! (application storage unit) is its own address space, so it is the device.

use super::{bad, read_or_write, request, sectors, LineResult};
use crate::fields::{seconds_ns, split, uint, whole};
use crate::format::Format;

const F: Format = Format::Spc;

#[inline]
pub fn parse(line: &[u8]) -> LineResult {
    let mut f = [&b""[..]; 6];
    let n = split(line, b',', &mut f);
    if n < 5 {
        return Err(bad(F, "the line", &format!("has {n} fields, not 5")));
    }
    let asu = uint(f[0])
        .and_then(|d| u32::try_from(d).ok())
        .ok_or_else(|| bad(F, "ASU", "is not a whole number below 2^32"))?;
    let lba = whole(f[1]).map_err(|w| bad(F, "LBA", w))?;
    let len = whole(f[2]).map_err(|w| bad(F, "Size", w))?;
    let op = read_or_write(f[3]).ok_or_else(|| bad(F, "Opcode", "is not r or w"))?;
    // Fields after the timestamp (some SPC files have them) land in f[5] and are ignored.
    let time_ns = seconds_ns(f[4]).ok_or_else(|| bad(F, "Timestamp", "is not seconds"))?;
    request(F, time_ns, asu, op, sectors(F, "LBA", lba)?, len)
}
