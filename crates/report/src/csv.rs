//! The per-second time series of a run as CSV: one row per step, second and stream, in step
//! order. Columns are fixed; additions go at the end.

use std::fmt::Write;

use crate::model::RunResult;

pub const HEADER: &str = "step,t_s,stream,ios,bytes,iops,mb_s,lat_mean_ns,lat_p99_ns";

pub fn series(r: &RunResult) -> String {
    let mut s = String::from(HEADER);
    s.push('\n');
    for step in &r.steps {
        for p in &step.seconds {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{:.1},{:.3},{:.1},{}",
                step.name,
                p.t_s,
                p.stream,
                p.ios,
                p.bytes,
                p.iops,
                p.mb_s,
                p.lat_mean_ns,
                p.lat_p99_ns
            );
        }
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
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            series(&r),
            format!("{HEADER}\nseq_read,1.5,read,3,12288,3.0,0.012,10.0,20\n")
        );
    }
}
