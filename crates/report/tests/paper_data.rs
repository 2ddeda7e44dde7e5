//! The shipped reference data (`data/ssd-iq-paper.toml`, typed by hand) against the rows of
//! Tables 2 and 3 as they appear in the text of the SSD-iq paper (copied verbatim below,
//! tab-separated): every cell of every drive must agree.

use ssdiq_report::paper;
use ssdiq_report::DriveFigures;

/// Table 2 of the paper, verbatim (header row, then one row per line of the table).
const TABLE_2: [&str; 18] = [
    "\t\tSamsung PM9A3 s\tSK Hynix PE8110 h\tIntel D7-P5520 i\tWD Ultra. DC SN640 w\tMicron 7450 PRO m\tMicron 7450 MAX -\tSamsung PM1733 -\tKioxia CM7-R -\tAWS EC2 i4i.4xlarge -",
    "Capacity [GB]\t\t960\t960\t1920\t960\t960\t800\t3840\t3840\t3750",
    "Seq. Read [MB/s]\tSpec\t6500\t6500\t5300\t3330\t6800\t6800\t7000\t14000\t2800",
    "\t\t6696\t6564\t5236\t3083\t6700\t6732\t6973\t14312\t2844",
    "Seq. Write [MB/s]\tSpec\t1500\t1700\t1900\t1190\t1400\t1400\t3800\t6750\t-",
    "\t\t1441\t1731\t1957\t1189\t1393\t1391\t3538\t6746\t2258",
    "Rnd. Read [k IOPS]\tSpec\t580\t900\t700\t434\t530\t530\t1500\t2700\t400",
    "\t\t582\t1016\t731\t460\t549\t549\t1483\t2775\t393",
    "Rnd. Write [k IOPS]\tSpec\t70\t70\t114\t49\t85\t145\t135\t310\t220",
    "\tUnif\t71\t84\t118\t47\t94\t160\t146\t330\t146",
    "\tTwoZ\t67\t79\t129\t50\t85\t141\t134\t301\t134",
    "\tZipf\t67\t79\t117\t50\t84\t143\t133\t296\t133",
    "Read Lat. [us]\tSpec\t-\t75\t75\t78\t80\t80\t-\t-\t-",
    "\tunder load Avg\t62\t58\t61\t75\t66\t67\t59\t65\t126",
    "\tP99.9\t487\t521\t734\t471\t532\t485\t571\t1153\t1179",
    "Write Lat. [us]\tSpec\t-\t-\t15\t-\t15\t15\t-\t-\t-",
    "\tunder load Avg\t13\t11\t11\t17\t10\t10\t16\t8\t27",
    "\tP99.9\t17\t15\t178\t36\t10790\t9504\t131\t272\t715",
];

/// Table 3 of the paper, verbatim.
const TABLE_3: [&str; 6] = [
    "\t\tSamsung PM9A3\tSK Hynix PE8110\tIntel D7-P5520\tWD Ultra. DC SN640\tMicron 7450 PRO\tMicron 7450 MAX\tSamsung PM1733\tKioxia CM7-R\tAWS EC2 i4i.4xlarge",
    "OCP Support\t\tyes\tno\tyes\tno\tyes\tyes\tno\tyes\tno",
    "WA\tUnif\t4.2\t5.3\t3.5\t6.5\t3.2\t1.9\t6.2\t4.4\t4.0",
    "\tTwoZ\t4.5\t5.6\t3.4\t6.1\t3.4\t2.1\t6.7\t4.8\t4.3",
    "\tZipf\t4.5\t5.6\t3.6\t6.1\t3.5\t2.1\t6.8\t4.9\t4.3",
    "Estimated OP\t\t11.9%\t9.5%\t14.3%\t7.7%\t15.7%\t26.5%\t8.1%\t11.3%\t12.6%",
];

/// The nine cells of a row; "-" is `None`, "12.6%" is 12.6.
fn cells(row: &str) -> Vec<Option<f64>> {
    let cells: Vec<&str> = row.split('\t').skip(2).collect();
    assert_eq!(cells.len(), 9, "{row}");
    cells
        .iter()
        .map(|c| match *c {
            "-" => None,
            "yes" => Some(1.0),
            "no" => Some(0.0),
            c => Some(c.trim_end_matches('%').parse().unwrap()),
        })
        .collect()
}

fn wa(d: &DriveFigures) -> [Option<f64>; 3] {
    let w = if d.media_counters == Some(true) {
        &d.wa_measured
    } else {
        &d.wa_implied
    };
    [w.unif, w.twoz, w.zipf]
}

#[test]
fn every_cell_matches_the_paper() {
    let r = paper::reference("ssd-iq").unwrap();
    assert_eq!(r.drives.len(), 9);
    let header: Vec<&str> = TABLE_3[0].split('\t').skip(2).collect();
    let names: Vec<&str> = r.drives.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, header, "drive names and order as in Table 3");
    type Pick = fn(&DriveFigures) -> Option<f64>;
    let table2: [(usize, Pick); 17] = [
        (1, |d| d.capacity_gb),
        (2, |d| d.spec.seq_read_mb_s),
        (3, |d| d.seq_read_mb_s),
        (4, |d| d.spec.seq_write_mb_s),
        (5, |d| d.seq_write_mb_s),
        (6, |d| d.spec.rand_read_kiops),
        (7, |d| d.rand_read_kiops),
        (8, |d| d.spec.rand_write_kiops),
        (9, |d| d.rand_write_kiops.unif),
        (10, |d| d.rand_write_kiops.twoz),
        (11, |d| d.rand_write_kiops.zipf),
        (12, |d| d.spec.read_lat_us),
        (13, |d| d.read_lat_us.avg),
        (14, |d| d.read_lat_us.p999),
        (15, |d| d.spec.write_lat_us),
        (16, |d| d.write_lat_us.avg),
        (17, |d| d.write_lat_us.p999),
    ];
    let table3: [(usize, Pick); 5] = [
        (1, |d| d.media_counters.map(|m| m as u8 as f64)),
        (2, |d| wa(d)[0]),
        (3, |d| wa(d)[1]),
        (4, |d| wa(d)[2]),
        (5, |d| d.op_formula.map(|o| (o * 1000.0).round() / 10.0)),
    ];
    for (table, rows) in [(&TABLE_2[..], &table2[..]), (&TABLE_3[..], &table3[..])] {
        for &(row, pick) in rows {
            let want = cells(table[row]);
            let got: Vec<Option<f64>> = r.drives.iter().map(pick).collect();
            assert_eq!(got, want, "row {row}: {}", table[row]);
        }
    }
}

#[test]
fn the_paper_op_estimate_is_its_one_over_twice_the_uniform_wa() {
    // Paper §4.6: OP ~ 1/(2 WA_uniform); the published estimates follow it to the rounding
    // of the published WA (one decimal).
    for d in paper::reference("ssd-iq").unwrap().drives {
        let w = wa(&d)[0].unwrap();
        let op = d.op_formula.unwrap();
        let (lo, hi) = (1.0 / (2.0 * (w + 0.05)), 1.0 / (2.0 * (w - 0.05)));
        assert!(
            op >= lo - 5e-4 && op <= hi + 5e-4,
            "{}: {op} for WA {w}",
            d.name
        );
    }
    assert!(paper::reference("no-such-paper").is_none());
}
