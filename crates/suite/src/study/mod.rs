//! Studies: the papers' experiments beyond Tables 2 and 3, each a named sweep of points on one
//! target (`ssdiq study NAME`). A study resets the drive for every configuration that needs a
//! known state, measures each point with engine jobs and the drive's write counters, and
//! concludes in numbers (`result`) and in words (`findings`).
//!
//! Invariants:
//! - Nothing here prints; progress goes to the [`Observer`], one phase per point.
//! - A stop request ends the study after the running job drains; the document keeps every
//!   finished point and says `partial`. An error does the same and names itself.
//! - Same seed, same target: same points (every job's seed derives from the study's).

mod bench;
mod concurrency;
mod controller_reset;
mod empty_full;
mod ftl_reads;
mod ftl_writes;
mod gc_unit;
mod io_scheduler;
mod latency_load;
mod pts;
mod readonly;
mod scheduler;
mod skew;
mod streams;
mod sweep;
mod variance;
mod wa;
mod write_over_time;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use ssdiq_schema::{StudyChart, StudyDoc, StudyDots, StudyPoint, SCHEMA};

pub use bench::Bench;
pub use gc_unit::{candidates as gc_unit_candidates, TOLERANCE as GC_UNIT_TOLERANCE};

use crate::observe::Observer;
use crate::target::{SuiteError, SuiteTarget};

