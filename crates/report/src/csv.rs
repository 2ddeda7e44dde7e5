//! The per-second time series of a run as CSV: one row per step, second and stream, in step
//! order. Columns are fixed; additions go at the end.

use std::fmt::Write;

use crate::model::RunResult;

pub const HEADER: &str =
    "step,t_s,stream,ios,bytes,iops,mb_s,lat_mean_ns,lat_p99_ns,span_s,partial,pass,stage,repetition";

/// One row per step, interval and stream. `t_s` is the interval's start from the step's
/// start, `span_s` its length; `partial` is 1 for an interval cut short by the end of a job
/// (its rates are over `span_s`).
pub fn series(r: &RunResult) -> String {
    let mut s = String::from(HEADER);
    s.push('\n');
    for step in &r.steps {
        let opt = |v: Option<u32>| v.map(|x| x.to_string()).unwrap_or_default();
        for p in &step.seconds {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{:.1},{:.3},{:.1},{},{},{},{},{},{}",
                step.name,
                p.t_s,
                p.stream,
                p.ios,
                p.bytes,
                p.iops,
                p.mb_s,
                p.lat_mean_ns,
                p.lat_p99_ns,
                p.span_s.map(|x| x.to_string()).unwrap_or_default(),
                p.partial as u8,
                opt(step.pass),
                step.stage.as_deref().unwrap_or(""),
                opt(step.repetition),
            );
        }
    }
    s
}

pub const DEVICE_HEADER: &str = "t_s,phase,host_bytes,media_bytes,temperature_c,throttling,free_blocks_pct,erase_count_min,erase_count_max,erase_count_avg,waf,waf_since_reset";

/// The device log (`device.csv`), one row per sample; empty cells where the drive does not
/// tell.
pub fn device(r: &RunResult) -> String {
    fn o<T: std::fmt::Display>(v: Option<T>) -> String {
        v.map(|x| x.to_string()).unwrap_or_default()
    }
    let mut s = String::from(DEVICE_HEADER);
    s.push('\n');
    for p in &r.device_log {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            p.t_s,
            p.phase.replace(',', ";"),
            o(p.host_bytes),
            o(p.media_bytes),
            o(p.temperature_c),
            o(p.throttling),
            o(p.free_blocks_pct.map(|x| format!("{x:.2}"))),
            o(p.erase_count_min),
            o(p.erase_count_max),
            o(p.erase_count_avg.map(|x| format!("{x:.3}"))),
            o(p.waf.map(|x| format!("{x:.4}"))),
            o(p.waf_since_reset.map(|x| format!("{x:.4}"))),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SecondPoint, StepResult};

    #[test]
    fn one_row_per_point() {
        let r = RunResult {
            steps: vec![StepResult {
                name: "seq_read".into(),
                seconds: vec![SecondPoint {
                    t_s: 1.5,
                    stream: "read".into(),
                    ios: 3,
                    bytes: 12288,
                    iops: 3.0,
                    mb_s: 0.012288,
                    lat_mean_ns: 10.0,
                    lat_p99_ns: 20,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            series(&r),
            format!("{HEADER}\nseq_read,1.5,read,3,12288,3.0,0.012,10.0,20,,0,,,\n")
        );
        let mut r = r;
        r.steps[0].seconds[0].span_s = Some(0.25);
        r.steps[0].seconds[0].partial = true;
        r.steps[0].pass = Some(2);
        r.steps[0].stage = Some("after".into());
        assert!(series(&r).ends_with(",20,0.25,1,2,after,\n"));
    }

    #[test]
    fn device_rows() {
        let r = RunResult {
            device_log: vec![crate::model::DeviceLogPoint {
                t_s: 2.0,
                phase: "pass 1 rand_write_uniform".into(),
                host_bytes: Some(100),
                media_bytes: Some(420),
                free_blocks_pct: Some(3.5),
                waf: Some(4.2),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            device(&r),
            format!("{DEVICE_HEADER}\n2,pass 1 rand_write_uniform,100,420,,,3.50,,,,4.2000,\n")
        );
    }
}
