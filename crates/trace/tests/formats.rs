//! Every format, written the way its tools write it, reads back to the same requests; bad
//! lines are reported with file, line and expectation; detection picks the right format.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use ssdiq_trace::{BlkAction, Format, TraceError, TraceOptions, TraceReader, TraceRecord};
use ssdiq_workload::Op;

const FORMATS: [Format; 6] = [
    Format::Blkparse(BlkAction::Issue),
    Format::FtraceBlk(BlkAction::Issue),
    Format::Msr,
    Format::Alibaba,
    Format::Spc,
    Format::Fiu,
];

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn read_all(opts: &TraceOptions) -> Result<(Vec<TraceRecord>, Vec<String>, Format), TraceError> {
    let mut r = TraceReader::open(opts)?;
    let mut out = Vec::new();
    let mut names = Vec::new();
    while let Some(rec) = r.next_record()? {
        names.push(r.device_name(rec.device));
        out.push(rec);
    }
    Ok((out, names, r.format()))
}

fn name(format: Format, k: u32) -> String {
    match format {
        Format::Msr => format!("hm,{k}"),
        Format::Alibaba | Format::Spc => k.to_string(),
        _ => format!("8,{}", k * 16),
    }
}

fn sample(format: Format) -> Vec<TraceRecord> {
    let trims = matches!(format, Format::Blkparse(_) | Format::FtraceBlk(_));
    (0..40u64)
        .map(|i| TraceRecord {
            time_ns: i * 1500 * 1000,
            device: common::device(format, (i % 3) as u32),
            op: match i % 5 {
                0 | 1 => Op::Read,
                4 if trims => Op::Trim,
                _ => Op::Write,
            },
            offset: (i * 7919 % 1000) * 4096,
            len: 4096 * (1 + i % 4),
        })
        .collect()
}

/// Records as a reader yields them: devices as names (MSR numbers them itself).
fn expected(format: Format, recs: &[TraceRecord]) -> Vec<(u64, Op, u64, u64, String)> {
    recs.iter()
        .map(|r| {
            let k = match format {
                Format::Fiu | Format::Blkparse(_) | Format::FtraceBlk(_) => {
                    (r.device & 0xfffff) / 16
                }
                _ => r.device,
            };
            (r.time_ns, r.op, r.offset, r.len, name(format, k))
        })
        .collect()
}

fn got(recs: &[TraceRecord], names: &[String]) -> Vec<(u64, Op, u64, u64, String)> {
    recs.iter()
        .zip(names)
        .map(|(r, n)| (r.time_ns, r.op, r.offset, r.len, n.clone()))
        .collect()
}

#[test]
fn every_format_reads_back_and_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    for format in FORMATS {
        let recs = sample(format);
        let p = write(
            dir.path(),
            &format!("{format}.trace"),
            &common::text(format, &recs),
        );
        let (back, names, detected) = read_all(&TraceOptions::new(&p)).unwrap();
        assert_eq!(detected, format, "detected format of {}", p.display());
        assert_eq!(got(&back, &names), expected(format, &recs), "{format}");
    }
}

#[test]
fn gzip_traces_read_like_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let recs = sample(Format::Msr);
    let p = dir.path().join("msr.csv.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&p).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(common::text(Format::Msr, &recs).as_bytes())
        .unwrap();
    gz.finish().unwrap();
    let (back, names, f) = read_all(&TraceOptions::new(&p)).unwrap();
    assert_eq!(f, Format::Msr);
    assert_eq!(got(&back, &names), expected(Format::Msr, &recs));
}

#[test]
fn a_bad_line_names_file_line_and_expectation() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(Format, &str, &str); 6] = [
        (
            Format::Msr,
            "128166372003061629,hm,0,Erase,0,4096,10",
            "Type is not Read or Write",
        ),
        (
            Format::Alibaba,
            "0,W,12x,4096,1577808000000147",
            "offset is not a whole number",
        ),
        (
            Format::Spc,
            "0,20941264,8192,W,soon",
            "Timestamp is not seconds",
        ),
        (
            Format::Fiu,
            "89966527251845 3255 nfsd 163495352 eight W 6 0",
            "size is not a whole number",
        ),
        (
            Format::Blkparse(BlkAction::Issue),
            "  8,0    3        1     0.000000000   697  D  WS 223490 x 8 [dd]",
            "SECTOR + COUNT",
        ),
        (
            Format::FtraceBlk(BlkAction::Issue),
            "   dd-1 [001] d..1.  2120.818942:   7,0    D  WS 0 + many [dd]",
            "has no \"SECTOR + COUNT\" (whole numbers)",
        ),
    ];
    for (format, bad, why) in cases {
        let recs = sample(format);
        let mut text = String::new();
        for (i, r) in recs.iter().take(2).enumerate() {
            text.push_str(&common::line(format, r, i as u64));
            text.push('\n');
        }
        text.push_str(bad);
        text.push('\n');
        let p = write(dir.path(), "bad.trace", &text);
        let opts = TraceOptions {
            format: Some(format),
            ..TraceOptions::new(&p)
        };
        let e = read_all(&opts).unwrap_err().to_string();
        assert!(
            e.contains(&format!("trace \"{}\" line 3:", p.display())),
            "{e}"
        );
        assert!(e.contains(why), "{format}: {e}");
        assert!(e.contains(format.layout()), "{e}");
        assert!(e.contains(bad.trim()), "{e}");
    }
}