/// How a study measures its points.
type Procedure = fn(&mut Bench<'_>, &StudyOptions) -> Result<(), SuiteError>;
/// How a study concludes from its points, in numbers and in words.
type Conclude = fn(&[StudyPoint]) -> (BTreeMap<String, f64>, Vec<String>);

/// A study of the catalogue.
pub struct Study {
    pub name: &'static str,
    pub title: &'static str,
    pub source: &'static str,
    pub x_axis: &'static str,
    pub method: &'static str,
    run: Procedure,
    conclude: Conclude,
    /// The charts of its page, drawn from its points.
    pub charts: &'static [StudyChart],
    /// Its dot charts (studies whose points are tests).
    pub dots: &'static [StudyDots],
}

impl Study {
    /// Whether the study reads `--spec-rand-write` (the 100% of latency-load's loads).
    pub fn takes_spec_rand_write(&self) -> bool {
        self.name == "latency-load"
    }

    /// Whether the study reads `--max-load` and `--relative-to`.
    pub fn takes_load_levels(&self) -> bool {
        self.name == "latency-load"
    }

    /// Whether the study reads `--pts-cell` (a SNIA PTS test period).
    pub fn takes_pts_cell(&self) -> bool {
        self.name.starts_with("pts-")
    }
}

/// The one metric of the WAF charts.
const WAF: &[(&str, &str)] = &[("waf", "WAF")];

pub const STUDIES: &[Study] = &[
    Study {
        name: "skew",
        title: "Steady write amplification against the skew of random writes",
        source: "SSD-iq: Uncovering the Hidden Side of SSD Performance, Figures 3a and 4a",
        x_axis: "two-zone: share of writes to the hot zone [%]; Zipf: theta",
        method: "Per point: reset, one sequential fill (512 KiB, QD 4), 4 KiB random writes at QD 32 with the pattern for a warm-up (2 drive writes; quick: 1), then WAF = media bytes / host bytes over one more drive write (quick: 0.5).",
        run: |b, _| skew::run(b),
        conclude: skew::conclude,
        charts: &[
            StudyChart::new("WAF against two-zone skew", Some("two-zone"), WAF, "share of writes to the hot zone [%] (50 = uniform)", false, "WAF (steady)", false,
              "Two-zone W/S: W% of the random writes go to S% of the drive (scrambled). The paper's Figure 3a: naive greedy GC gains little from skew; a drive that separates hot from cold data gains much."),
            StudyChart::new("WAF against Zipf skew", Some("zipf"), WAF, "Zipf theta (0 = uniform)", false, "WAF (steady)", false,
              "Random writes with Zipf-distributed page popularity (the paper's Figure 4a).")
        ],
        dots: &[],
    },
    Study {
        name: "readonly",
        title: "Write amplification against the share of data never rewritten",
        source: "SSD-iq: Uncovering the Hidden Side of SSD Performance, read-only area experiment",
        x_axis: "share of the drive written once and never again [%]",
        method: "Per point: reset, one sequential fill, then uniform 4 KiB random writes (QD 32) to the rest of the drive, as the paper's artifact writes them (benchwa.sh): 7 drive writes (5 with no or 90% read-only data), WAF over 60-90% of them, as its paper.R averages Figure 5's runs (quick: WAF over 1-1.5 drive writes). Not a steady state: cold data that GC never picks moves only when the drive's static wear levelling moves it.",
        run: |b, _| readonly::run(b),
        conclude: readonly::conclude,
        charts: &[StudyChart::new("WAF against the read-only share", None, WAF, "share of the drive written once, never again [%]", false, "WAF", false,
            "The rest of the drive takes uniform random writes. If the drive kept the cold data apart, the read-only share would act as extra over-provisioning.")
        ],
        dots: &[],
    },
    Study {
        name: "gc-unit",
        title: "The drive's GC unit: the smallest zone size at which ZNS-like writes reach WAF 1",
        source: "SSD-iq: Uncovering the Hidden Side of SSD Performance, ZNS-like workload and multiple writers, Figure 6",
        x_axis: "zone size [MiB]",
        method: "Per point: reset, zones written sequentially (128 KiB, QD 4), each trimmed whole before it is rewritten, next zone at random; warm-up of 2 drive writes, WAF over one more, every job a whole number of zones. Zone sizes from 1 MiB in 1 MiB steps to 64 MiB, then doubling; the first with WAF <= 1.01 that twice the size and the apart order (zones written one after the other rewritten half a round apart, whole rounds) confirm starts the answer, and the GC unit is where the apart order's WAF stops falling from there. Full length (not --quick): then 2, 4, 8 zones open at twice the unit.",
        run: |b, _| gc_unit::run(b),
        conclude: gc_unit::conclude,
        charts: &[StudyChart::new("WAF against zone size", None, WAF, "zone size [MiB]", true, "WAF (steady)", false,
            "ZNS-like writes: zones written sequentially, each trimmed before it is rewritten. WAF reaches 1 once zones cover whole GC units; several open zones interleave in the drive's units and raise it again (Figure 6b). With neighbours apart: the check that a size is a whole unit, which a drive's spare space cannot pass for a part of one.")
        ],
        dots: &[],
    },
    Study {
        name: "latency-load",
        title: "Latency against write load",
        source: "SSD-iq: Uncovering the Hidden Side of SSD Performance, Figure 8",
        x_axis: "write load [% of the drive's random-write IOPS]",
        method: "Reset, fill, uniform 4 KiB random writes for a warm-up (1 drive write; quick: 0.5); then, unmeasured, 40 s (quick: 4 s) at the first level's rate, so that what the warm-up left in the write buffer and owed to GC is paid before anything is measured; then per load level 20 s (quick: 2 s) of 4 KiB random writes as Poisson arrivals at the level's rate (up to 256 in flight), with read and write probes beside them (open-loop, 1% of the full rate each, up to 64 in flight). 100% is the datasheet's random-write IOPS (--spec-rand-write, or the profile's), else, or with --relative-to own, the warm-up's measured rate; levels go to 100%, or to --max-load (up to 200%). The knee is the first level the drive does not keep up with: it completes less than 95% of the offered writes, or their average latency is over 10x that of the lowest level.",
        run: |b, o| {
            latency_load::run(
                b,
                latency_load::Levels {
                    spec_iops: o.spec_rand_write_iops,
                    max_percent: o.max_load_percent.unwrap_or(100.0),
                    own: o.load_relative_to_own,
                },
            )
        },
        conclude: latency_load::conclude,
        charts: &[
            StudyChart::new("Write latency against load", Some("write load"), &[("write_avg_us", "average"), ("write_p99_us", "P99"), ("write_p99999_us", "P99.999")], "write load [% of the random-write IOPS]", false, "latency [us]", true,
              "Latency of the load's own 4 KiB random writes (Poisson arrivals, timed from arrival), as in the paper's Figure 8."),
            StudyChart::new("Read latency against write load", Some("write load"), &[("read_probe_avg_us", "average"), ("read_probe_p99_us", "P99"), ("read_probe_p99999_us", "P99.999")], "write load [% of the random-write IOPS]", false, "latency [us]", true,
              "A QD 1 read probe beside the write load.")
        ],
        dots: &[],
    },
    Study {
        name: "streams",
        title: "Steady write amplification of interleaved sequential write streams",
        source: "SSD-iq: Uncovering the Hidden Side of SSD Performance, section 4.7 \"Sequential writes aren't enough\"; the artifact's benchslow",
        x_axis: "sequential write streams",
        method: "Per point: reset, one sequential fill, then 4 KiB writes at QD 32 from N sequential streams over equal regions of the drive, interleaved at random with weights 1, 1.2, 1.4, ... (pattern streams:N): a warm-up of 2 drive writes (quick: 1), then WAF over one more drive write (quick: 0.5). Last, uniform random writes the same way, as the reference.",
        run: |b, _| streams::run(b),
        conclude: streams::conclude,
        charts: &[StudyChart::new("WAF against the number of sequential streams", None, WAF, "sequential write streams", true, "WAF (steady)", false,
            "Every write belongs to a sequential stream; the streams are interleaved at random (weights 1, 1.2, 1.4, ...). The dot on the right is uniform random writes. A drive that kept the streams apart would stay at WAF 1.")
        ],
        dots: &[],
    },
    Study {
        name: "concurrency",
        title: "Sequential and random reads against the number of concurrent jobs",
        source: "On the Impact of I/O Access Patterns on SSD Storage, section 4.3 and Figure 4",
        x_axis: "concurrent jobs",
        method: "Reset and fill once; then per block size (4, 16, 64 KiB; quick: 4 KiB) sequential and random reads by 1 to 32 jobs (quick: 1, 4, 16), each job one thread at QD 1 on its own region of the drive (an equal share), 5 s per point (quick: 0.5 s).",
        run: |b, _| concurrency::run(b),
        conclude: concurrency::conclude,
        charts: &[
            StudyChart::new("Read throughput against concurrent jobs", None, &[("mb_s", "MB/s")], "concurrent jobs (QD 1 each, own region)", true, "MB/s", false,
              "The paper's Figure 4: with one process, random reads of small blocks lag far behind sequential ones; more concurrent processes close the gap."),
            StudyChart::new("Mean read latency against concurrent jobs", None, &[("avg_us", "mean")], "concurrent jobs (QD 1 each, own region)", true, "latency [us]", true, "")
        ],
        dots: &[],
    },
    Study {
        name: "io-scheduler",
        title: "Sequential and random reads under each Linux I/O scheduler",
        source: "On the Impact of I/O Access Patterns on SSD Storage, section 4.2 and Figure 3",
        x_axis: "request size [KiB]",
        method: "Block devices only. Reset and fill once; then for each scheduler the device offers (sysfs queue/scheduler: none, mq-deadline, kyber, bfq, ...) sequential and random reads by one thread at QD 1, request sizes 4 to 128 KiB (quick: 4 and 64 KiB), 5 s per point (quick: 0.5 s). The device's scheduler is restored afterwards.",
        run: |b, _| io_scheduler::run(b),
        conclude: io_scheduler::conclude,
        charts: &[
            StudyChart::new("Read throughput against request size, per I/O scheduler", None, &[("mb_s", "MB/s")], "request size [KiB]", true, "MB/s", false,
              "One thread at QD 1 (the paper's Figure 3): the scheduler has nothing to merge or reorder, so the lines of a pattern should lie on one another.")
        ],
        dots: &[],
    },
    Study {
        name: "empty-full",
        title: "The access-pattern set on an empty and on a full drive",
        source: "Database-centric SSD measurements (the db-centric paper), Figures 1 and 2, \"Slower when full?\"",
        x_axis: "test (pattern, operation, request size)",
        method: "Empty: reset, then a test file (1 GiB, or a quarter of a smaller drive) at the start of the drive written sequentially. Sequential, random (each page once) and skip-sequential (each page skipped with probability 0.5) reads and writes of 4 KiB and 32 KiB (quick: 4 KiB) on the test file, one thread at QD 1, each one pass of the file or 5 s (quick: 0.5 s), whichever ends first. Full: the whole drive written sequentially, then the same tests.",
        run: |b, _| empty_full::run(b),
        conclude: empty_full::conclude,
        charts: &[],
        dots: &[
            StudyDots { title: "Throughput per test, empty and full drive", key: "mb_s", axis: "MB/s", caption: "One thread at QD 1 on the test file. The paper found no significant difference between an empty and a full drive." },
            StudyDots { title: "Mean latency per test, empty and full drive", key: "avg_us", axis: "latency [us]", caption: "" },
        ],
    },
    Study {
        name: "variance",
        title: "Run-to-run variance of random reads and writes",
        source: "Database-centric SSD measurements (the db-centric paper), section 6 (variance of write latency)",
        x_axis: "run",
        method: "Five runs (quick: three), each: reset, sequential fill, 4 KiB random reads at QD 32 for 5 s (quick: 0.5 s), then 4 KiB random writes at QD 32 for one drive write (quick: 0.5), every job with a new random stream. Per metric: mean, range and coefficient of variation over the runs; within each run, the slowest write against the median.",
        run: |b, _| variance::run(b),
        conclude: variance::conclude,
        charts: &[
            StudyChart::new("IOPS of each run", None, &[("kiops", "kIOPS")], "run", false, "kIOPS", false,
              "Each run starts from a reset and a fill, with a new random stream."),
            StudyChart::new("P99 latency of each run", None, &[("p99_us", "P99")], "run", false, "latency [us]", true, ""),
            StudyChart::new("WAF of each run", Some("randwrite 4KiB"), WAF, "run", false, "WAF", false,
              "One drive write of random writes after the fill (not steady state: the transition is part of it).")
        ],
        dots: &[],
    },
    Study {
        name: "parallelism",
        title: "Sequential read IOPS against queues, queue depth and read size",
        source: "What does the Flash Translation Layer do? (thesis), sections 3.3.1 and 5.1",
        x_axis: "queue depth (per queue)",
        method: "Reset and fill once; sequential reads of 1, 2, 3, 4 logical blocks (4 KiB; 512 B on emu:970evoplus, as on the thesis's Samsung) by 1, 2, 4 queues (one thread each, its own region) at QD 1, 2, 4, 8, 16, 64 per queue, 1 s each (quick: 1 and 4 queues, 1 and 4 blocks, QD 1, 8, 64, 0.25 s).",
        run: |b, _| ftl_reads::run_parallelism(b),
        conclude: ftl_reads::conclude_parallelism,
        charts: &[
            StudyChart::new("Sequential read IOPS against queue depth", None, &[("kiops", "kIOPS")], "queue depth (per queue)", true, "kIOPS", true,
              "The paper's Figure 5.4: IOPS scale with the queue depth, hardly with the number of queues.")
        ],
        dots: &[],
    },
    Study {
        name: "locality",
        title: "Sequential against shuffled reads, power-of-two read sizes",
        source: "What does the Flash Translation Layer do? (thesis), sections 3.3.2 and 5.7",
        x_axis: "read size [KiB]",
        method: "Reset and fill once; reads of an 8 GiB section at the start of the drive (half of a smaller drive), sequentially and in a shuffled order (every request once per pass), every power of two from the logical block to 1 MiB (quick: the logical block, 4 KiB, 64 KiB, 1 MiB), QD 1, 1 s each (quick: 0.25 s).",
        run: |b, _| ftl_reads::run_locality(b),
        conclude: ftl_reads::conclude_locality,
        charts: &[
            StudyChart::new("Sequential and shuffled reads against read size", None, &[("mb_s", "MB/s")], "read size [KiB]", true, "MB/s", true,
              "QD 1 over the same section; the paper measured sequential reads 10x faster than shuffled ones on its drives.")
        ],
        dots: &[],
    },
    Study {
        name: "permuted",
        title: "Reads permuted within small windows (does the drive reorder its queue)",
        source: "What does the Flash Translation Layer do? (thesis), sections 3.3.3 and 5.8",
        x_axis: "shuffle window [blocks] (QD = twice the window)",
        method: "Reset and fill once; one-block reads of the section of locality, sequential, permuted within consecutive windows of 2, 4, 8 requests (pattern window:N; quick: 2, 8), and shuffled, each at QD twice the window, 1 s each (quick: 0.25 s). A drive that reorders its queue reads permuted sequences as fast as sequential ones.",
        run: |b, _| ftl_reads::run_permuted(b),
        conclude: ftl_reads::conclude_permuted,
        charts: &[
            StudyChart::new("Sequential, permuted and shuffled one-block reads", None, &[("kiops", "kIOPS")], "shuffle window [blocks] (QD = twice the window)", true, "kIOPS", false,
              "Permuted: sequential order shuffled within each window; if the drive reordered its queue, permuted reads would run as fast as sequential ones.")
        ],
        dots: &[],
    },
    Study {
        name: "alignment",
        title: "Sequential reads offset from the drive's alignment",
        source: "What does the Flash Translation Layer do? (thesis), sections 3.3.4 and 5.5",
        x_axis: "offset [KiB]",
        method: "Reset and fill once; sequential 1 MiB reads at QD 64, aligned and offset by every power of two from the logical block (4 KiB on most emulated drives, 512 B on many real ones) to 512 KiB (quick: three offsets), 1 s each (quick: 0.25 s).",
        run: |b, _| ftl_reads::run_alignment(b),
        conclude: ftl_reads::conclude_alignment,
        charts: &[
            StudyChart::new("1 MiB sequential reads against their offset", None, &[("mb_s", "MB/s")], "offset [KiB]", true, "MB/s", false,
              "QD 64. An offset read spans one more flash page than an aligned one; the dot is the aligned reads.")
        ],
        dots: &[],
    },
    Study {
        name: "random-fill",
        title: "Filling the drive in a random order, one block at a time",
        source: "What does the Flash Translation Layer do? (thesis), sections 3.3.5, 5.2 and 5.9",
        x_axis: "share of the drive written [%]",
        method: "Reset; every 4 KiB block of the drive written exactly once in a random order at QD 1; throughput of every 5% of the drive and the share of requests over 1 ms; a minute idle, then sequential reads of one logical block (the drive's sector size) at QD 64 for 2 s (the reads of the thesis's §5.1, read size 1 block, which its §5.2 repeats on a randomly written drive); then reset, a sequential fill (512 KiB, QD 4) and its reads the same way, as the reference. --quick shortens only the idle time and the reads (to a tenth): the fill is the experiment.",
        run: |b, _| ftl_writes::run_random_fill(b),
        conclude: ftl_writes::conclude_random_fill,
        charts: &[
            StudyChart::new("Fill throughput against the share of the drive written", None, &[("mb_s", "MB/s")], "share of the drive written [%]", false, "MB/s", true,
              "Each point: the throughput of that 5% of the drive.")
        ],
        dots: &[
            StudyDots { title: "Sequential one-block reads at QD 64 after each fill", key: "read_kiops", axis: "kIOPS", caption: "After a minute idle. The thesis (§5.2) found a random fill slowed the DRAM-less drives' reads, not the Samsung's or the Optane's." },
        ],
    },
    Study {
        name: "write-over-time",
        title: "Sequential write throughput of a fresh drive as it fills (the SLC cache's size)",
        source: "What does the Flash Translation Layer do? (thesis), section 5.4 and Figure 5.9",
        x_axis: "share of the drive written [%]",
        method: "Reset; the whole drive written once sequentially, 1 MiB requests at QD 64; throughput of every 0.5% of the drive. The fall: the first 0.5% below 3/4 of the throughput so far (the first 1%, which a DRAM buffer may take at link speed, left out), with the rest of the write below that too; placed within its 0.5% by the speeds before and after. --quick changes nothing: the write is the experiment.",
        run: |b, _| write_over_time::run(b),
        conclude: write_over_time::conclude,
        charts: &[
            StudyChart::new("Sequential write throughput against the share of the drive written", None, &[("mb_s", "MB/s")], "share of the drive written [%]", false, "MB/s", false,
              "A fresh drive, 1 MiB writes at QD 64; each point: the throughput of that 0.5% of the drive. The thesis's drives fell after about 5%, 15% and 5% (their SLC caches); its Optane did not.")
        ],
        dots: &[],
    },
    Study {
        name: "data-dependence",
        title: "Write speed against the data written",
        source: "What does the Flash Translation Layer do? (thesis), sections 3.3.6 and 5.10",
        x_axis: "test (data written)",
        method: "Per test: reset (and, for the full drive, a sequential fill), then sequential 128 KiB writes at QD 64 for one drive write or 5 s (quick: 0.5 s), whichever ends first, of all-zero, all-one, 0xaa and LBA-stamped data (each 512-byte sector starts with its LBA), and the write-zeroes command.",
        run: |b, _| ftl_writes::run_data_dependence(b),
        conclude: ftl_writes::conclude_data_dependence,
        charts: &[],
        dots: &[
            StudyDots { title: "Sequential write throughput per data pattern", key: "mb_s", axis: "MB/s", caption: "128 KiB writes at QD 64; the paper found the data written made no difference, and write-zeroes fast on most drives." },
        ],
    },
    Study {
        name: "controller-reset",
        title: "The same random reads before and after a controller reset (does it clear caches)",
        source: "What does the Flash Translation Layer do? (thesis), sections 3.4 and 5.6",
        x_axis: "run",
        method: "NVMe namespaces only. Reset and fill; three runs of the same 200,000 random 4 KiB reads at QD 1 (quick: 20,000), timed; the controller is reset (NVME_IOCTL_RESET on /dev/nvmeX) between the second and the third.",
        run: |b, _| controller_reset::run(b),
        conclude: controller_reset::conclude,
        charts: &[
            StudyChart::new("Time of the same random reads, run by run", None, &[("seconds", "seconds")], "run", false, "seconds", false,
              "Run 1 fills the caches; the controller is reset before run 3.")
        ],
        dots: &[],
    },
    Study {
        name: "pts-iops",
        title: "SNIA PTS IOPS: random I/O at 7 read/write mixes x 7 block sizes to steady state",
        source: "SNIA Solid State Storage Performance Test Specification 2.0, IOPS test",
        x_axis: "block size [KiB]",
        method: "Purge (reset); WIPC: twice the capacity in 128 KiB sequential writes; rounds of random I/O at R/W 100/0, 95/5, 65/35, 50/50, 35/65, 5/95, 0/100 x 1024, 128, 64, 32, 16, 8, 4 KiB (quick: 100/0, 65/35, 0/100 x 1024, 64, 4 KiB), T4Q32, one test period each (60 s; quick: 1 s; --pts-cell), until the 4 KiB 0/100 IOPS is steady over 5 rounds (range <= 20%, excursion <= 10% of the average) or 25 rounds. Reported: averages over the steady-state window. The spec's 0.5 KiB is left out (4 KiB logical blocks).",
        run: |b, _| pts::run_iops(b),
        conclude: pts::conclude_iops,
        charts: &[
            StudyChart::new("IOPS against block size per R/W mix (steady-state window)", None, &[("iops", "IOPS")], "block size [KiB]", true, "IOPS", true,
              "Random I/O, T4Q32; averages over the steady-state window."),
            StudyChart::new("Steady-state tracking: 4 KiB random-write IOPS per round", Some("tracking"), &[("rw4k_iops", "4 KiB 0/100 IOPS")], "round", false, "IOPS", false,
              "Steady: over the last 5 rounds, range <= 20% and best-fit excursion <= 10% of their average.")
        ],
        dots: &[],
    },
    Study {
        name: "pts-throughput",
        title: "SNIA PTS Throughput: sequential 128 KiB and 1 MiB reads and writes to steady state",
        source: "SNIA Solid State Storage Performance Test Specification 2.0, Throughput test",
        x_axis: "block size [KiB]",
        method: "Purge; WIPC; rounds of sequential reads and writes of 128 KiB and 1024 KiB, T1Q32, one test period each, until the 1024 KiB write bandwidth is steady (5-round window, 20% range, 10% excursion, at most 25 rounds). The spec brings each block size to its own steady state; here one round holds all four.",
        run: |b, _| pts::run_throughput(b),
        conclude: pts::conclude_throughput,
        charts: &[
            StudyChart::new("Sequential throughput against block size (steady-state window)", None, &[("mb_s", "MB/s")], "block size [KiB]", true, "MB/s", false,
              "100/0: reads, 0/100: writes; T1Q32."),
            StudyChart::new("Steady-state tracking: 1 MiB write MB/s per round", Some("tracking"), &[("sw1m_mb_s", "1 MiB 0/100 MB/s")], "round", false, "MB/s", false, "")
        ],
        dots: &[],
    },
    Study {
        name: "pts-latency",
        title: "SNIA PTS Latency: T1Q1 response times of random reads, mixes and writes to steady state",
        source: "SNIA Solid State Storage Performance Test Specification 2.0, Latency test",
        x_axis: "block size [KiB]",
        method: "Purge; WIPC; rounds of random I/O at R/W 100/0, 65/35, 0/100 x 8 and 4 KiB, T1Q1, one test period each, until the 4 KiB 0/100 average response time is steady. Reported: average, maximum and 99.999th percentile over the window (0.5 KiB left out).",
        run: |b, _| pts::run_latency(b),
        conclude: pts::conclude_latency,
        charts: &[
            StudyChart::new("Average response time against block size (steady-state window)", None, &[("avg_us", "average")], "block size [KiB]", true, "latency [us]", true,
              "Random I/O at T1Q1 per R/W mix."),
            StudyChart::new("99.999% response time against block size", None, &[("p99999_us", "99.999%")], "block size [KiB]", true, "latency [us]", true, ""),
            StudyChart::new("Steady-state tracking: 4 KiB write average response time per round", Some("tracking"), &[("rw4k_avg_us", "4 KiB 0/100 average")], "round", false, "latency [us]", false, "")
        ],
        dots: &[],
    },
    Study {
        name: "pts-wsat",
        title: "SNIA PTS Write Saturation: 4 KiB random writes from fresh to saturated",
        source: "SNIA Solid State Storage Performance Test Specification 2.0, WSAT test",
        x_axis: "total written [GB]",
        method: "Purge; 4 KiB random writes T4Q32 without a break for 4 drive writes or 6 hours, whichever ends first (quick: 2 drive writes). Reported: IOPS per period (1 s, merged into at most 300 periods) against the total written and time; fresh-out-of-the-box and saturated IOPS.",
        run: |b, _| pts::run_wsat(b),
        conclude: pts::conclude_wsat,
        charts: &[
            StudyChart::new("IOPS against the total written", None, &[("iops", "IOPS")], "total written [GB]", false, "IOPS", false,
              "4 KiB random writes T4Q32 from a purged drive: fresh out of the box, the transition, saturation.")
        ],
        dots: &[],
    },
    Study {
        name: "pts-hir",
        title: "SNIA PTS Host Idle Recovery: write bursts after idle waits of 5 to 50 s",
        source: "SNIA Solid State Storage Performance Test Specification 2.0, HIR test",
        x_axis: "time [s]",
        method: "Purge; WIPC; rounds of 4 KiB random writes T4Q32 to steady state; then 25 bursts (quick: 3) of 5 s of the same writes each followed by an idle wait of 5 s, then 10, 15, 25 and 50 s; then one test period of writes without waits (return to baseline). Reported: IOPS of every burst against time.",
        run: |b, _| pts::run_hir(b),
        conclude: pts::conclude_hir,
        charts: &[
            StudyChart::new("IOPS of each 5 s burst against time, per idle wait", None, &[("iops", "IOPS")], "time since the first burst [s]", false, "IOPS", false,
              "After steady state; a drive that collects garbage while idle writes faster after longer waits."),
            StudyChart::new("Preconditioning: 4 KiB random-write IOPS per round", Some("tracking"), &[("rw4k_iops", "4 KiB 0/100 IOPS")], "round", false, "IOPS", false,
              "Rounds of one test period until steady (5-round window: range <= 20%, excursion <= 10%).")
        ],
        dots: &[],
    },
    Study {
        name: "pts-xsr",
        title: "SNIA PTS Cross Stimulus Recovery: sequential, then random, then sequential writes",
        source: "SNIA Solid State Storage Performance Test Specification 2.0, XSR test",
        x_axis: "time [s]",
        method: "Purge; WIPC; 1 MiB sequential writes, 8 KiB random writes, 1 MiB sequential writes, each T1Q32 for 2 drive writes (quick: 0.5) instead of the spec's 8, 6 and 8 hours. Reported: throughput against time, merged into at most 40 periods per phase.",
        run: |b, _| pts::run_xsr(b),
        conclude: pts::conclude_xsr,
        charts: &[
            StudyChart::new("Write throughput against time, per phase", None, &[("mb_s", "MB/s")], "time [s]", false, "MB/s", false,
              "Sequential 1 MiB, random 8 KiB, sequential 1 MiB writes, T1Q32.")
        ],
        dots: &[],
    },
    Study {
        name: "pts-dirth",
        title: "SNIA PTS Demand Intensity / Response Time: IOPS and latency over threads x queue depth",
        source: "SNIA Solid State Storage Performance Test Specification 2.0, DIRTH test",
        x_axis: "queue depth (per thread)",
        method: "Purge; WIPC; rounds of 4 KiB random writes T4Q32 to steady state; then 4 KiB random I/O at R/W 0/100, 65/35, 100/0 for every thread count 32 ... 1 and queue depth 32 ... 1 (quick: 0/100 and 100/0, T4 and T1, Q32, Q8, Q1), highest demand first, one test period each. Reported: IOPS, average, maximum and 99.999% response time per demand.",
        run: |b, _| pts::run_dirth(b),
        conclude: pts::conclude_dirth,
        charts: &[
            StudyChart::new("IOPS against queue depth, per mix and thread count", None, &[("iops", "IOPS")], "queue depth (per thread)", true, "IOPS", true,
              "4 KiB random I/O after steady state."),
            StudyChart::new("Average response time against queue depth", None, &[("avg_us", "average")], "queue depth (per thread)", true, "latency [us]", true, ""),
            StudyChart::new("Preconditioning: 4 KiB random-write IOPS per round", Some("tracking"), &[("rw4k_iops", "4 KiB 0/100 IOPS")], "round", false, "IOPS", false,
              "Rounds of one test period until steady (5-round window: range <= 20%, excursion <= 10%).")
        ],
        dots: &[],
    },
    Study {
        name: "block-size",
        title: "Throughput and latency against request size, sequential and random, read and write",
        source: "On the Impact of I/O Access Patterns on SSD Storage, request-size experiments",
        x_axis: "request size [KiB]",
        method: "Reset and fill once; sequential and random reads and sequential writes, 5 s each (quick: 0.5 s) at QD 32; then a warm-up of uniform 4 KiB random writes (1 drive write; quick: 0.5) and random writes at each size.",
        run: |b, _| sweep::run_block_size(b),
        conclude: sweep::conclude,
        charts: &[
            StudyChart::new("Throughput against request size", None, &[("mb_s", "MB/s")], "request size [KiB]", true, "MB/s", false,
              "QD 32, one thread; random writes after a warm-up of random writes (steady state)."),
            StudyChart::new("P99 latency against request size", None, &[("p99_us", "P99")], "request size [KiB]", true, "latency [us]", true, "")
        ],
        dots: &[],
    },
    Study {
        name: "queue-depth",
        title: "Random 4 KiB read and write throughput and latency against queue depth",
        source: "Database-centric SSD measurements (the db-centric paper), queue-depth experiments",
        x_axis: "queue depth",
        method: "Reset and fill once; random 4 KiB reads at each queue depth, 5 s each (quick: 0.5 s); a warm-up of uniform random writes (1 drive write; quick: 0.5), then random 4 KiB writes at each depth.",
        run: |b, _| sweep::run_queue_depth(b),
        conclude: sweep::conclude,
        charts: &[
            StudyChart::new("IOPS against queue depth", None, &[("kiops", "kIOPS")], "queue depth", true, "kIOPS", false,
              "4 KiB random reads on the filled drive; random writes after a warm-up."),
            StudyChart::new("P99 latency against queue depth", None, &[("p99_us", "P99")], "queue depth", true, "latency [us]", true, "")
        ],
        dots: &[],
    },
];

pub fn find(name: &str) -> Option<&'static Study> {
    STUDIES.iter().find(|s| s.name == name)
}

