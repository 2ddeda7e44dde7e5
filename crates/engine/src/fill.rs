//! `--fill seq`: write the whole range once, sequentially, before the measured job, so a drive
//! is measured in a defined state (every LBA mapped) rather than fresh-out-of-box.
//!
//! Large sequential writes (1 MiB, or the block size if larger) with the job's data pattern;
//! progress goes to the caller's callback; the stop flag is honoured between writes.
//!
//! [`fill_holes`] is the layout fio does before reading a new file: only the holes of the
//! range are written (never data the file already holds), so a read job measures storage
//! rather than the kernel returning zeros for unallocated blocks.

use std::time::Instant;

use crate::buf::aligned_zeroed;
use crate::control::RunControl;
use crate::data::WriteData;
use crate::error::EngineError;
use crate::job::Job;
use crate::job_target::Target;
use crate::stats::FillInfo;

const CHUNK: u64 = 1 << 20;

/// Returns what was written; stops early (short `bytes`) if `ctl.stop` is set.
/// `data` is the job's own: with `--verify` the fill's blocks are stamped as the job's writes.
pub fn fill_seq(
    target: &Target,
    job: &Job,
    ctl: &RunControl<'_>,
    data: &WriteData,
) -> Result<FillInfo, EngineError> {
    write_ranges(target, job, ctl, &[(0, job.range_bytes)], false, data)
}

/// Writes the holes of the job's range when the target needs a layout; `None` when there was
/// nothing to write.
pub fn fill_holes(
    target: &Target,
    job: &Job,
    ctl: &RunControl<'_>,
) -> Result<Option<FillInfo>, EngineError> {
    if !target.needs_layout {
        return Ok(None);
    }
    let holes = target.holes(job.range_bytes);
    if holes.is_empty() {
        return Ok(None);
    }
    // Plain data, never a verify header: a read job's --verify names these blocks as never
    // written by a verifying job.
    let data = WriteData::new(job.data, job.seed);
    let info = write_ranges(target, job, ctl, &holes, true, &data)?;
    // The layout must be on storage before reads time it, also through the page cache.
    target
        .sync_data()
        .map_err(|e| EngineError::io("layout: sync", e))?;
    Ok(Some(info))
}

fn write_ranges(
    target: &Target,
    job: &Job,
    ctl: &RunControl<'_>,
    ranges: &[(u64, u64)],
    layout: bool,
    data: &WriteData,
) -> Result<FillInfo, EngineError> {
    let chunk = CHUNK.max(job.bs).next_multiple_of(job.bs);
    let mut buf = aligned_zeroed(chunk as usize);
    data.init(buf.as_mut_slice(), 0);
    let total: u64 = ranges.iter().map(|(a, b)| b - a).sum();
    let start = Instant::now();
    let mut done = 0u64;
    ctl.progress.fill(0, total);
    for &(from, to) in ranges {
        // O_DIRECT needs aligned offsets and lengths: widen to whole blocks.
        let align = job.bs.max(1);
        let mut off = from / align * align;
        let to = to.next_multiple_of(align).min(job.range_bytes);
        while off < to && !ctl.stopped() {
            let len = chunk.min(to - off) as usize;
            let stamp = data.before_write(&mut buf.as_mut_slice()[..len], off, 0);
            target.write_at(&buf.as_slice()[..len], off).map_err(|e| {
                let what = if layout { "layout" } else { "fill" };
                EngineError::io(format!("{what}: write at offset {off}"), e)
            })?;
            data.after_write(off, len as u64, stamp);
            off += len as u64;
            done += len as u64;
            ctl.progress.fill(done.min(total), total);
        }
    }
    Ok(FillInfo {
        bytes: done,
        seconds: start.elapsed().as_secs_f64(),
        layout,
    })
}