#[test]
fn headers_comments_and_crlf_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let text = "device_id,opcode,offset,length,timestamp\r\n# a comment\r\n3,W,8192,4096,1000\r\n3,R,0,512,1010\r\n";
    let p = write(dir.path(), "ali.csv", text);
    let (recs, names, f) = read_all(&TraceOptions::new(&p)).unwrap();
    assert_eq!(f, Format::Alibaba);
    assert_eq!(recs.len(), 2);
    assert_eq!(names[0], "3");
    assert_eq!(
        (recs[1].time_ns, recs[1].offset, recs[1].len),
        (10_000, 0, 512)
    );
    // A header anywhere but first is a bad line.
    let p = write(
        dir.path(),
        "ali2.csv",
        "3,W,8192,4096,1000\ndevice_id,opcode,offset,length,timestamp\n",
    );
    let e = read_all(&TraceOptions::new(&p)).unwrap_err().to_string();
    assert!(e.contains("line 2"), "{e}");
}

#[test]
fn blkparse_summary_is_skipped_but_garbage_before_it_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let f = Format::Blkparse(BlkAction::Issue);
    let recs = sample(f);
    let mut text = common::text(f, &recs[..3]);
    let p = write(dir.path(), "ok.txt", &text);
    assert_eq!(read_all(&TraceOptions::new(&p)).unwrap().0.len(), 3);
    text.insert_str(0, "hello world\n");
    let p = write(dir.path(), "bad.txt", &text);
    let opts = TraceOptions {
        format: Some(f),
        ..TraceOptions::new(&p)
    };
    let e = read_all(&opts).unwrap_err().to_string();
    assert!(e.contains("line 1") && e.contains("MAJ,MIN"), "{e}");
}

#[test]
fn blktrace_events_other_than_the_chosen_one_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let f = Format::Blkparse(BlkAction::Issue);
    let text = "\
  8,0    0        1     0.000000000   697  Q  WS 100 + 8 [dd]
  8,0    0        2     0.000001000   697  G  WS 100 + 8 [dd]
  8,0    0        3     0.000002000   697  P   N [dd]
  8,0    0        4     0.000003000   697  U   N [dd] 1
  8,0    0        5     0.000004000   697  D  WS 100 + 8 [dd]
  8,0    0        6     0.000005000   697  D  FN [kworker/0:1H]
  8,0    0        7     0.000009000     0  C  WS 100 + 8 [0]
  8,0    0        8     0.000010000   697  A  WS 300 + 8 <- (8,1) 237
  8,0    0        9     0.000011000   697  D   N 0 (00 ..) [kworker]
  8,0    0       10     0.000012000   697  D  DS 4096 + 2048 [fstrim]
  8,0    0       11     0.000013000   697  D FWFS 500 + 16 [jbd2/sda1-8]
  8,0    0       12     0.000014000   697  m   N cfq697 insert_request
";
    let p = write(dir.path(), "ev.txt", text);
    let (recs, _, fmt) = read_all(&TraceOptions::new(&p)).unwrap();
    assert_eq!(fmt, f);
    let got: Vec<_> = recs
        .iter()
        .map(|r| (r.time_ns, r.op, r.offset, r.len))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, Op::Write, 100 * 512, 8 * 512),
            (8_000, Op::Trim, 4096 * 512, 2048 * 512),
            (9_000, Op::Write, 500 * 512, 16 * 512),
        ]
    );
    let q = TraceOptions {
        format: Some(Format::Blkparse(BlkAction::Queue)),
        ..TraceOptions::new(&p)
    };
    assert_eq!(read_all(&q).unwrap().0.len(), 1);
}