pub struct StudyOptions {
    pub quick: bool,
    pub seed: u64,
    /// The drive's datasheet random-write IOPS (latency-load's 100%), if known.
    pub spec_rand_write_iops: Option<f64>,
    /// Seconds of a PTS test period (default: the spec's 60; quick: 1).
    pub pts_cell_s: Option<f64>,
    /// latency-load's highest level, in percent of its 100% (default 100, at most 200).
    pub max_load_percent: Option<f64>,
    /// latency-load's levels as shares of the drive's own sustained random-write rate (the
    /// warm-up's), not of the datasheet's.
    pub load_relative_to_own: bool,
}

/// Studies `--quick` does not shorten (the experiment is the whole of it): their results are
/// not marked quick, and their pages do not call their numbers rough.
const UNSHORTENED: [&str; 1] = ["write-over-time"];

/// Runs `study` on `target`. Errors before the first point are returned; later ones end the
/// study with the points so far and `error` set.
pub fn run(
    study: &Study,
    target: &mut dyn SuiteTarget,
    o: &StudyOptions,
    stop: Arc<AtomicBool>,
    observer: &dyn Observer,
) -> Result<StudyDoc, SuiteError> {
    let started = Instant::now();
    let identity = target.identity();
    let mut b = Bench::new(target, stop, observer, o.seed, o.quick);
    b.pts_cell = o.pts_cell_s;
    let outcome = (study.run)(&mut b, o);
    let stopped = b.stopped();
    let points = std::mem::take(&mut b.points);
    let error = match outcome {
        Ok(()) => None,
        Err(e) if points.is_empty() && e.is_usage() => return Err(e),
        Err(e) => Some(ssdiq_engine::chain(&e)),
    };
    let (result, mut findings) = (study.conclude)(&points);
    if let (Some(found), Some(actual)) = (result.get("gc_unit_bytes"), identity.gc_unit_bytes) {
        findings.push(gc_unit::against_actual(*found as u64, actual));
    }
    Ok(StudyDoc {
        schema: SCHEMA.into(),
        kind: "study".into(),
        study: study.name.into(),
        title: study.title.into(),
        source: study.source.into(),
        target: identity,
        quick: o.quick && !UNSHORTENED.contains(&study.name),
        seed: o.seed,
        method: study.method.into(),
        x_axis: study.x_axis.into(),
        points,
        result,
        findings,
        partial: stopped || error.is_some(),
        error,
        wall_s: started.elapsed().as_secs_f64(),
    })
}
