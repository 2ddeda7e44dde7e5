//! The trace options `sim` and `io` share, and turning a trace error into the right exit.

use std::path::Path;

use ssdiq_trace::{Format, MapKind, TraceError, TraceOptions};

use crate::error::usage;

#[derive(clap::Args, Clone, Debug, Default)]
pub struct TraceFlags {
    /// Trace format (default: detected): blkparse, ftrace-blk, msr, alibaba, spc, fiu;
    /// blkparse:Q / blkparse:C take queue / completion events instead of issues (D).
    #[arg(long, requires = "trace", value_name = "FORMAT")]
    pub trace_format: Option<String>,
    /// Only this device of the trace, named as the file names it (8,0 / hm,0 / 3), or `all`
    /// for every device on one drive (a trace of several devices needs one of these).
    #[arg(long, requires = "trace", value_name = "DEVICE")]
    pub trace_device: Option<String>,
    /// How the trace's pages land on the target: compact (distinct pages packed in order of
    /// first touch), modulo (page mod target pages), direct (as they are; must fit).
    #[arg(long, requires = "trace", value_name = "MAP")]
    pub trace_map: Option<String>,
}

impl TraceFlags {
    pub fn options(&self, path: &Path) -> anyhow::Result<TraceOptions> {
        Ok(TraceOptions {
            path: path.to_path_buf(),
            format: parse_format(self.trace_format.as_deref())?,
            device: self.trace_device.clone(),
        })
    }

    pub fn map(&self, default: MapKind) -> anyhow::Result<MapKind> {
        match &self.trace_map {
            None => Ok(default),
            Some(m) => m.parse().map_err(usage),
        }
    }
}

pub fn parse_format(text: Option<&str>) -> anyhow::Result<Option<Format>> {
    text.map(|f| f.parse::<Format>().map_err(|e| usage(e.to_string())))
        .transpose()
}

/// Bad trace input is a usage error (exit 2); a failing disk is not.
pub fn trace_error(e: TraceError) -> anyhow::Error {
    if e.is_input() {
        usage(e.to_string())
    } else {
        e.into()
    }
}