#[test]
fn a_device_filter_keeps_one_device_and_restarts_its_clock() {
    let dir = tempfile::tempdir().unwrap();
    let f = Format::Msr;
    let recs = sample(f);
    let p = write(dir.path(), "msr.csv", &common::text(f, &recs));
    let opts = TraceOptions {
        device: Some("hm,1".into()),
        ..TraceOptions::new(&p)
    };
    let (back, names, _) = read_all(&opts).unwrap();
    assert_eq!(back.len(), recs.iter().filter(|r| r.device == 1).count());
    assert!(names.iter().all(|n| n == "hm,1"));
    assert_eq!(back[0].time_ns, 0);
    assert_eq!(back[1].time_ns, recs[4].time_ns - recs[1].time_ns);
}

#[test]
fn detection_failures_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "empty.csv", "\n\n");
    let e = read_all(&TraceOptions::new(&p)).unwrap_err().to_string();
    assert!(e.contains("empty") && e.contains("--trace-format"), "{e}");
    let p = write(dir.path(), "junk.csv", "hello,world\n1,2,3\n");
    let e = read_all(&TraceOptions::new(&p)).unwrap_err().to_string();
    assert!(
        e.contains("cannot tell the format") && e.contains("junk.csv"),
        "{e}"
    );
    let p = dir.path().join("cap.blktrace.0");
    std::fs::write(&p, [0x07, 0x74, 0x61, 0x65, 0, 0, 0, 0]).unwrap();
    let e = read_all(&TraceOptions::new(&p)).unwrap_err().to_string();
    assert!(
        e.contains("binary blktrace") && e.contains("blkparse"),
        "{e}"
    );
    let e = read_all(&TraceOptions::new(dir.path().join("missing.csv"))).unwrap_err();
    assert!(e.is_input());
    assert!(e.to_string().contains("missing.csv"), "{e}");
}

fn arb_records(format: Format) -> impl Strategy<Value = Vec<TraceRecord>> {
    let trims = matches!(format, Format::Blkparse(_) | Format::FtraceBlk(_));
    prop::collection::vec(
        (0u64..5_000_000, 0u32..4, 0u8..3, 0u64..1 << 28, 1u64..2048),
        1..60,
    )
    .prop_map(move |v| {
        let mut t = 0;
        v.into_iter()
            .enumerate()
            .map(|(i, (dt, dev, op, sector, sectors))| {
                if i > 0 {
                    t += dt * 1000;
                }
                TraceRecord {
                    time_ns: t,
                    device: common::device(format, dev),
                    op: match op {
                        0 => Op::Read,
                        2 if trims => Op::Trim,
                        _ => Op::Write,
                    },
                    offset: sector * 512,
                    len: sectors * 512,
                }
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn random_traces_round_trip(recs in arb_records(Format::Alibaba), k in 0usize..6) {
        let format = FORMATS[k];
        let recs: Vec<TraceRecord> = recs
            .into_iter()
            .map(|r| TraceRecord {
                device: common::device(format, r.device),
                op: if r.op == Op::Trim && !matches!(format, Format::Blkparse(_) | Format::FtraceBlk(_)) { Op::Write } else { r.op },
                ..r
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "t", &common::text(format, &recs));
        let opts = TraceOptions { format: Some(format), ..TraceOptions::new(&p) };
        let (back, names, _) = read_all(&opts).unwrap();
        prop_assert_eq!(got(&back, &names), expected(format, &recs));
    }
}

#[test]
fn blkparse_lines_whose_numbers_outgrow_their_columns_read_the_same() {
    // Sequence numbers past 8 digits and times past 99999 s shift the columns: the general
    // path must read what the fixed-column one reads.
    let dir = tempfile::tempdir().unwrap();
    let f = Format::Blkparse(BlkAction::Issue);
    let recs = sample(f);
    let wide: String = common::text(f, &recs)
        .lines()
        .map(|l| {
            let mut fields: Vec<String> = l.split_whitespace().map(str::to_string).collect();
            if fields.len() > 6 && fields[0].contains(',') {
                fields[2] = format!("{}", 900_000_000 + fields[2].parse::<u64>().unwrap());
                fields[3] = format!("1{:0>15}", fields[3]);
            }
            fields.join("  ") + "\n"
        })
        .collect();
    let narrow = write(dir.path(), "narrow.txt", &common::text(f, &recs));
    let wide = write(dir.path(), "wide.txt", &wide);
    let (a, _, _) = read_all(&TraceOptions::new(&narrow)).unwrap();
    let (b, _, fb) = read_all(&TraceOptions::new(&wide)).unwrap();
    assert_eq!(fb, f);
    let strip = |v: Vec<TraceRecord>| -> Vec<_> {
        v.into_iter()
            .map(|r| (r.op, r.offset, r.len, r.device))
            .collect()
    };
    assert_eq!(strip(a), strip(b));
}
