//! The JSON shapes of the shared types, pinned: `ssdiq io` writes `OpSummary` without a CDF
//! and `JobSecond` per second; `ssdiq run` writes both through `run.json` (its whole document
//! is pinned by the report crate's golden `sample-run.json`).

use ssdiq_schema::{CdfPoint, JobSecond, LatencySummary, OpSummary};

fn op() -> OpSummary {
    OpSummary {
        ios: 3,
        bytes: 12288,
        iops: 1.5,
        mb_s: 0.006144,
        lat_ns: LatencySummary {
            mean: 1500.5,
            p50: 1000,
            p90: 2000,
            p99: 3000,
            p99_9: 4000,
            p99_99: 5000,
            p99_999: 6000,
            max: 7000,
        },
        over_1ms: 0.0,
        cdf: Vec::new(),
    }
}

#[test]
fn op_summary_without_cdf_keeps_the_io_shape() {
    assert_eq!(
        serde_json::to_string(&op()).unwrap(),
        r#"{"ios":3,"bytes":12288,"iops":1.5,"mb_s":0.006144,"lat_ns":{"mean":1500.5,"p50":1000,"p90":2000,"p99":3000,"p99.9":4000,"p99.99":5000,"p99.999":6000,"max":7000},"over_1ms":0.0}"#
    );
}

#[test]
fn op_summary_with_cdf_round_trips() {
    let mut o = op();
    o.cdf = vec![CdfPoint { p: 50.0, ns: 1000 }];
    let text = serde_json::to_string(&o).unwrap();
    assert!(text.ends_with(r#""over_1ms":0.0,"cdf":[{"p":50.0,"ns":1000}]}"#));
    assert_eq!(serde_json::from_str::<OpSummary>(&text).unwrap(), o);
}

#[test]
fn job_second_shape_and_csv_row_agree() {
    let p = JobSecond {
        second: 2,
        stream: "probe_read".into(),
        ios: 10,
        bytes: 40960,
        iops: 10.0,
        mb_s: 0.04096,
        lat_mean_ns: 80000.25,
        lat_p99_ns: 120000,
    };
    assert_eq!(
        serde_json::to_string(&p).unwrap(),
        r#"{"second":2,"stream":"probe_read","ios":10,"bytes":40960,"iops":10.0,"mb_s":0.04096,"lat_mean_ns":80000.25,"lat_p99_ns":120000}"#
    );
    let header: Vec<&str> = JobSecond::CSV_HEADER.split(',').collect();
    let row = p.csv_row();
    assert_eq!(header.len(), row.split(',').count());
    assert_eq!(row, "2,probe_read,10,40960,10.0,0.041,80000.2,120000");
}
