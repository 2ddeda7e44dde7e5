//! `ssdiq info`: a drive's identity, capacity and formats, health, OCP media counters and FDP.

use std::path::PathBuf;
use std::process::ExitCode;

use ssdiq_nvme::NvmeError;

use crate::error::usage;
use crate::output::{check_outputs, write_json};
use ssdiq_emu::TargetSpec;

#[derive(clap::Args)]
#[command(
    about = "Show a drive's identity, health and OCP media counters",
    after_help = "Example:\n  ssdiq info /dev/nvme0n1 --json info.json\n\n\
TARGET is an NVMe namespace (/dev/nvme0n1), its generic node (/dev/ng0n1) or a controller\n\
(/dev/nvme0). Reading identify and log pages needs root (CAP_SYS_ADMIN). An emulated SSD\n\
(emu:default, emu:nosuspend,op=0.2, ...) shows its geometry, OP, profile and spec."
)]
pub struct Args {
    /// The drive: /dev/nvme0n1, /dev/ng0n1, /dev/nvme0, or emu:PROFILE[,key=value...].
    target: String,
    /// Write the report as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    if args.target == super::emu_info::LIST {
        if let Some(p) = &args.json {
            check_outputs(&[("--json", Some(p))], &[])?;
        }
        return super::emu_info::list(args.json.as_deref());
    }
    let spec = TargetSpec::parse(&args.target).map_err(|e| usage(e.to_string()))?;
    if let Some(p) = &args.json {
        check_outputs(&[("--json", Some(p))], &spec.inputs())?;
    }
    let path = match spec {
        TargetSpec::Emu { text, profile } => {
            return super::emu_info::main(&text, *profile, args.json.as_deref())
        }
        TargetSpec::Path(p) => p,
    };
    if !path.exists() {
        return Err(usage(format!("\"{}\": no such device", args.target)));
    }
    let report = ssdiq_nvme::info::from_device(&args.target, &path).map_err(|e| match e {
        NvmeError::NotNvme { .. } => usage(e.to_string()),
        e => anyhow::anyhow!(e),
    })?;
    print!("{}", ssdiq_report::info::text(&report));
    if let Some(p) = &args.json {
        let doc =
            serde_json::json!({"schema": ssdiq_schema::SCHEMA, "kind": "info", "info": report});
        write_json(p, &doc)?;
    }
    Ok(ExitCode::SUCCESS)
}
