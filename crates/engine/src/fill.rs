//! `--fill seq`: write the whole range once, sequentially, before the measured job, so a drive
//! is measured in a defined state (every LBA mapped) rather than fresh-out-of-box.
//!
//! Large sequential writes (1 MiB, or the block size if larger) with the job's data pattern;
//! progress goes to the caller's callback; the stop flag is honoured between writes.

use std::os::unix::fs::FileExt;
use std::time::Instant;

use crate::buf::AlignedBuf;
use crate::control::RunControl;
use crate::data::WriteData;
use crate::error::EngineError;
use crate::job::Job;
use crate::stats::FillInfo;
use crate::target::Target;

const CHUNK: u64 = 1 << 20;

/// Returns what was written; stops early (short `bytes`) if `ctl.stop` is set.
pub fn fill_seq(target: &Target, job: &Job, ctl: &RunControl<'_>) -> Result<FillInfo, EngineError> {
    let chunk = CHUNK.max(job.bs).next_multiple_of(job.bs);
    let mut buf = AlignedBuf::new(chunk as usize);
    let data = WriteData::new(job.data, job.seed);
    data.init(buf.as_mut_slice(), 0);
    let total = job.range_bytes;
    let start = Instant::now();
    let mut off = 0u64;
    ctl.progress.fill(0, total);
    while off < total && !ctl.stopped() {
        let len = chunk.min(total - off) as usize;
        data.before_write(&mut buf.as_mut_slice()[..len], off, 0);
        target
            .file
            .write_all_at(&buf.as_slice()[..len], off)
            .map_err(|e| EngineError::io(format!("fill: write at offset {off}"), e))?;
        off += len as u64;
        ctl.progress.fill(off, total);
    }
    Ok(FillInfo {
        bytes: off,
        seconds: start.elapsed().as_secs_f64(),
    })
}
