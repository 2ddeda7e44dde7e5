//! Alibaba block traces: `device_id,opcode,offset,length,timestamp`, e.g.
//! `0,R,126703644672,4096,1577808000000147`: opcode R or W, bytes, microseconds.

use super::{bad, read_or_write, request, LineResult};
use crate::fields::{split, uint, whole};
use crate::format::Format;

const F: Format = Format::Alibaba;

#[inline]
pub fn parse(line: &[u8]) -> LineResult {
    let mut f = [&b""[..]; 6];
    let n = split(line, b',', &mut f);
    if n < 5 {
        return Err(bad(F, "the line", &format!("has {n} fields, not 5")));
    }
    let device = uint(f[0])
        .and_then(|d| u32::try_from(d).ok())
        .ok_or_else(|| bad(F, "device_id", "is not a whole number below 2^32"))?;
    let op = read_or_write(f[1]).ok_or_else(|| bad(F, "opcode", "is not R or W"))?;
    let offset = whole(f[2]).map_err(|w| bad(F, "offset", w))?;
    let len = whole(f[3]).map_err(|w| bad(F, "length", w))?;
    let us = whole(f[4]).map_err(|w| bad(F, "timestamp", w))?;
    let time_ns = us
        .checked_mul(1000)
        .ok_or_else(|| bad(F, "timestamp", "overflows nanoseconds"))?;
    request(F, time_ns, device, op, offset, len)
}
