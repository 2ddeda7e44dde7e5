//! FIU SyLab traces (homes, mail, web-vm): `ts pid process lba size op major minor md5`,
//! e.g. `89966527251845 3255 nfsd 163495352 8 W 6 0 8b5b...`: nanoseconds, 512-byte sectors
//! for both lba and size, R or W. Process names may contain blanks, so the fields after the
//! name are read from the right (the md5 column is optional).

use super::{bad, read_or_write, request, sectors, LineResult};
use crate::fields::{split_ws, whole};
use crate::format::Format;
use crate::record::major_minor;

const F: Format = Format::Fiu;

#[inline]
pub fn parse(line: &[u8]) -> LineResult {
    let mut f = [&b""[..]; 16];
    let n = split_ws(line, &mut f);
    let r = if n >= 9 && is_md5(f[n - 1]) { n - 1 } else { n };
    if r < 8 {
        return Err(bad(F, "the line", &format!("has {n} fields, not 9")));
    }
    let time_ns = whole(f[0]).map_err(|w| bad(F, "ts", w))?;
    whole(f[1]).map_err(|w| bad(F, "pid", w))?;
    let lba = whole(f[r - 5]).map_err(|w| bad(F, "lba", w))?;
    let size = whole(f[r - 4]).map_err(|w| bad(F, "size", w))?;
    let op = read_or_write(f[r - 3]).ok_or_else(|| bad(F, "op", "is not R or W"))?;
    let major = whole(f[r - 2]).map_err(|w| bad(F, "major", w))?;
    let minor = whole(f[r - 1]).map_err(|w| bad(F, "minor", w))?;
    let device =
        major_minor(major, minor).ok_or_else(|| bad(F, "major,minor", "is out of range"))?;
    request(
        F,
        time_ns,
        device,
        op,
        sectors(F, "lba", lba)?,
        sectors(F, "size", size)?,
    )
}

fn is_md5(f: &[u8]) -> bool {
    f.len() == 32 && f.iter().all(|b| b.is_ascii_hexdigit())
}
